"""Pilot tests: jumping to a task or a step from elsewhere (search hits, the step detail)."""

from __future__ import annotations

from pathlib import Path

from memtui.core.store import AgentStore
from memtui.ui.screens.main import MainScreen
from memtui.ui.screens.search import SearchScreen
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree

SIZE = (160, 48)


async def test_search_hit_opens_its_task_and_step(demo_path: Path, settled, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("ctrl+f", *"fuzz corpus")
        await settled(pilot)
        search = app.screen
        assert isinstance(search, SearchScreen)
        index = next(i for i, hit in enumerate(search.hits) if hit.kind == "step")
        hit = search.hits[index]
        await pilot.press("down", *["down"] * index, "enter")  # down: from the query to the list
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        with AgentStore.open(demo_path, readonly=True) as store:
            task = store.task(int(hit.task))
        # The task's session, the task and the step are selected, each pane showing the next.
        assert screen.query_one(SessionsTable).current_record().id == task.session_id
        assert screen.query_one(TaskTree).current_task().id == task.id
        steps = screen.query_one(StepTimeline)
        assert steps.task_id == task.id
        assert steps.current_record().seq == hit.line
        assert screen.step is not None and screen.step.seq == hit.line
        assert screen.focused is steps


async def test_show_task_pages_to_a_late_step(crafted_path: Path, settled, open_app) -> None:
    """A step past the first page of steps is fetched and selected."""
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        with AgentStore.open(crafted_path, readonly=True) as store:
            long_task = next(t for t in store.tasks(store.sessions()[0].id) if t.title == "A long task")
        screen.show_task(long_task.id, step_seq=1100)
        await settled(pilot)
        assert screen.query_one(TaskTree).current_task().id == long_task.id
        steps = screen.query_one(StepTimeline)
        assert steps.current_record().seq == 1100
        assert screen.step.seq == 1100


async def test_show_task_within_the_shown_session(demo_path: Path, settled, open_app) -> None:
    """Another task of the session already shown, then a step of the task already shown."""
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        table = screen.query_one(SessionsTable)
        session = next(r for r in table.records if getattr(r, "title", "") == "Add request routing with path parameters")
        table.select_key(str(session.id))
        await settled(pilot)
        tree = screen.query_one(TaskTree)
        other = next(t for t in tree.tasks if t.id != tree.current_task().id)
        screen.show_task(other.id, step_seq=2)
        await settled(pilot)
        assert tree.current_task().id == other.id
        assert screen.query_one(StepTimeline).current_record().seq == 2
        screen.show_task(other.id, step_seq=1)
        await settled(pilot)
        assert screen.query_one(StepTimeline).current_record().seq == 1
        assert screen.step.seq == 1


async def test_show_task_of_an_orphan(demo_path: Path, settled, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        with AgentStore.open(demo_path, readonly=True) as store:
            orphan = store.tasks(None)[-1]
        screen.show_task(orphan.id)
        await settled(pilot)
        assert screen.query_one(SessionsTable).current_key() == "orphans"
        assert screen.query_one(TaskTree).current_task().id == orphan.id
        assert screen.query_one(StepTimeline).task_id == orphan.id


async def test_step_detail_to_its_changed_files(demo_path: Path, app_for, settled) -> None:
    """`c` in the step detail: back on the main screen, in that step's changed files and diff."""
    from pilot_support import open_step
    from memtui.ui.screens.step_detail import StepDetailScreen
    from memtui.ui.widgets.checkpoint_files import CheckpointFiles
    from memtui.ui.widgets.diff_pane import DiffPane

    app = app_for(demo_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_step(pilot, "Add request routing with path parameters", "Fix path parameters after review", 7, "3")
        screen = app.screen
        step = screen.query_one(StepTimeline).current_record()
        assert step.checkpoint_id is not None
        await pilot.press("enter")
        await settled(pilot)
        assert isinstance(app.screen, StepDetailScreen)
        await pilot.press("c")
        await settled(pilot)
        assert app.screen is screen
        files = screen.query_one(CheckpointFiles)
        assert screen.focused is files
        assert screen.step.id == step.id and files.row_count >= 1
        assert screen.query_one(DiffPane).entry.id == files.current_record().id


async def test_step_detail_without_a_checkpoint_stays(demo_path: Path, settled, open_app) -> None:
    from memtui.ui.screens.step_detail import StepDetailScreen

    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        steps = app.screen.query_one(StepTimeline)
        await pilot.press("3", "home")  # the running task opened on its newest step: its first
        await settled(pilot)
        assert steps.current_record().checkpoint_id is None
        await pilot.press("enter")
        await settled(pilot)
        await pilot.press("c")
        await settled(pilot)
        assert isinstance(app.screen, StepDetailScreen)
