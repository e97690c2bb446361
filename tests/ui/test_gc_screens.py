"""The GC preview (g) and the statistics screen (s) on the seeded demo workspace.

Each test works on its own copy of the demo (`demo_copy`: deterministic, fixed seed and
clock), at a fixed terminal size.
"""

from __future__ import annotations

import sqlite3
import threading

from textual.widgets import DataTable, Static

from memtui.core.store import AgentStore
from memtui.ui.screens.confirm import ConfirmScreen
from memtui.ui.screens.gc import GcScreen
from memtui.ui.screens.stats import StatsScreen
from pilot_support import settle
from memtui.ui.widgets.gc_tree import GcTree

SIZE = (140, 42)


def _tree_rows(screen):
    tree = screen.query_one(GcTree)
    return {node.data.task: node.data for parent in tree.root.children for node in parent.children
            if node.data is not None}


async def _select(pilot, task_id: int) -> None:
    """Expand the task's session if needed, then put the cursor on the task."""
    tree = pilot.app.screen.query_one(GcTree)
    for parent in tree.root.children:
        if any(t.task == task_id for t in parent.data.tasks):
            if not parent.is_expanded:
                parent.expand()
                await pilot.pause()  # lines are numbered on the next render
            node = next(n for n in parent.children if n.data.task == task_id)
            tree.move_cursor(node)
            await pilot.pause()
            return
    raise AssertionError(f"task {task_id} not in the tree")


def _explain(screen) -> str:
    return str(screen.query_one("#gc-explain", Static).render())


def _db(demo_copy):
    return demo_copy / ".agent" / "agent.db"


async def test_g_opens_the_preview_with_marks_and_reasons(demo_copy, open_app):
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("g")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GcScreen)
        rows = _tree_rows(screen)
        assert rows[18].state == "root" and rows[18].label == "root: current, running"
        assert rows[12].label == "root: pinned" and rows[12].state == "root"
        assert rows[15].label == "root: running"  # the running orphan
        assert rows[11].label == "live via #10 (handoff)"
        assert rows[1].state == "reclaimable" and rows[1].bytes > 0
        await _select(pilot, 11)
        assert "#8 -handoff-> #10 -handoff-> #11" in _explain(screen)
        await _select(pilot, 14)
        assert "orphan" in _explain(screen) and "would remove" in _explain(screen)
        await pilot.press("g")  # not over itself
        assert len([s for s in app.screen_stack if isinstance(s, GcScreen)]) == 1
        await pilot.press("escape")
        assert not isinstance(app.screen, GcScreen)


async def test_p_pins_and_unpins_through_a_write_connection(demo_copy, open_app):
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("g")
        await settle(pilot)
        await _select(pilot, 3)
        assert "reclaimable" in _explain(app.screen)
        await pilot.press("p")
        await settle(pilot, 6)
        assert _tree_rows(app.screen)[3].label == "root: pinned"
        assert "root: pinned" in _explain(app.screen)  # the Why pane follows the pin
        assert _explain(app.screen).count("pinned") == 1  # said once (was: ⚑ pinned / root: pinned / root: pinned)
        assert app.store.readonly  # the app itself stays read-only
        with AgentStore.open(demo_copy, readonly=True) as store:
            assert store.task(3).pinned
        await _select(pilot, 3)
        await pilot.press("p")
        await settle(pilot, 6)
        assert _tree_rows(app.screen)[3].state == "reclaimable"


async def test_apply_asks_first_then_collects_and_refreshes(demo_copy, open_app):
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        with AgentStore.open(demo_copy, readonly=True) as store:
            assert not store.task(1).collected
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, 8)
        screen = app.screen
        assert isinstance(screen, GcScreen) and not screen.applying
        rows = _tree_rows(screen)
        assert rows[1].state == "collected" and rows[18].state == "root"
        shown = screen.query_one(GcTree).current_row()
        assert shown.label in _explain(screen)  # the Why pane explains the row after the apply
        assert "reclaimable" not in _explain(screen).split("\n")[1]
        assert screen.plan.reclaimable == ()
        with sqlite3.connect(_db(demo_copy)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert conn.execute("SELECT COUNT(*) FROM step WHERE task_id = 1").fetchone() == (0,)


async def test_cancel_stops_between_tasks(demo_copy, monkeypatch, open_app):
    import memtui.ui.screens.gc as gc_screen

    real = gc_screen.apply_gc
    started = threading.Event()

    def slow_apply(store, plan, progress=None, cancel=None, **kw):
        started.set()
        for _ in range(500):  # wait for the user's c
            if cancel():
                break
            threading.Event().wait(0.01)
        return real(store, plan, progress=progress, cancel=cancel, **kw)

    monkeypatch.setattr(gc_screen, "apply_gc", slow_apply)
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("a", "y")
        started.wait(5)
        await pilot.press("escape")  # refused while collecting
        assert isinstance(app.screen, GcScreen)
        await pilot.press("c")
        await settle(pilot, 8)
        assert not app.screen.applying
        with AgentStore.open(demo_copy, readonly=True) as store:
            assert not any(t.collected for t in store.tasks_by_id(list(range(1, 19))))


async def test_s_opens_statistics_equal_to_the_pragmas(demo_copy, open_app):
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        with sqlite3.connect(f"file:{_db(demo_copy)}?mode=ro", uri=True) as conn:
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        assert screen.stats.page_count == pages
        assert f"{pages:,} × {page_size:,} B" in str(screen.query_one("#stats-facts", Static).render())
        table = screen.query_one(DataTable)
        assert table.row_count == len(screen.stats.tables) + len(screen.stats.indexes)
        await pilot.press("w")
        await settle(pilot, 6)
        assert isinstance(app.screen, StatsScreen) and not app.screen.working


async def test_gc_then_vacuum_from_the_statistics_screen(demo_copy, open_app):
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("a", "y")
        await settle(pilot, 8)
        await pilot.press("escape", "s")
        await settle(pilot, 6)
        screen = app.screen
        assert screen.stats.freelist_count > 0
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot, 8)
        assert app.screen.stats.freelist_count == 0


def test_gc_preview_snapshot(snap_compare, demo_copy, app_for):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        await _select(pilot, 11)

    assert snap_compare(app_for(demo_copy), terminal_size=SIZE, run_before=run_before)


def test_stats_snapshot(snap_compare, demo_copy, app_for):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)

    assert snap_compare(app_for(demo_copy), terminal_size=SIZE, run_before=run_before)


async def test_p_on_the_main_screen_pins_the_highlighted_task(demo_copy, open_app):
    from memtui.ui.widgets.task_tree import TaskTree

    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("2")
        await settle(pilot)
        task = app.screen.query_one(TaskTree).current_task()
        assert task is not None
        await pilot.press("p")
        await settle(pilot, 6)
        with AgentStore.open(demo_copy, readonly=True) as store:
            assert store.task(task.id).pinned is not task.pinned

async def test_a_toast_never_covers_a_dialogs_buttons(demo_path, app_for, settled) -> None:
    """Notifications raised while a dialog is up (the rollback dialog, at 100×30) stay
    clear of its buttons."""
    from memtui.ui.screens.rollback import RollbackScreen

    app = app_for(demo_path)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settled(pilot)
        await pilot.press("2", "r")
        await settled(pilot)
        assert isinstance(app.screen, RollbackScreen)
        for n in range(2):
            app.notify(f"Notification {n}: long enough to take a few lines of the toast's width. " * 2, timeout=30)
        await pilot.pause(0.3)
        toasts = [t.region for t in app.screen.query("Toast")]
        buttons = [b.region for b in app.screen.query("Button")]
        assert toasts and buttons
        assert not [(t, b) for t in toasts for b in buttons if t.overlaps(b)]


async def test_gc_marks_stay_in_view_at_100_columns_and_titles_use_a_wide_pane(demo_copy, open_app, shown) -> None:
    """Narrow: titles are cut with … so that each task's mark (root: …, live via …) and the
    sessions' bytes stay on screen, not cut off at the pane's edge; wide: titles in full."""
    async with open_app(demo_copy, size=(100, 30)) as pilot:
        await pilot.press("g")
        await settle(pilot)
        text = shown(pilot.app)
        assert "root: current, running  55 KiB" in text and "root: pinned  282 B" in text
        assert "live via #10 (handoff)  186 B" in text
        assert "2 reclaimable · 3.3 KiB" in text
    async with open_app(demo_copy, size=(160, 48)) as pilot:
        await pilot.press("g")
        await settle(pilot)
        assert "Refactor the parser with sub-agents  open" in shown(pilot.app)


async def test_a_reload_leaves_the_cursor_and_the_open_sessions_as_they_were(demo_copy, open_app):
    """A reload (ctrl+r here; a pin, a collection and follow mode do the same) rebuilds the
    tree: a session the user closed stays closed, the cursor stays on its task or session
    and is there as soon as the tree is rebuilt, so p pins the row the user chose."""
    from memtui.core.gc import plan_gc, preview_rows
    from memtui.ui.widgets.gc_tree import row_key

    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("g")
        await settle(pilot)
        tree = app.screen.query_one(GcTree)

        def opened() -> set:
            return {row_key(n.data) for n in tree.root.children if n.is_expanded}

        busy = next(n for n in tree.root.children if any(t.task == 18 for t in n.data.tasks))
        assert row_key(busy.data) in opened()  # live work: open by default
        busy.collapse()
        await pilot.pause()
        await _select(pilot, 3)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert row_key(busy.data) not in opened()
        assert row_key(tree.current_row()) == ("task", 3)
        assert "#3 " in _explain(app.screen)
        session = next(n for n in tree.root.children if any(t.task == 3 for t in n.data.tasks))
        tree.move_cursor(session)
        await pilot.pause()
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert row_key(tree.current_row()) == row_key(session.data)  # not the first reclaimable task

        await _select(pilot, 3)
        with app.reading() as store:  # the rows a reload brings
            sessions = preview_rows(store, plan_gc(store))
        tree.show_rows(sessions)
        assert row_key(tree.current_row()) == ("task", 3)  # before any refresh
        await pilot.press("p")
        await settle(pilot, 6)
        with AgentStore.open(demo_copy, readonly=True) as store:
            assert store.task(3).pinned


async def test_the_apply_question_counts_in_words(tmp_path, open_app):
    """One reclaimable task of one step: the question read "(1 steps, 0 checkpoints, 0
    entries, 0 stored contents)"."""
    from memtui.core.store import AgentStore

    with AgentStore.open(tmp_path) as store:
        session = store.start_session("done long ago")
        task = store.start_task(session, "one step")
        store.record_step(task, "bash", {"command": "true"}, "ok")
        store.finish_task(task)
        store.close_session(session)
    async with open_app(tmp_path, size=(120, 30)) as pilot:
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        body = " ".join(str(pilot.app.screen.body).split())
        assert "of 1 task (1 step, 0 checkpoints, 0 entries, 0 stored contents)" in body, body
