"""`memtui search` on an agent's home, run after run (not collected by pytest).

    python tests/bench/search_home.py [--copies 100] [--runs 3]

Builds a Claude Code home of `--copies` times the 3 real sessions of
tests/fixtures/real/claude-2.1.38-spotter-small (each copy a new session id, written into its
records: tests/unit/real_support.many_sessions), then times `memtui search HOME elixirforum
--json` as a user runs it, each a new process, wall and CPU:

- anchor: the same search with its index in SQLite's private temporary database (no cache
  folder can be made): what every run cost when a home's index was built for each search;
- process start: `memtui --version`;
- first search (the index built in memtui's cache folder), the next (nothing changed), and the
  one after the agent appended a prompt to one session (that session indexed again).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT / "tests" / "unit", ROOT / "tests"):
    sys.path.insert(0, str(extra))

from real_support import many_sessions  # noqa: E402

WORD = "elixirforum"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall, CPU of the child) seconds of one process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtui-bench-search-home-") as tmp:
        work = Path(tmp)
        home = many_sessions("claude-2.1.38-spotter-small", work, args.copies)
        sessions = len(list(home.glob("projects/*/*.jsonl")))
        size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
        search = [sys.executable, "-m", "memtui", "search", str(home), WORD, "--json"]
        env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache"), "PYTHONPATH": str(ROOT)}
        (work / "no-cache").write_text("")
        private = {**env, "XDG_CACHE_HOME": str(work / "no-cache")}  # a file: no folder there
        rows: list[tuple[str, list[tuple[float, float]]]] = []

        def row(name: str, argv: list[str], env_: dict[str, str], runs: int, before=None) -> str:
            samples, out = [], ""
            for _ in range(runs):
                if before is not None:
                    before()
                wall, cpu, out = timed(argv, env_)
                samples.append((wall, cpu))
            rows.append((name, samples))
            return out

        anchor = row("anchor: index private, built each run", search, private, args.runs)
        row("process start (memtui --version)", [sys.executable, "-m", "memtui", "--version"], env, args.runs)
        first = row("first search (index built in the cache)", search, env, 1)
        row("next search, nothing changed", search, env, args.runs)
        transcript = next(home.glob("projects/*/55604662-*.jsonl"))
        line = json.loads(transcript.read_text(encoding="utf-8").splitlines()[0])
        appended = [0]

        def agent_goes_on() -> None:
            appended[0] += 1
            prompt = {**line, "type": "user", "uuid": f"bench-{appended[0]}",
                      "message": {"role": "user", "content": f"prompt {appended[0]} about {WORD}"}}
            with transcript.open("a", encoding="utf-8") as out:
                out.write(json.dumps(prompt) + "\n")
        last = row("after one session grew", search, env, args.runs, before=agent_goes_on)
        assert len(json.loads(anchor)) == len(json.loads(first)) == len(json.loads(last)) - appended[0]
        index = next((work / "cache" / "memtui" / "search").iterdir()).stat().st_size
    print(f"home: {sessions:,} sessions, {size / (1 << 20):.1f} MiB; {len(json.loads(first))} hits of {WORD!r};"
          f" index {index / (1 << 20):.1f} MiB")
    anchor_wall = statistics.median(w for w, _ in rows[0][1])
    print(f"{'':44} {'wall (median)':>14} {'CPU (median)':>13} {'× anchor':>9}  runs")
    for name, samples in rows:
        wall = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        print(f"{name:44} {wall:13.2f}s {cpu:12.2f}s {wall / anchor_wall:9.2f}  {len(samples)}")


if __name__ == "__main__":
    main()
