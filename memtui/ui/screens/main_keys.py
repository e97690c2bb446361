"""What some of the main screen's keys do beyond its panes' loads: p pins the highlighted task,
h hides the sessions pane, F follows new steps, / and escape filter the focused list, 1-5 focus
a pane. Functions of the screen, kept out of memtui.ui.screens.main."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.core.memory_source import Capability
from memtui.ui.commands import COMMANDS
from memtui.ui.settings import remember
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.list_filter import ListFilter
from memtui.ui.widgets.pane import focus_now
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree

if TYPE_CHECKING:
    from memtui.ui.screens.main import MainScreen

PANES = ("sessions", "tasks", "steps", "files", "diff")
"""The panes `focus_pane` knows; each one's focusable widget has the pane's name as its id."""
DIFF_ACTIONS = frozenset(c.action for c in COMMANDS if c.scope == "main" and c.needs is Capability.DIFF)
"""The keys that act on a file's diff (v ] [ f): the main screen's commands that need DIFF."""


def offered_here(screen: MainScreen, action: str) -> bool:
    """False for the diff's keys while the diff pane shows no file's diff ("This step changed
    no files", a file the store kept no contents of): they would only ring the bell."""
    return action not in DIFF_ACTIONS or screen.bottom.diff.entry is not None


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


def focus_pane(screen: MainScreen, name: str) -> None:
    """Focus one pane by name (PANES), first leaving a zoomed one."""
    if name in PANES:
        if screen.maximized is not None:
            screen.minimize()
        focus_now(screen.query_one(f"#{name}"))


def open_filter(screen: MainScreen) -> None:
    """Filter the focused list (sessions, tasks, steps or files) as you type."""
    screen.query_one(ListFilter).open_on(screen.focused, [screen.query_one(kind) for kind in (
        SessionsTable, TaskTree, StepTimeline, CheckpointFiles)])


def clear_filter(screen: MainScreen) -> None:
    """Escape: close the filter box, else clear the focused list's filter, else leave a zoomed pane."""
    box = screen.query_one(ListFilter)
    if box.active:
        box.close(clear=True)
    elif screen.focused is not None and ListFilter.clear_on(screen.focused):
        box.target = screen.focused
    elif screen.maximized is not None:
        screen.minimize()
