"""Reload benchmark: a Claude Code home open while its agent works (not collected by pytest).

    python tests/bench/reload.py [--cache DIR] [--quick]

On a working copy of the cleanup benchmark's replicated home (tests/bench/cleanup.py builds it
once from the real transcripts of tests/fixtures/real), in one run:

- anchor: opening the home and listing its sessions (every transcript listed and read once),
  which every reload cost before reloads read only what changed;
- reload with nothing changed, after the agent appended to one transcript, after it started a
  new session (a new file), after a session was removed — each reload followed by the
  sessions list, as ctrl+r and follow mode do.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from cleanup import build  # noqa: E402

from memtui.core.agents.claude_code.source import ClaudeCodeSource  # noqa: E402

MIB = 1 << 20


def best(fn, repeat: int = 3) -> tuple[float, float]:
    """The best (wall, CPU) time of `repeat` runs (CPU time too: the machine may be shared)."""
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(times)


def replicated_home(description: str) -> Path:
    """The command line's replicated Claude Code home (--cache, --fixtures, --quick), built once
    by tests/bench/cleanup.py: the folder to copy as a working home."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memtui-bench" / "cleanup-v1")
    parser.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures" / "real")
    parser.add_argument("--quick", action="store_true", help="the small home (300 sessions)")
    args = parser.parse_args()
    cache = args.cache.with_name(args.cache.name + "-quick") if args.quick else args.cache
    return build(cache, args.fixtures, (60 if args.quick else 500) * MIB, 300 if args.quick else 2000) / "claude-list"


def main() -> int:
    built = replicated_home(__doc__.splitlines()[0])
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "claude"
        shutil.copytree(built, home)
        files = sorted((home / "projects").rglob("*.jsonl"))
        size = sum(f.stat().st_size for f in files)

        def opened() -> ClaudeCodeSource:
            source = ClaudeCodeSource.from_path(home)
            source.sessions()
            return source

        opened()  # the page cache is warm from here on
        anchor = best(opened)
        source = opened()

        def reload() -> None:
            source.reload()
            source.sessions()

        def row(name: str, fn) -> tuple[str, tuple[float, float], float]:
            reads = source.files_read
            seconds = best(fn)
            return name, seconds, (source.files_read - reads) / 3

        rows = [("anchor: open the home, list its sessions", anchor, float(source.files_read))]
        rows.append(row("reload, nothing changed", reload))
        mains = [f for f in files if "subagents" not in f.parts and not f.name.startswith("agent-")]
        grown = max(mains, key=lambda f: f.stat().st_size)
        line = grown.read_bytes().splitlines(keepends=True)[-1]

        def appended() -> None:
            with grown.open("ab") as out:
                out.write(line)
            reload()
        rows.append(row("reload after a line appended to the biggest transcript", appended))
        new = grown.with_name("00000000-0000-0000-0000-00000000feed.jsonl")
        copied = mains[0].read_bytes().replace(mains[0].stem.encode(), new.stem.encode())  # a session of its own

        def started() -> None:
            new.write_bytes(copied)
            reload()
            new.unlink()
            source.reload()  # not timed: back as it was
        rows.append(row("reload after a new session file appeared", started))
        print(f"Claude Code home: {len(source.sessions()):,} sessions, {len(files):,} files, {size / MIB:.0f} MiB"
              " (page cache warm, best of 3)\n")
        print(f"{'':56}{'wall s':>8}{'× anchor':>9}{'CPU s':>8}{'× anchor':>9}{'files read':>11}")
        for name, (wall, cpu), reads in rows:
            print(f"{name:56}{wall:8.3f}{wall / anchor[0]:9.3f}{cpu:8.3f}{cpu / anchor[1]:9.3f}{reads:11.0f}")
        print("\n'files read': session transcripts (with their sub-agents') parsed by each reload")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
