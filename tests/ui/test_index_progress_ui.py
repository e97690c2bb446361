"""The app on an agent's home whose index is being built from nothing: the main screen is up
and answers keys, its sessions pane counts the transcripts read and lists the sessions read so
far (newest files first), then every session.

The home is real Claude Code transcripts copied as many sessions (tests/fixtures/real); the
build is held by the source's own progress hook (`progress`, told after each file read), which
the test releases once it has seen the pane: what is on the screen then is certain, not a
matter of timing."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

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
                       app.screen.query_one("#sessions-pane").border_subtitle == f"1… · indexing 1/{files} transcripts"):
                assert time.monotonic() < deadline, "the sessions pane never counted the transcripts read"
                await pilot.pause(0.05)
            assert len(app.screen.query_one(SessionsTable).records) == 1  # the one read so far
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


@pytest.mark.parametrize("moved", [True, False], ids=["cursor moved meanwhile", "cursor left at the top"])
async def test_the_sessions_pane_fills_newest_first_while_the_index_is_built(tmp_path, app_for, moved) -> None:
    """A home of 60 transcripts, written at times that are not their listed order: the build
    reads the most recently written first and the pane lists them as batches land, with the
    count still shown; held after a batch of at least 16 transcripts landed, the pane lists
    exactly the sessions of that many newest files; then every session, each once. The cursor
    stays on a session the user moved to meanwhile; left at the top, it is on the newest."""
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 20)
    files = sorted(home.glob("projects/*/*.jsonl"))
    assert len(files) == 60
    base = time.time() - 86_400
    for n, path in enumerate(files):
        written = base + (n * 37) % len(files) * 60  # a minute apart, shuffled against the names
        os.utime(path, (written, written))
    newest = [p.stem for p in sorted(files, key=lambda p: p.stat().st_mtime_ns, reverse=True)]
    gate = threading.Event()
    source = ClaudeCodeSource.from_path(home)
    held: list[int] = []

    def hold(read: int, to_read: int) -> None:
        """Holds the build once, just after a batch of at least 16 landed."""
        landed = source.sessions_so_far()
        if not held and read >= 16 and landed is not None and len(landed) == read:
            held.append(read)
            gate.wait(60)

    source.progress = hold
    app = app_for(tmp_path, opener=lambda: source)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        try:
            deadline = time.monotonic() + 60
            while not (held and isinstance(app.screen, MainScreen)
                       and len(app.screen.query_one(SessionsTable).records) == held[0]):
                assert time.monotonic() < deadline, "the pane never listed the sessions indexed so far"
                await pilot.pause(0.05)
            await pilot.pause(0.2)
            table = app.screen.query_one(SessionsTable)
            read = held[0]
            assert {str(r.id) for r in table.records} == set(newest[:read])
            assert app.screen.query_one("#sessions-pane").border_subtitle == f"{read}… · indexing {read}/60 transcripts"
            assert app.source is None  # the build is held: the whole index is not there yet
            if moved:
                await pilot.press("down", "down")  # the list answers keys meanwhile
            chosen = table.current_key()
        finally:
            gate.set()
        await settle(pilot)
        table = app.screen.query_one(SessionsTable)
        ids = [str(r.id) for r in table.records]
        assert len(ids) == len(set(ids)) == 60  # nothing listed twice
        assert set(ids) == set(newest)  # nor lost
        assert ids == [str(s.id) for s in ClaudeCodeSource.from_path(home).sessions()]
        assert "indexing" not in str(app.screen.query_one("#sessions-pane").border_subtitle)
        if moved:
            assert table.current_key() == chosen  # the cursor stayed on the session chosen meanwhile
        else:
            assert table.cursor_row == 0 and table.current_key() == ids[0]  # on the newest, not a row down
        assert app.screen.session_id == table.current_key()
