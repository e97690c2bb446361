"""Reading ahead and the app's own writes: an undo records a checkpoint in the task next to
the cursor after its steps were read ahead; a move onto that task shows the undo."""

from __future__ import annotations

import pytest
from rollback_world import FIXED, handoff_world, open_on_task

from pilot_support import settle
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree

SIZE = (150, 45)


@pytest.fixture
def world(tmp_path):
    return handoff_world(tmp_path, {"notes.md": b"# notes 1\n"})


async def test_an_undo_in_the_next_task_shows_on_a_move_onto_it(world, open_app, shown) -> None:
    async with open_app(world.root, size=SIZE, clock=lambda: FIXED) as pilot:
        app = pilot.app
        screen = await open_on_task(pilot, world.child)
        tree = screen.query_one(TaskTree)
        await pilot.press("r")  # roll the sub-agent's task back
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert world.read("notes.md") == b"# notes 0\n"
        assert tree.select_task(world.parent)  # the sub-agent's task is next to the cursor now
        await settle(pilot)
        lines = {tree.get_node_at_line(y).data.id: y for y in (tree.cursor_line - 1, tree.cursor_line + 1)
                 if 0 <= y <= tree.last_line}
        key = "down" if lines.get(world.child) == tree.cursor_line + 1 else "up"
        assert world.child in lines
        ahead = screen.steps_ahead.take(world.child)
        assert ahead is not None and [s.tool for s in ahead.steps][-1] == "↶ rollback"
        await pilot.press("u")  # undo the newest rollback: an undo checkpoint in the sub-agent's task
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert world.read("notes.md") == b"# notes 1\n"
        await pilot.press(key)
        await settle(pilot)
        steps = screen.query_one(StepTimeline)
        assert tree.current_task().id == world.child and steps.task_id == world.child
        assert [s.tool for s in steps.records][-2:] == ["↶ rollback", "↷ undo"]
        assert "undo" in shown(app)
