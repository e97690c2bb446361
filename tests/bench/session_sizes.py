"""Session sizes and capability checks on a big Claude Code home (not collected by pytest).

    python tests/bench/session_sizes.py [--cache DIR] [--quick]

On the cleanup benchmark's replicated home (tests/bench/cleanup.py builds it once from the
real transcripts of tests/fixtures/real: 2000 sessions, sub-agent folders included), opened
as `memtui HOME` opens it (the live sessions plus memtui's archive of them, here empty), in
one run:

- anchor: the sessions list without sizes (each session's bytes and files key left out), the
  index already built;
- the sessions list as the panes ask for it (bytes of each session's files: its transcript,
  sub-agent transcripts, tool results): with every session's files walked (the first listing
  of an index; before sizes were kept, every listing), and asked again with nothing changed
  (the sessions pane lists it at each open, reload and page);
- capabilities, asked at every key the footer shows: per call, of the home (live + archive)
  with its folders kept and worked out at each call, and of the live source alone.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from reload import best as best_of, replicated_home  # noqa: E402

from memtui.core.sources.archived import with_archived  # noqa: E402
from memtui.core.agents.claude_code.source import ClaudeCodeSource  # noqa: E402

CALLS = 2000


def best(fn) -> tuple[float, float]:
    return best_of(fn, repeat=5)


def main() -> int:
    built = replicated_home(__doc__.splitlines()[0])
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "claude"
        shutil.copytree(built, home)
        (Path(tmp) / "archive").mkdir()
        live = ClaudeCodeSource.from_path(home)
        source = with_archived(live, home, ClaudeCodeSource.from_path, archive_root=Path(tmp) / "archive",
                               cache=Path(tmp) / "views")
        sessions = source.sessions()  # the index is built from here on, the page cache warm
        files = sum(1 for p in home.rglob("*") if p.is_file())

        memo = live.index().stored

        def walked() -> None:
            memo.clear()  # as at the first listing of an index (and, before sizes were kept, at each)
            source.sessions()

        sized = ClaudeCodeSource.__dict__["_stored"]
        ClaudeCodeSource._stored = lambda self, ix, session, own: (0, "")  # type: ignore[method-assign]
        anchor = best(source.sessions)
        ClaudeCodeSource._stored = sized  # type: ignore[method-assign]
        rows = [("anchor: sessions list without sizes", anchor, 1),
                ("sessions list, every session's files walked", best(walked), 1),
                ("sessions list again, sizes kept (nothing changed)", best(source.sessions), 1)]

        def home_capabilities() -> None:
            for _ in range(CALLS):
                source.capabilities  # noqa: B018 - what the footer asks

        def home_capabilities_afresh() -> None:
            for _ in range(CALLS):
                source._folders_of = None  # worked out at each call (as before they were kept)
                source.capabilities  # noqa: B018
        rows.append((f"capabilities of the home, {CALLS:,} calls", best(home_capabilities), CALLS))
        rows.append((f"… folders worked out at each call, {CALLS:,} calls", best(home_capabilities_afresh), CALLS))

        def live_capabilities() -> None:
            for _ in range(CALLS):
                live.capabilities  # noqa: B018
        rows.append((f"capabilities of the live source, {CALLS:,} calls", best(live_capabilities), CALLS))

        print(f"Claude Code home: {len(sessions):,} sessions, {files:,} files (page cache warm, best of 5)\n")
        print(f"{'':52}{'wall s':>9}{'× anchor':>10}{'CPU s':>9}{'× anchor':>10}{'µs/call':>9}")
        for name, (wall, cpu), calls in rows:
            print(f"{name:52}{wall:9.4f}{wall / anchor[0]:10.2f}{cpu:9.4f}{cpu / anchor[1]:10.2f}"
                  f"{wall / calls * 1e6:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
