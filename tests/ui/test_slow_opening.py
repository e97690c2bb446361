"""A store that takes longer than MAIN_HOLD to open: the main screen comes up first (loading),
then shows the sessions the opening read — each page of the sessions list read once.

The store is a real Claude Code home (tests/fixtures/real, PROVENANCE.md) whose source counts
the pages read through its public read (`session_page`); its opening waits on a real lock the
test holds until the main screen is up, so the opening is slow for certain, not by timing luck.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.ui import pane_reads
from memtui.ui.screens.main import MainScreen
from pilot_support import settle
from memtui.ui.widgets.sessions_table import SessionsTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import real_home  # noqa: E402


class PagesRead(ClaudeCodeSource):
    """A Claude Code home that counts the pages of sessions read from it, by offset."""

    def session_page(self, offset, limit):
        with self.index_lock:
            self.pages[offset] = self.pages.get(offset, 0) + 1
        return super().session_page(offset, limit)


def _home(tmp_path: Path) -> PagesRead:
    source = PagesRead.from_path(real_home("claude-2.1.38-spotter-small", tmp_path))
    source.pages = {}
    return source


def _listed(app) -> list[str]:
    return [str(r.id) for r in app.screen.query_one(SessionsTable).records]


@pytest.mark.parametrize("slow", [True, False], ids=["slow opening", "quick opening"])
async def test_each_page_of_sessions_is_read_once_and_shown(tmp_path, app_for, monkeypatch, slow) -> None:
    monkeypatch.setattr(pane_reads, "FIRST_SESSIONS", 2)  # the home's 3 sessions: a first page, then the rest
    source = _home(tmp_path)
    lock = threading.Lock()

    def opener():
        with lock:  # held by the test until the main screen is up (a slow opening)
            return source

    if slow:
        lock.acquire()
    app = app_for(tmp_path, opener=opener)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        if slow:
            try:
                while not isinstance(app.screen, MainScreen):  # MAIN_HOLD passes: the screen comes without sessions
                    await pilot.pause(0.05)
                await pilot.pause()
                assert source.pages == {} and app.screen.query_one(SessionsTable).loading
            finally:
                lock.release()
        await settle(pilot)
        assert source.pages == {0: 1, 2: 1}  # the first page once (by the opening), then the rest once
        assert _listed(app) == [str(s.id) for s in source.sessions()] and len(_listed(app)) == 3
        await pilot.press("ctrl+r")  # a reload reads the store as it is now, not the opening's page
        await settle(pilot)
        assert source.pages == {0: 2, 2: 2}
        assert _listed(app) == [str(s.id) for s in source.sessions()]
