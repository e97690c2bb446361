"""The benchmarks' big demo store, built once and cached (not collected by pytest).

    python tests/bench/big_store.py                 # build (or find) the 100,000-task store
    python tests/bench/big_store.py --scale 5000    # a smaller one

`make_big_store(scale)` returns the workspace of `memtui demo DIR --scale N`, cached under
$MEMTUI_BENCH_CACHE (default ~/.cache/memtui-bench) as demo-<scale>-seed<seed>. Building the
100k store takes about a minute on an idle machine; every later run reuses it. A store of an
older schema left in the cache is upgraded in place by opening it for writing once.
Benchmarks only read it; one that writes (GC apply) works on a copy (`copy_store`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memtui.core.demo import build_demo  # noqa: E402
from memtui.core.store import AgentStore  # noqa: E402
from memtui.core.store.schema import SCHEMA_VERSION  # noqa: E402


def add_store_option(ap: argparse.ArgumentParser) -> None:
    """`--store DIR`: a workspace to measure instead of the cached 100k store."""
    ap.add_argument("--store", help="a workspace (default: the cached 100k demo)")


def chosen_store(args: argparse.Namespace) -> Path:
    """The workspace `--store` names, else the cached 100k store (built if missing)."""
    return Path(args.store) if args.store else make_big_store()


def cache_dir() -> Path:
    return Path(os.environ.get("MEMTUI_BENCH_CACHE", Path.home() / ".cache" / "memtui-bench"))


def make_big_store(scale: int = 100_000, seed: int = 7, quiet: bool = False) -> Path:
    """The workspace of a cached demo store with `scale` generated tasks (built if missing)."""
    base = cache_dir()
    base.mkdir(parents=True, exist_ok=True)
    root = base / f"demo-{scale}-seed{seed}"
    db = root / ".agent" / "agent.db"
    if db.exists() and (root / ".complete").exists():
        with AgentStore.open(root, readonly=True) as store:
            old = store.needs_upgrade
        if old:  # built by an older memtui: bring it up to date once
            t0 = time.perf_counter()
            AgentStore.open(root, create=False).close()
            if not quiet:
                print(f"upgraded {db} to schema {SCHEMA_VERSION} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        return root
    if root.exists():
        shutil.rmtree(root)  # an interrupted build
    t0 = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if not quiet and (done % 10_000 == 0 or done == total):
            print(f"\r  building {done:,}/{total:,} tasks", end="", file=sys.stderr, flush=True)

    build_demo(root, seed=seed, scale=scale, progress=progress)
    (root / ".complete").write_text(f"{time.perf_counter() - t0:.1f} s\n")
    if not quiet:
        print(f"\nbuilt {db} ({db.stat().st_size / 2**30:.2f} GiB) in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)
    return root


def copy_store(root: Path, into: Path) -> Path:
    """A copy of the workspace's agent.db under `into` (for a benchmark that writes)."""
    target = into / ".agent"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(root / ".agent" / "agent.db", target / "agent.db")
    return into


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=100_000)
    args = parser.parse_args()
    print(make_big_store(args.scale))
