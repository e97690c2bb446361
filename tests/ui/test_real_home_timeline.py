"""What the step timeline says about a real Claude Code transcript (tests/fixtures/real):
a duration the transcript does not record reads as unknown, not as 0ms."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from memtui.ui.app import make_app
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import real_home  # noqa: E402


async def test_a_reply_and_a_checkpoint_show_no_made_up_duration(tmp_path, shown) -> None:
    app = make_app(real_home("claude-2.1.39-spotter", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("1", "down")  # the older session: its current task is "did you push?"
        await settle(pilot)
        screen = shown(app)
        assert "Steps · did you push?" in screen
        rows = [line for line in screen.splitlines() if line.startswith("│    ") and (" checkpoint " in line or " reply " in line)]
        assert len(rows) == 2, rows
        assert all("0ms" not in row for row in rows), rows
        total = next(line for line in screen.splitlines() if "2 steps · " in line)
        # priced from the price table (the transcript records tokens, no cost); the duration is unknown
        assert "0ms" not in total and re.search(r"\$\d+\.\d+ · duration —$", total.rstrip(" │")), total


async def test_a_wide_timeline_shows_arguments_as_far_as_the_column_goes(tmp_path, shown) -> None:
    """At 160 columns the Arguments column is ~85 wide, yet every step's arguments were cut at
    60 characters ("… description=Check in-p…"), leaving the rest of the column empty."""
    app = make_app(real_home("claude-2.1.39-spotter", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = shown(app)
    assert "Steps · continue implementation" in screen
    assert "command=bd list --status=in_progress description=Check in-progress tasks " in screen, screen


async def test_a_steps_arguments_share_the_column(tmp_path, shown) -> None:
    """Each value was cut at 40 characters however wide the column: at 160 columns a Read's
    'file_path=/home/USER/projects/spotter-worktrees/s… offset=1 limit=30' left ~17 columns
    empty. The values share the column now: the short ones whole, the long one the rest."""
    app = make_app(real_home("claude-2.1.39-spotter", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = shown(app)
    assert "Steps · continue implementation" in screen
    [read] = [line for line in screen.splitlines() if " Read " in line and "file_path=" in line]
    assert "file_path=/home/USER/projects/spotter-worktrees/spotter-4te/mix." in read, read
    assert "… offset=1 limit=30 " in read, read
