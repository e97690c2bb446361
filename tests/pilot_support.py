"""Driving the app in tests, benches and the screenshots: one settle (no fixed sleeps), and
the moves to a session and a step that the snapshot tests and the screenshots share.

    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await open_step(pilot, *ROUTING, 7, "3")
"""

from __future__ import annotations

import time
from typing import Any


async def settle(pilot: Any, rounds: int = 6, limit: float = 30.0) -> None:
    """Wait until the chain of loads (session → tasks → steps → files → diff) is done and
    every pane shows the selection above it (a screen's `busy`). No fixed sleeps: `limit`
    only bounds a run that never settles.

    A quiet round is one in which no worker runs, no screen is busy and every message queued
    for the screen has been handled (`pilot.pause(0)`: no sleep). After `rounds` of them in a
    row, one wait for the process to go idle (`pilot.pause()`) confirms it; anything that
    woke meanwhile starts the count again."""
    from textual.widgets import Input

    from memtui.ui.screens.base import MemtuiScreen

    app = pilot.app
    deadline = time.monotonic() + limit

    def busy() -> bool:
        return any(isinstance(screen, MemtuiScreen) and screen.busy for screen in app.screen_stack)

    async def workers_done() -> None:
        try:
            await app.workers.wait_for_complete()
        except Exception:  # cancelled or failed workers are part of normal navigation
            pass

    while time.monotonic() < deadline:
        quiet = 0
        while quiet < rounds and time.monotonic() < deadline:
            await workers_done()
            if busy():
                await pilot.pause(0.05)
                quiet = 0
            else:
                await pilot.pause(0)
                quiet += 1
        await pilot.pause()
        await workers_done()
        if not busy() and not any(worker.is_running for worker in app.workers):
            break
    for box in app.screen.query(Input):
        box.cursor_blink = False


async def open_session(pilot: Any, title: str) -> None:
    """Highlight the session with this title and wait for its tasks."""
    from memtui.ui.widgets.sessions_table import SessionsTable

    await settle(pilot)
    table = pilot.app.screen.query_one(SessionsTable)
    key = next(table.row_key(r) for r in table.records if getattr(r, "title", "") == title)
    table.select_key(key)
    await settle(pilot)


async def open_step(pilot: Any, session: str, task: str, seq: int, focus: str = "3") -> None:
    """Highlight a session, one of its tasks, the step `seq`, then press `focus` (a pane key)."""
    from memtui.ui.widgets.step_timeline import StepTimeline
    from memtui.ui.widgets.task_tree import TaskTree

    await open_session(pilot, session)
    tree = pilot.app.screen.query_one(TaskTree)
    tree.select_task(next(t.id for t in tree.tasks if t.title == task))
    await settle(pilot)
    steps = pilot.app.screen.query_one(StepTimeline)
    steps.select_key(str(next(s.id for s in steps.records if s.seq == seq)))
    await settle(pilot)
    await pilot.press(focus)
    await settle(pilot)


ROUTING = ("Add request routing with path parameters", "Fix path parameters after review")


def footer_keys(app: Any) -> set[str]:
    """The keys the footer shows now (Textual hides a binding whose check_action is False)."""
    return {binding.key for _node, binding, enabled, _tip in app.screen.active_bindings.values()
            if binding.show and enabled}



def _visit_name(visit: Any) -> str:
    """A visit as a failure names it: its keys ("3+o"), its size ("80x24"), its function's name."""
    if isinstance(visit, (list, tuple)) and all(isinstance(part, str) for part in visit):
        return "+".join(visit)
    if isinstance(visit, tuple):
        return "x".join(str(part) for part in visit)
    return getattr(visit, "__name__", str(visit))


async def each_screen(pilot: Any, visits: list[Any], check: Any, go: Any = None) -> None:
    """Visit several screens in one app start, each from the main screen as the app started:
    `go(visit)` (by default: press the visit's keys), settle, `check(visit)` (its own
    assertions), then pop every screen the visit opened, put the focus back where it was at the
    start and clear the notifications. A failed check does not stop the walk: every visit is
    made and the test fails naming each visit whose check failed, with its message."""
    app = pilot.app
    bottom = len(app.screen_stack)
    focused = app.screen.focused
    failed: list[str] = []
    for visit in visits:
        if go is None:
            await pilot.press(*visit)
        else:
            await go(visit)
        await settle(pilot)
        try:
            await check(visit)
        except AssertionError as error:
            failed.append(f"{_visit_name(visit)}: {error}")
        while len(app.screen_stack) > bottom:
            await app.pop_screen()
        if focused is not None and app.screen.focused is not focused:
            focused.focus()
        app.clear_notifications()
        await settle(pilot)
    assert not failed, "\n\n".join(failed)
