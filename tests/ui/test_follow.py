"""Follow mode: an agent writing to the store while memtui is open.

The writes come from a separate connection, as a running agent's would; the app is given
no hint. At the follower's next look the panes show them, and the selection stays where it
was. The tests drive that look (follow_support.look: what the timer calls every POLL_SECONDS)
rather than wait on the clock for it; one waits for the timer's own look, on the reload.
"""

from __future__ import annotations

import asyncio

from follow_support import look, next_reload

from memtui.core.store import AgentStore
from pilot_support import settle
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree
from conftest import notifications


async def test_new_steps_and_sessions_appear_and_the_cursor_stays(demo_copy, open_app) -> None:
    async with open_app(demo_copy) as pilot:
        app = pilot.app
        app.follower.enabled = False  # only the looks below (no timer's look racing them)
        screen = app.screen
        await pilot.press("2")
        task = screen.query_one(TaskTree).current_task()
        steps = screen.query_one(StepTimeline)
        before = len(steps.records)
        await pilot.press("3", "home", "down")  # a step that is not the last: tail leaves it alone
        await settle(pilot)
        chosen = steps.current_record()
        with AgentStore.open(demo_copy) as agent:
            agent.record_step(task.id, "bash", {"command": "pytest -q"}, "1 passed")
            agent.start_session("A session started while memtui was open")
        await look(pilot)
        assert len(steps.records) == before + 1
        assert steps.records[-1].tool == "bash" and steps.current_record().id == chosen.id
        assert screen.query_one(TaskTree).current_task().id == task.id
        titles = [getattr(r, "title", "") for r in screen.query_one(SessionsTable).records]
        assert "A session started while memtui was open" in titles


async def test_tail_stays_on_the_newest_step_and_F_turns_it_off(demo_copy, open_app) -> None:
    async with open_app(demo_copy) as pilot:
        app = pilot.app
        app.follower.enabled = False  # only the looks below (no timer's look racing them)
        screen = app.screen
        await pilot.press("2")
        task = screen.query_one(TaskTree).current_task()
        steps = screen.query_one(StepTimeline)
        await pilot.press("3", "end")
        await settle(pilot)
        for n in range(2):
            with AgentStore.open(demo_copy) as agent:
                new = agent.record_step(task.id, "read_file", {"path": f"f{n}.py"}, "…")
            await look(pilot)
            assert steps.current_record().id == new
        await pilot.press("F")
        with AgentStore.open(demo_copy) as agent:
            agent.record_step(task.id, "read_file", {"path": "g.py"}, "…")
        await look(pilot)
        assert steps.records[-1].args == {"path": "g.py"}
        assert steps.current_record().id == new  # tail off: the cursor stays


async def test_ctrl_r_says_what_changed(demo_copy, open_app) -> None:
    async with open_app(demo_copy) as pilot:
        app = pilot.app
        app.follower.enabled = False  # only ctrl+r reloads here
        task = app.screen.query_one(TaskTree).current_task()
        with AgentStore.open(demo_copy) as agent:
            agent.record_step(task.id, "bash", {"command": "make"}, "ok")
            agent.record_step(task.id, "bash", {"command": "make test"}, "ok")
        await pilot.press("ctrl+r")
        await settle(pilot)
        said = [n.message for n in notifications(app) if n.title == "Reloaded"]
        assert said == ["2 new steps"]
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert [n.message for n in notifications(app) if n.title == "Reloaded"][-1] == "nothing changed"


async def test_the_screenshot_run_leaves_the_demo_as_built(tmp_path):
    """The follow shot's agent writes steps at the shots' fixed "now" (a month after the
    story); on the demo itself they would show as future dates in the served screenshot,
    which runs on the real clock. It writes to a copy."""
    import hashlib

    from memtui.core.demo import build_demo
    from screenshots import SHOTS, take

    demo = build_demo(tmp_path / "demo", seed=1)
    db = demo / ".agent" / "agent.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    [follow] = [s for s in SHOTS if s.name == "follow"]
    [written] = await take(demo, tmp_path / "shots", (follow,))
    assert "pytest -q --durations=5" in written.read_text(encoding="utf-8").replace("&#160;", " ")  # the new step
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


async def task_and_steps(pilot):
    """The task tree focused (2): its selected task and the step timeline, settled."""
    await pilot.press("2")
    task = pilot.app.screen.query_one(TaskTree).current_task()
    steps = pilot.app.screen.query_one(StepTimeline)
    await settle(pilot)
    return task, steps


def agent_records_a_step(workspace, task) -> None:
    """The agent records a step of `task` through its own connection."""
    with AgentStore.open(workspace) as agent:
        agent.record_step(task.id, "bash", {"command": "pytest -q"}, "1 passed")


async def test_a_write_right_after_a_reopen_is_not_lost(demo_copy, open_app) -> None:
    """The store is reopened (after a write of memtui's own, or a reload), the panes read it,
    and an agent writes before the follower's next look: the follower's baseline is from
    before the reopen, so the write is a change and shows up."""
    async with open_app(demo_copy) as pilot:
        app = pilot.app
        task, steps = await task_and_steps(pilot)
        before = len(steps.records)
        app.follower.enabled = False  # the next look comes only after the write (no timing luck)
        app.reopen_source()
        await settle(pilot)  # the panes have read the reopened store
        agent_records_a_step(demo_copy, task)
        await look(pilot)
        assert len(steps.records) == before + 1


async def test_a_write_before_the_first_look_is_not_lost(demo_copy, app_for) -> None:
    """An agent writes after memtui read the store at start and before the follower first
    looked at it: the look's baseline is from before the first read, so the write shows."""
    app = app_for(demo_copy)
    app.follower.enabled = False  # no look until after the write (no timing luck)
    async with app.run_test() as pilot:
        await settle(pilot)
        task, steps = await task_and_steps(pilot)
        before = len(steps.records)
        agent_records_a_step(demo_copy, task)
        await look(pilot)
        assert len(steps.records) == before + 1


async def test_follow_mode_looks_by_itself(demo_copy, open_app) -> None:
    """No key, no look driven by the test: the follower's own timer sees the agent's write and
    the app reloads (the test waits on that reload, not on a time)."""
    async with open_app(demo_copy) as pilot:
        app = pilot.app
        task, steps = await task_and_steps(pilot)
        before = len(steps.records)
        reloaded = next_reload(app)
        agent_records_a_step(demo_copy, task)
        await asyncio.wait_for(reloaded.wait(), timeout=60)  # bounds a follower that never looks
        await settle(pilot)
        assert len(steps.records) == before + 1
