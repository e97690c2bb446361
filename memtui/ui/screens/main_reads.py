"""What the main screen reads when a cursor moves: for a session its task forest and the first
page of steps of the task it will select, in one read and one message (a session move shows its
steps in the same frame as its tasks); for a task its first page of steps. Run in workers:
MainScreen's loads, and reading ahead (memtui.ui.read_ahead) for the rows next to the cursor."""

from __future__ import annotations

from typing import Any, Callable

from memtui.core.model import Id
from memtui.ui import pane_reads
from memtui.ui.messages import StepsLoaded, TasksLoaded
from memtui.ui.widgets.sessions_table import OrphansRow
from memtui.ui.widgets.step_timeline import STEP_PAGE


def session_key(record: Any) -> tuple[Id | None, Id | None]:
    """(session id, its current task id) of a sessions-table row: (None, None) for the orphans."""
    return (None, None) if isinstance(record, OrphansRow) else (record.id, record.current_task_id)


def read_steps(source: Any, task_id: Id, cancelled: Callable[[], bool] = lambda: False) -> StepsLoaded:
    """The first page of a task's steps with the task's totals (what a task move shows); one
    page is read whole (`cancelled` is taken as the other reads take it)."""
    return StepsLoaded(task_id, 0, *pane_reads.step_page(source, task_id, 0, STEP_PAGE, True))


def read_tasks(source: Any, key: tuple[Id | None, Id | None], keep_task: Id | None = None,
               cancelled: Callable[[], bool] = lambda: False) -> TasksLoaded:
    """The tasks of `key`'s session (None: the orphans) and the steps of the task to select
    (its current task, or `keep_task` after a reload)."""
    session_id, current_task_id = key
    forest = pane_reads.task_forest(source, session_id, cancelled)
    target = forest.target(current_task_id, keep_task)
    try:
        first = None if target is None or cancelled() else read_steps(source, target)
    except Exception:  # the steps pane's own load reads again and says what failed
        first = None
    return TasksLoaded(session_id, forest, current_task_id, first)
