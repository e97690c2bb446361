"""Usage benchmark: `memtui usage HOME --by day` against `ccusage daily --json` (not collected by pytest).

    python tests/bench/usage.py [--sessions 2000] [--cache DIR] [--repeat 5]

A user's home of ~2,000 real-shaped Claude Code sessions is built once (under --cache) from the
real transcripts of tests/fixtures/real (the real ones in turn, a big one every fourth round,
sub-agents and compactions with them). Each copy gets its own session id and its own message and
request ids (ccusage counts a message id once across the whole home: copies sharing ids would be
counted once by it and once per copy by memtui). No Codex copies: ccusage counts rollouts with
the same events once, so copies would not compare.

In one run, both tools on the same home, each a new process each time:
- anchor: `ccusage daily --json -O` (npm ccusage, installed as the tests install it; it keeps
  nothing between runs);
- `memtui usage HOME --by day --json`, cold once (no index, no kept usage: every transcript
  parsed, written to memtui's cache folder under a scratch XDG_CACHE_HOME), then warm: the
  home's index ($XDG_CACHE_HOME/memtui/index) and each session's priced replies
  ($XDG_CACHE_HOME/memtui/usage), both served while the session's files keep their stat keys.
The warm runs alternate with ccusage's (--repeat each), so a change of the machine's load
falls on both. Printed: the medians of wall and CPU seconds, memtui/ccusage ratios, the cold
run, and both tools' totals (the warm totals must equal the cold ones).
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


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memtui-bench" / "usage-v1")
    parser.add_argument("--repeat", type=int, default=5, help="warm runs of each tool (default 5)")
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
        theirs_argv = [str(binary), "daily", "--json", "-O", "-z", "UTC"]
        ours_argv = [sys.executable, "-m", "memtui", "usage", str(home), "--by", "day", "--json"]
        cold_wall, cold_cpu, cold = timed(ours_argv, env)
        anchor, warm = [], []
        for _ in range(args.repeat):
            anchor.append(timed(theirs_argv, env))
            warm.append(timed(ours_argv, env))
    theirs, ours = anchor[-1][2], warm[-1][2]
    if any(run[2] != cold for run in warm):
        print("the warm reports differ from the cold one")
        return 1
    a_wall, a_cpu = median([r[0] for r in anchor]), median([r[1] for r in anchor])
    wall, cpu = median([r[0] for r in warm]), median([r[1] for r in warm])
    their_total = json.loads(theirs)["totals"]
    our_total = json.loads(ours)["total"]
    print(f"home: {sessions:,} Claude Code transcripts (sub-agents' beside them included), {size / (1 << 20):,.0f} MiB")
    print(f"medians of {args.repeat}, alternating runs; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"anchor  ccusage {VERSION} daily --json -O : {a_wall:6.2f} s wall, {a_cpu:6.2f} s CPU")
    print(f"memtui usage HOME --by day --json, warm : {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    print(f"ratio memtui warm / ccusage             : {wall / a_wall:6.2f}× wall, {cpu / a_cpu:6.2f}× CPU")
    print(f"memtui cold (index and usage built)    : {cold_wall:6.2f} s wall, {cold_cpu:6.2f} s CPU"
          f" ({cold_wall / a_wall:.2f}× ccusage's wall)")
    print(f"totals: memtui ${our_total['cost']:,.2f} ({our_total['total_tokens']:,} tokens) |"
          f" ccusage ${their_total['totalCost']:,.2f} ({their_total['totalTokens']:,} tokens)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
