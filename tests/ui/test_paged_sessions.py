"""The sessions pane reads the newest page first and the rest behind it; the header's GC
figures come after the first paint, counted without a plan. Paging is invisible: every
session is listed, filterable and reachable."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memtui.core.demo import build_demo
from memtui.core.gc import plan_gc
from memtui.core.store import AgentStore
from memtui.ui import pane_reads
from memtui.ui.widgets.sessions_table import OrphansRow, SessionsTable

SIZE = (150, 45)


@pytest.fixture(scope="module")
def many_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo(tmp_path_factory.mktemp("paged") / "workspace", seed=2, scale=300)


async def test_every_session_is_listed_though_read_a_page_first(many_sessions, app_for, settled, monkeypatch):
    monkeypatch.setattr(pane_reads, "FIRST_SESSIONS", 5)
    with AgentStore.open(many_sessions, readonly=True) as store:
        everything = store.sessions()
        orphans = len(store.tasks(None))
        plan = plan_gc(store)
    assert len(everything) > 20
    seen_parts: list[tuple[int, int]] = []
    real_first, real_parts = pane_reads.first_sessions, pane_reads.session_parts

    def spy_first(source, first=None):  # the opening reads the first page
        part = real_first(source, first)
        seen_parts.append((part[3], len(part[0])))
        return part

    def spy(source, first=None, after=None):  # the main screen reads the others
        for part in real_parts(source, first, after):
            seen_parts.append((part[3], len(part[0])))
            yield part

    monkeypatch.setattr(pane_reads, "first_sessions", spy_first)
    monkeypatch.setattr(pane_reads, "session_parts", spy)
    app = app_for(many_sessions)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert seen_parts == [(0, 5), (5, len(everything) - 5)]  # a page, then the rest
        table = app.screen.query_one(SessionsTable)
        listed = [r for r in table.records if not isinstance(r, OrphansRow)]
        assert [s.id for s in listed] == [s.id for s in everything]
        assert isinstance(table.records[-1], OrphansRow) and table.records[-1].count == orphans
        assert table.current_titles[everything[0].current_task_id] == everything[0].current_title
        last = everything[-1]
        table.apply_filter(last.title)  # a session far beyond the first page
        assert any(r.id == last.id for r in table.matching)
        assert app.measured is not None and app.measured.gc is not None  # after the first paint
        assert app.measured.gc == {"live": len(plan.live), "reclaimable": len(plan.reclaimable),
                                   "reclaimable_bytes": plan.reclaimable_bytes}
        assert app.first_paint.is_set()


async def test_a_key_typed_before_the_main_screen_is_up_does_not_keep_it_away(demo_path, app_for, settled):
    """The main screen is pushed once the newest sessions are read: a screen key typed before
    that (here ? for help) must not leave the user, once it is closed, on an empty screen."""
    from memtui.ui.screens.main import MainScreen

    key_typed = threading.Event()

    def slow_open():  # the store opens only once the key has been typed
        key_typed.wait(10)
        return AgentStore.open(demo_path, readonly=True)

    app = app_for(demo_path, opener=slow_open)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        key_typed.set()
        await settled(pilot)
        await pilot.press("escape")
        await settled(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(SessionsTable).records
