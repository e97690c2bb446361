"""`memtui demo`: write the demo workspace and open the app on it."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("demo", help="write a realistic demo workspace and open it")
    p.add_argument("path", nargs="?", help="where to write it (default: a new temporary directory)")
    p.add_argument("--seed", type=int, default=1, help="random seed (the demo is deterministic per seed)")
    p.add_argument("--scale", type=int, default=None, metavar="N", help="add N generated tasks (benchmarks)")
    p.add_argument("--no-open", action="store_true", help="write the workspace and print a summary only")
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.demo import build_demo
    from memtui.cli._common import open_store
    from memtui.core.display import human_bytes
    from memtui.core.errors import MemtuiError

    started = time.monotonic()

    def progress(done: int, total: int) -> None:
        print(f"  {done:,} / {total:,} generated tasks", file=sys.stderr)

    try:
        root = build_demo(args.path, seed=args.seed, scale=args.scale, progress=progress)
    except FileExistsError as exc:
        raise MemtuiError(str(exc)) from None
    with open_store(root) as store:
        counts = store.counts()
        size = store.db_path.stat().st_size
    took = time.monotonic() - started
    print(f"demo workspace: {root}")
    print("  " + ", ".join(f"{v:,} {k}" for k, v in counts.items()) + f"; agent.db {human_bytes(size)}"
          f" (built in {took:.1f} s)")
    if args.no_open:
        return 0
    from memtui.ui.app import run_app

    return run_app(Path(root))
