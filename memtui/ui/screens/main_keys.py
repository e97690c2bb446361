"""What some of the main screen's keys do beyond its panes' loads: p pins the highlighted task,
h hides the sessions pane, F follows new steps. Functions of the screen, kept out of
memtui.ui.screens.main."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.ui.settings import remember
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.task_tree import TaskTree

if TYPE_CHECKING:
    from memtui.ui.screens.main import MainScreen


def toggle_pin(screen: MainScreen) -> None:
    """Pin the highlighted task (a GC root), or unpin it."""
    from memtui.ui.writes import pin_task

    task = screen.query_one(TaskTree).current_task()
    if task is None or screen.app.store is None:
        screen.notify("Select a task of memtui's own store to pin.", markup=False)
        return
    pin_task(screen, task.id, not task.pinned)


def toggle_sessions(screen: MainScreen) -> None:
    """Hide the sessions pane so the tasks get the width (again: show it)."""
    pane = screen.query_one("#sessions-pane")
    pane.display = not pane.display
    remember(screen.app, sessions_pane=pane.display)
    if not pane.display and screen.focused is screen.query_one(SessionsTable):
        screen.query_one(TaskTree).focus()


def toggle_tail(screen: MainScreen) -> None:
    """Follow a running task's new steps, like tail -f (again: stay where you are)."""
    screen.tail = not screen.tail
    remember(screen.app, tail=screen.tail)
    screen.notify(f"Tail {'on: the last step stays selected as steps arrive' if screen.tail else 'off'}.")
