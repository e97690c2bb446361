"""Usage benchmark: `memtui usage HOME --by day` against `ccusage daily --json` (not collected by pytest).

    python tests/bench/usage.py [--sessions 2000] [--cache DIR]

A user's home of ~2,000 real-shaped Claude Code sessions is built once (under --cache) from the
real transcripts of tests/fixtures/real (the real ones in turn, a big one every fourth round,
sub-agents and compactions with them). Each copy gets its own session id and its own message and
request ids (ccusage counts a message id once across the whole home: copies sharing ids would be
counted once by it and once per copy by memtui). No Codex copies: ccusage counts rollouts with
the same events once, so copies would not compare.

In one run, each best of three, both tools cold (a new process each time; neither keeps an
index on disk: memtui's transcript index lives in the process):
- anchor: `ccusage daily --json -O` (npm ccusage, installed as the tests install it);
- `memtui usage HOME --by day --json`.
Printed: wall and CPU seconds, memtui/ccusage ratios, and both tools' totals.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from cleanup import real_sessions  # noqa: E402

from tests.unit.ccusage_support import VERSION, ccusage  # noqa: E402


def _unique(data: bytes, n: int) -> bytes:
    """The copy's own message and request ids."""
    return data.replace(b'"msg_', b'"msg_%05d' % n).replace(b'"req_', b'"req_%05d' % n)


def build(cache: Path, sessions: int) -> Path:
    """The user's home under `cache` (built once; a marker says it is complete)."""
    home = cache / f"home-{sessions}"
    if (home / "complete").is_file():
        return home
    shutil.rmtree(home, ignore_errors=True)
    claude, _codex = real_sessions(ROOT / "tests" / "fixtures" / "real")
    big = [s for s in claude if sum(map(len, s["files"].values())) > 1 << 20]
    small = [s for s in claude if s not in big]
    count = cycle = 0
    while count < sessions:
        for real in small + ([big[(cycle // 4) % len(big)]] if cycle % 4 == 0 and big else []):
            new = str(uuid.UUID(int=count + 1))
            for rel, data in real["files"].items():
                path = home / ".claude" / "projects" / f"-bench-project-{cycle % 40}" / rel.replace(real["id"], new)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(_unique(data.replace(real["id"].encode(), new.encode()), count))
            count += 1
        cycle += 1
    (home / ".codex" / "sessions").mkdir(parents=True, exist_ok=True)
    (home / "complete").write_text("ok")
    return home


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall, CPU of the child, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {done.stderr.strip()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def best(argv: list[str], env: dict[str, str], repeat: int = 3) -> tuple[float, float, str]:
    runs = [timed(argv, env) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[-1][2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memtui-bench" / "usage-v1")
    args = parser.parse_args()
    binary, why = ccusage()
    if binary is None:
        print(f"ccusage {VERSION} is not available: {why}")
        return 1
    home = build(args.cache, args.sessions)
    sessions = sum(1 for _ in (home / ".claude" / "projects").glob("*/*.jsonl"))
    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    with tempfile.TemporaryDirectory() as scratch:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "TZ": "UTC", "NO_COLOR": "1",
               "CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex"),
               **{v: str(Path(scratch) / v.lower()) for v in ("XDG_DATA_HOME", "XDG_STATE_HOME",
                                                             "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}}
        anchor_wall, anchor_cpu, theirs = best([str(binary), "daily", "--json", "-O", "-z", "UTC"], env)
        wall, cpu, ours = best([sys.executable, "-m", "memtui", "usage", str(home), "--by", "day", "--json"], env)
    their_total = json.loads(theirs)["totals"]
    our_total = json.loads(ours)["total"]
    print(f"home: {sessions:,} Claude Code transcripts (sub-agents' beside them included), {size / (1 << 20):,.0f} MiB")
    print(f"anchor  ccusage {VERSION} daily --json -O : {anchor_wall:6.2f} s wall, {anchor_cpu:6.2f} s CPU")
    print(f"memtui usage HOME --by day --json   : {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    print(f"ratio memtui / ccusage               : {wall / anchor_wall:6.2f}× wall, {cpu / anchor_cpu:6.2f}× CPU")
    print(f"totals: memtui ${our_total['cost']:,.2f} ({our_total['total_tokens']:,} tokens) |"
          f" ccusage ${their_total['totalCost']:,.2f} ({their_total['totalTokens']:,} tokens)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
