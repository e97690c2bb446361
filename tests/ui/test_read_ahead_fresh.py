"""Reading ahead never shows what the store no longer holds (memtui.ui.read_ahead).

The rows next to the cursor are read ahead once a pane shows its own; each test lets that read
finish, changes the store behind it (an agent's connection under follow mode — the follower's
look driven by the test, follow_support.look —, ctrl+r, a GC applied from its screen), then
moves one row and looks at what the panes show.
"""

from __future__ import annotations

from typing import Any

from follow_support import count_reloads, look

from memtui.core.store import AgentStore
from memtui.ui.screens.main_reads import session_key
from pilot_support import ROUTING, open_session
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree

SIZE = (140, 40)
NEW_TASK = "A task an agent began while memtui was open"


async def reloaded(pilot: Any, done: list[int]) -> None:
    """The follower's next look (follow_support.look) reloads the store, and the panes settle."""
    await look(pilot)
    assert done, "follow mode did not see the agent's write"


def onto(screen: Any, session_id: int) -> str:
    """The key that moves the sessions' cursor one row onto `session_id` (a write may reorder them)."""
    table = screen.query_one(SessionsTable)
    row = next(i for i, record in enumerate(table.matching) if record.id == session_id)
    assert abs(row - table.cursor_row) == 1, "the session is no longer next to the cursor"
    return "down" if row > table.cursor_row else "up"


def task_titles(tree: TaskTree) -> list[str]:
    out, stack = [], list(tree.root.children)
    while stack:
        node = stack.pop()
        out.append(node.data.title)
        stack.extend(node.children)
    return out


async def on_a_task_with_a_neighbour(pilot: Any, settled: Any) -> tuple[str, Any]:
    """The routing session's tasks, the cursor on one; the key that moves onto the task next to
    it, and that task (its steps read ahead)."""
    await open_session(pilot, ROUTING[0])
    await pilot.press("2")
    await settled(pilot)
    tree = pilot.app.screen.query_one(TaskTree)
    key = "down" if tree.cursor_line < tree.last_line else "up"
    other = tree.around_cursor()[-1 if key == "down" else 0]
    assert pilot.app.screen.steps_ahead.take(other.id) is not None
    return key, other


async def test_a_task_an_agent_adds_to_the_next_session_shows_after_the_poll(demo_copy, open_app, settled,
                                                                            shown) -> None:
    async with open_app(demo_copy, size=SIZE) as pilot:
        screen = pilot.app.screen
        neighbour = screen.query_one(SessionsTable).around_cursor()[-1]
        assert screen.tasks_ahead.take(session_key(neighbour)) is not None
        done = count_reloads(pilot.app)
        with AgentStore.open(demo_copy) as agent:
            agent.start_task(neighbour.id, NEW_TASK)
        await reloaded(pilot, done)
        await pilot.press(onto(screen, neighbour.id))
        await settled(pilot)
        tree = screen.query_one(TaskTree)
        assert tree.session_id == neighbour.id
        assert NEW_TASK in task_titles(tree) and NEW_TASK in shown(pilot.app)


async def test_a_step_an_agent_adds_to_the_next_task_shows_after_the_poll(demo_copy, open_app, settled,
                                                                         shown) -> None:
    async with open_app(demo_copy, size=SIZE) as pilot:
        key, other = await on_a_task_with_a_neighbour(pilot, settled)
        done = count_reloads(pilot.app)
        with AgentStore.open(demo_copy) as agent:
            agent.record_step(other.id, "bash", {"command": "echo fresh-after-read-ahead"}, "ok")
        await reloaded(pilot, done)
        await pilot.press(key)
        await settled(pilot)
        steps = pilot.app.screen.query_one(StepTimeline)
        assert steps.task_id == other.id
        await pilot.press("3", "end")
        await settled(pilot)
        assert steps.current_record().args == {"command": "echo fresh-after-read-ahead"}
        assert "fresh-after-read-ahead" in shown(pilot.app)


async def test_ctrl_r_forgets_what_was_read_ahead(demo_copy, open_app, settled, shown) -> None:
    """The next session's tasks and its current task's first steps were read ahead; an agent
    adds a step to that task; after ctrl+r a move onto the session shows it."""
    async with open_app(demo_copy, size=SIZE) as pilot:
        pilot.app.follower.enabled = False  # only ctrl+r reloads here
        screen = pilot.app.screen
        neighbour = screen.query_one(SessionsTable).around_cursor()[-1]
        assert screen.tasks_ahead.take(session_key(neighbour)) is not None
        with AgentStore.open(demo_copy) as agent:
            agent.record_step(neighbour.current_task_id, "bash", {"command": "echo after-ctrl-r"}, "ok")
        await pilot.press("ctrl+r")
        await settled(pilot)
        await pilot.press(onto(screen, neighbour.id))
        await settled(pilot)
        steps = screen.query_one(StepTimeline)
        assert steps.task_id == neighbour.current_task_id
        assert steps.records[-1].args == {"command": "echo after-ctrl-r"} and "after-ctrl-r" in shown(pilot.app)


async def test_a_task_collected_from_the_gc_screen_shows_no_steps(demo_copy, open_app, settled, shown) -> None:
    async with open_app(demo_copy, size=SIZE) as pilot:
        app = pilot.app
        key, other = await on_a_task_with_a_neighbour(pilot, settled)
        with AgentStore.open(demo_copy) as store:  # what the GC will collect: the neighbour too
            store.finish_task(other.id, "failed")
        app.follower.enabled = False
        await pilot.press("ctrl+r")
        await settled(pilot)
        screen = app.screen
        assert screen.steps_ahead.take(other.id) is not None  # read ahead again, with its steps
        assert screen.steps_ahead.take(other.id).steps
        await pilot.press("g")
        await settled(pilot)
        if other.id not in {t.task for t in app.screen.plan.reclaimable}:
            raise AssertionError(f"task {other.id} is not reclaimable: {app.screen.plan.reclaimable}")
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("y")
        await settled(pilot, 8)
        await pilot.press("escape")
        await settled(pilot)
        await pilot.press(key)
        await settled(pilot)
        steps = screen.query_one(StepTimeline)
        assert steps.task_id == other.id
        assert steps.records == []


async def test_switching_source_shows_nothing_read_ahead_from_the_old_one(demo_copy, open_app, settled,
                                                                          monkeypatch, tmp_path) -> None:
    """A workspace with memtui's store and RA.Aid's (both number their sessions 1, 2, …): after
    the switch, a move onto the next session shows that session's tasks in the new source."""
    import shutil

    from textual.widgets import DataTable

    from sources_support import FIXTURES

    shutil.copytree(FIXTURES / "ra_aid_project" / ".ra-aid", demo_copy / ".ra-aid")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    async with open_app(demo_copy, size=SIZE) as pilot:
        app, screen = pilot.app, pilot.app.screen
        assert app.source.kind == "memtui"
        assert screen.tasks_ahead.take(session_key(screen.query_one(SessionsTable).around_cursor()[-1]))
        await pilot.press("S")
        await settled(pilot)
        rows = app.screen.rows
        app.screen.query_one(DataTable).move_cursor(row=next(i for i, r in enumerate(rows)
                                                             if r.source.kind == "ra-aid"))
        await pilot.press("enter")
        await settled(pilot)
        assert app.source.kind == "ra-aid"
        table = screen.query_one(SessionsTable)
        assert table.cursor_row + 1 < len(table.matching), "RA.Aid's store lists one session"
        await pilot.press("1", "down")
        await settled(pilot)
        session = table.current_record()
        tree = screen.query_one(TaskTree)
        assert tree.session_id == session.id
        titles = task_titles(tree)
        assert titles and sorted(titles) == sorted(t.title for t in app.source.tasks(session.id))
