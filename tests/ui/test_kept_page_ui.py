"""The app on an agent's home it listed before: the first frame lists the newest sessions as
the last run kept them (memtui.ui.kept_page) and says so ("as of …; checking…") while the home
is opened behind it; a session's tasks wait for the opening; then the sessions the home holds
now replace them — a session deleted between the runs gone — with the cursor on the session
it was on.

The home is real Claude Code transcripts (tests/fixtures/real) copied as more sessions; the
second run's opening is held on a real lock until the test has looked at the kept page, so
what is on the screen then is certain, not a matter of timing."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from memtui.ui import app as app_module
from memtui.ui.kept_page import read_kept
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.task_tree import TaskTree
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import many_sessions  # noqa: E402


def _listed(app) -> list[str]:
    return [str(r.id) for r in app.screen.query_one(SessionsTable).records]


async def _until(pilot, done, what: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not done():
        assert time.monotonic() < deadline, what
        await pilot.pause(0.05)


async def test_the_last_runs_page_is_drawn_at_once_then_replaced_by_the_home_as_it_is(
        tmp_path, app_for, monkeypatch) -> None:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 2)
    app = app_for(home)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        before = _listed(app)
        await _until(pilot, lambda: read_kept(home) is not None, "the first run kept no page")
    assert [str(s.id) for s in read_kept(home)[0]] == before

    gone = before[0]  # the newest session is deleted between the runs
    next(home.glob(f"projects/*/{gone}.jsonl")).unlink()
    gate = threading.Event()
    real_open = app_module.open_workspace

    def held_open(*args, **kwargs):
        gate.wait(60)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(app_module, "open_workspace", held_open)
    app = app_for(home)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        try:
            await _until(pilot, lambda: app.screen.query(SessionsTable) and _listed(app), "no kept page drawn")
            assert _listed(app) == before  # as the last run listed them, the deleted session too
            subtitle = str(app.screen.query_one("#sessions-pane").border_subtitle)
            assert "as of" in subtitle and "checking…" in subtitle
            assert app.source is None
            await pilot.press("down")  # to the second session; its tasks wait for the opening
            await pilot.pause(0.5)
            assert app.screen.query_one(TaskTree).session_id is None
            assert str(app.screen.query_one("#tasks-pane").border_subtitle) == "loading…"
        finally:
            gate.set()
        await settle(pilot)
        assert _listed(app) == before[1:]
        assert "checking" not in str(app.screen.query_one("#sessions-pane").border_subtitle)
        table = app.screen.query_one(SessionsTable)
        assert str(table.current_record().id) == before[1]  # the cursor stayed on its session
        assert str(app.screen.query_one(TaskTree).session_id) == before[1]  # whose tasks are shown


async def test_at_the_terminal_size_it_was_kept_at_the_page_is_in_the_table_when_first_laid_out(
        tmp_path, app_for, monkeypatch) -> None:
    """The kept page comes with the sessions table's width at the terminal size it was drawn
    at: at that size its rows are in the table when Textual first lays the table out (the
    first frame lists them, rather than a frame of an empty table first), at the columns the
    table keeps once laid out; at another size they wait for the table's width, as before."""
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 2)
    app = app_for(home)
    app.follower.enabled = False
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        columns = [(c.key.value, c.width) for c in app.screen.query_one(SessionsTable).columns.values()]
        await _until(pilot, lambda: read_kept(home) is not None, "the first run kept no page")
    kept = read_kept(home)
    assert kept.fit[:2] == (140, 40)

    laid_out: list[int] = []  # the rows the table had each time it was laid out anew
    real_resize = SessionsTable.on_resize

    def on_resize(table) -> None:
        laid_out.append(table.row_count)
        real_resize(table)

    monkeypatch.setattr(SessionsTable, "on_resize", on_resize)
    gate = threading.Event()
    real_open = app_module.open_workspace
    monkeypatch.setattr(app_module, "open_workspace", lambda *a, **kw: gate.wait(60) and real_open(*a, **kw))
    for size, rows_at_first_layout in (((140, 40), len(kept.sessions)), ((100, 30), 0)):
        laid_out.clear()
        gate.clear()
        app = app_for(home)
        app.follower.enabled = False
        async with app.run_test(size=size) as pilot:
            try:
                await _until(pilot, lambda: laid_out and app.screen.query_one(SessionsTable).row_count,
                             "no kept page drawn")
                assert laid_out[0] == rows_at_first_layout
                if size == (140, 40):
                    assert [(c.key.value, c.width) for c in app.screen.query_one(SessionsTable).columns.values()
                            ] == columns
            finally:
                gate.set()
            await settle(pilot)
