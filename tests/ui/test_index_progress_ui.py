"""The app on an agent's home whose index is being built from nothing: the main screen is up
and answers keys, its sessions pane counts the transcripts read, then lists the sessions.

The home is real Claude Code transcripts copied as many sessions (tests/fixtures/real); the
build is held after its first transcript by the source's own progress hook (`progress`, told
after each file read), which the test releases once it has seen the count: what is on the
screen then is certain, not a matter of timing."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.ui.screens.main import MainScreen
from memtui.ui.widgets.sessions_table import SessionsTable
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import many_sessions  # noqa: E402


async def test_the_sessions_pane_counts_transcripts_while_the_index_is_built(tmp_path, app_for) -> None:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 4)
    files = len(list(home.glob("projects/*/*.jsonl")))
    gate = threading.Event()
    source = ClaudeCodeSource.from_path(home)
    source.progress = lambda read, to_read: gate.wait(60) if read == 1 else None
    app = app_for(tmp_path, opener=lambda: source)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        try:
            deadline = time.monotonic() + 60
            while not (app.screen.query(SessionsTable) and
                       app.screen.query_one("#sessions-pane").border_subtitle == f"indexing 1/{files} transcripts"):
                assert time.monotonic() < deadline, "the sessions pane never counted the transcripts read"
                await pilot.pause(0.05)
            assert app.screen.query_one(SessionsTable).loading
            await pilot.press("question_mark")  # the screen answers while the index is built
            await pilot.pause(0.2)
            assert not isinstance(app.screen, MainScreen)  # the help screen came up over it
            await pilot.press("escape")
            await pilot.pause(0.2)
            assert isinstance(app.screen, MainScreen)
        finally:
            gate.set()
        await settle(pilot)
        table = app.screen.query_one(SessionsTable)
        assert len(table.records) == files
        assert "indexing" not in str(app.screen.query_one("#sessions-pane").border_subtitle)
