"""Follow mode frame by frame: while the cursor sits on a running task's newest step, no frame
shows rows that do not hold it (the table drawn at the top for one frame after a reload), and a
running task opened while following opens on its newest step."""

from __future__ import annotations

from follow_support import look

from memtui.core.store import AgentStore
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree
from pilot_support import settle

SIZE = (120, 30)


def watch_frames(steps: StepTimeline) -> list[tuple[int, int, int]]:
    """(first row shown, cursor row, rows shown) at each frame the table draws (the header
    line is not a row)."""
    frames: list[tuple[int, int, int]] = []
    render_line = steps.render_line

    def drawn(y: int):
        if y == 0:
            frames.append((int(steps.scroll_y), steps.cursor_row, steps.scrollable_content_region.height - 1))
        return render_line(y)
    steps.render_line = drawn
    return frames


def long_running_task(workspace) -> tuple[int, int]:
    """A running task of a new session with 60 steps: (session, task)."""
    with AgentStore.open(workspace) as agent:
        sid = agent.start_session("A long run")
        task = agent.start_task(sid, "Run the suite until it passes")
        for n in range(60):
            agent.record_step(task, "bash", {"command": f"pytest -q -k case{n}"}, "1 passed")
    return sid, task


async def test_no_frame_leaves_the_newest_step_while_tailing(demo_copy, open_app) -> None:
    _sid, task = long_running_task(demo_copy)
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        app.follower.enabled = False
        screen = app.screen
        await pilot.press("2")
        screen.show_task(task)
        await settle(pilot)
        steps = screen.query_one(StepTimeline)
        steps.focus()
        await pilot.press("end")
        await settle(pilot)
        frames = watch_frames(steps)
        for n in range(5):
            with AgentStore.open(demo_copy) as agent:
                agent.record_step(task, "bash", {"command": f"pytest -q -k new{n}"}, "1 passed")
            await look(pilot)
            await pilot.pause()
            assert steps.current_record().args == {"command": f"pytest -q -k new{n}"}
        assert frames
        stray = [f for f in frames if f[1] != -1 and not f[0] <= f[1] < f[0] + f[2]]
        assert not stray, stray


async def test_a_running_task_opens_on_its_newest_step_when_following(demo_copy, open_app) -> None:
    _sid, task = long_running_task(demo_copy)
    async with open_app(demo_copy, size=SIZE) as pilot:
        screen = pilot.app.screen
        assert pilot.app.follower.enabled and screen.tail  # the defaults
        await pilot.press("3")  # the steps pane in view
        await settle(pilot)
        frames = watch_frames(screen.query_one(StepTimeline))
        screen.show_task(task)
        await settle(pilot)
        steps = screen.query_one(StepTimeline)
        assert screen.query_one(TaskTree).current_task().status == "running"
        assert steps.current_record().args == {"command": "pytest -q -k case59"}  # the newest
        shown = [f for f in frames if f[1] == 59]
        assert shown and all(f[0] <= 59 < f[0] + f[2] for f in shown)
        # Follow mode off: a task opens on its first step, as any other.
        pilot.app.follower.enabled = False
        screen.show_task(18)  # another session's task, then back
        await settle(pilot)
        screen.show_task(task)
        await settle(pilot)
        assert steps.current_record().seq == 1
