"""Reading ahead (memtui.ui.read_ahead): the changed files of the steps next to the cursor are
read once the shown step's are, so a move onto one shows them without a read of its own; a
read ahead that fails says nothing, and the move then reads and reports as before."""

from __future__ import annotations

from typing import Any

from pilot_support import ROUTING, open_session, open_step
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.step_timeline import StepTimeline

from sources_support import damaged
from conftest import notifications

SIZE = (140, 40)


async def on_a_step_with_a_checkpoint_next(pilot: Any, settled: Any) -> tuple[Any, Any]:
    """The routing fix's edit step, and a step next to it that made a checkpoint too."""
    await open_step(pilot, *ROUTING, 7, "3")
    timeline = pilot.app.screen.query_one(StepTimeline)
    row = timeline.cursor_row
    key = next(k for k in ("up", "down") if timeline.matching[row + (1 if k == "down" else -1)].checkpoint_id)
    return key, timeline.matching[row + (1 if key == "down" else -1)]


async def test_a_move_onto_a_step_read_ahead_shows_its_files_without_reading(demo_path, open_app, settled,
                                                                           shown, monkeypatch) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        key, neighbour = await on_a_step_with_a_checkpoint_next(pilot, settled)
        bottom = pilot.app.screen.bottom
        await settled(pilot)
        assert bottom.ahead.take((neighbour.id, neighbour.checkpoint_id)) is not None
        monkeypatch.setattr(pilot.app.source, "checkpoint_entries", damaged)  # any read now would fail
        pilot.app.clear_notifications()
        await pilot.press(key)
        await settled(pilot)
        assert pilot.app.screen.step.id == neighbour.id
        files = pilot.app.screen.query_one(CheckpointFiles)
        assert files.records and all(entry.checkpoint_id == neighbour.checkpoint_id for entry in files.records)
        assert f"checkpoint {neighbour.checkpoint_id}" in shown(pilot.app)
        assert not notifications(pilot.app)


async def test_a_failed_read_ahead_is_silent_and_the_move_reports_its_own(demo_path, open_app, settled,
                                                                       shown, monkeypatch) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        monkeypatch.setattr(pilot.app.source, "checkpoint_entries", damaged)
        pilot.app.clear_notifications()
        key, neighbour = await on_a_step_with_a_checkpoint_next(pilot, settled)
        await settled(pilot)
        failed = [n.title for n in notifications(pilot.app)]
        assert failed == ["Failed: load checkpoint files"]  # the shown step's own load, not the read ahead
        assert pilot.app.screen.bottom.ahead.take((neighbour.id, neighbour.checkpoint_id)) is None
        await pilot.press(key)
        await settled(pilot)
        assert pilot.app.screen.step.id == neighbour.id
        text = shown(pilot.app)  # the move read, and its pane says it could not (the same toast is up)
        assert f"checkpoint {neighbour.checkpoint_id}" in text and "unreadable" in text


async def test_a_move_onto_a_session_or_task_read_ahead_shows_it_without_reading(demo_path, open_app, settled,
                                                                               shown, monkeypatch) -> None:
    from memtui.ui.screens.main_reads import session_key
    from memtui.ui.widgets.sessions_table import SessionsTable
    from memtui.ui.widgets.task_tree import TaskTree

    async with open_app(demo_path, size=SIZE) as pilot:
        screen, source = pilot.app.screen, pilot.app.source
        neighbour = screen.query_one(SessionsTable).around_cursor()[-1]  # the row below the cursor
        assert screen.tasks_ahead.take(session_key(neighbour)) is not None
        for read in ("tasks", "steps", "step_totals"):  # any read now would fail
            monkeypatch.setattr(source, read, damaged)
        pilot.app.clear_notifications()
        await pilot.press("down")
        await settled(pilot)
        tree = screen.query_one(TaskTree)
        assert tree.session_id == neighbour.id and tree.current_task() is not None
        assert screen.query_one(StepTimeline).task_id == tree.current_task().id
        assert f"session {neighbour.id}" in shown(pilot.app)
        assert not notifications(pilot.app)

        monkeypatch.undo()
        await open_session(pilot, ROUTING[0])  # a session of several tasks, where the reads work again
        await pilot.press("2")  # the tasks: the one next to the cursor is read ahead too
        await settled(pilot)
        other = tree.around_cursor()[-1]  # the task below the cursor (above, on the last line)
        key = "down" if tree.cursor_line < tree.last_line else "up"
        assert screen.steps_ahead.take(other.id) is not None
        monkeypatch.setattr(source, "steps", damaged)
        await pilot.press(key)
        await settled(pilot)
        assert tree.current_task().id == other.id
        assert screen.query_one(StepTimeline).task_id == other.id and screen.query_one(StepTimeline).records
        assert not notifications(pilot.app)
