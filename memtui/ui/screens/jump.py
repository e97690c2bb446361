"""Moving from the main screen and back to it.

A search hit or a link names a task (and maybe a step by its number): the screen selects
its session (or the Orphans row), the task in the tree and the step, paging through the
steps as needed; the lookup is a worker of the screen. Enter on a step opens its detail;
`c` there comes back on the step's changed files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from memtui.core.model import Id, TaskInfo
from memtui.ui import pane_reads
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.list_filter import ListFilter
from memtui.ui.widgets.sessions_table import ORPHANS_KEY, SessionsTable
from memtui.ui.widgets.step_timeline import STEP_PAGE, StepTimeline
from memtui.ui.widgets.task_tree import TaskTree

if TYPE_CHECKING:
    from memtui.ui.screens.main import MainScreen

LAST = object()
"""A kept step meaning "the task's last step" (tail)."""


def show_task(screen: MainScreen, task_id: Id, step_seq: int | None = None) -> None:
    """Look the task (and step `step_seq`) up in a worker of `screen`, then select them."""

    def locate() -> None:
        worker = get_current_worker()
        with screen.app.reading() as source:
            task = source.task(task_id)
            step_id = None if step_seq is None else pane_reads.find_step(
                source, task_id, step_seq, STEP_PAGE, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            screen.app.call_from_thread(go_to, screen, task, step_id)

    screen.run_worker(locate, thread=True, exclusive=True, group="locate", exit_on_error=False,
                      description="find the task")


def go_to(screen: MainScreen, task: TaskInfo, step_id: Id | None) -> None:
    """Select `task`'s session, then the task and step as the panes load (or at once when
    the session is shown already)."""
    sessions = screen.query_one(SessionsTable)
    key = ORPHANS_KEY if task.session_id is None else str(task.session_id)
    if not sessions.select_key(key):
        ListFilter.clear_on(sessions)  # the session may be filtered out
        if not sessions.select_key(key):
            screen.notify(f"Task #{task.id} is in no listed session.", markup=False)
            return
    tree = screen.query_one(TaskTree)
    screen.keep = {"task": task.id, "step": step_id}
    wanted = None if key == ORPHANS_KEY else task.session_id
    if screen.session_id == (ORPHANS_KEY if wanted is None else wanted) and tree.session_id == wanted:
        # The session is shown already: move within it.
        if tree.filter_text and not tree.select_task(task.id):
            ListFilter.clear_on(tree)
        if screen.task_id == task.id:
            screen.keep = {} if step_id is None else {"step_of": (task.id, step_id)}
            select_kept_step(screen, screen.query_one(StepTimeline))
        else:
            tree.select_task(task.id)
    screen.query_one(StepTimeline if step_id is not None else TaskTree).focus()


def keep_selection(screen: MainScreen) -> None:
    """Before a reload (`refresh_data`): keep the task, the step (LAST: on the last step with
    tail on, F, stay on the last as new ones arrive) and the changed file shown, and forget
    what the panes show and what was read ahead: everything below the sessions reloads, even
    where the cursor does not move."""
    entry = screen.query_one(CheckpointFiles).current_record()
    tail = screen.tail and screen.query_one(StepTimeline).at_end()
    screen.keep = {"task": screen.task_id, "step": LAST if tail else None if screen.step is None else screen.step.id}
    screen.bottom.keep_entry = None if entry is None or screen.step is None else (screen.step.id, entry.id)
    screen.task_id = None
    screen.step = None
    screen.bottom.forget()
    screen.tasks_ahead.clear()
    screen.steps_ahead.clear()


def select_kept_step(screen: MainScreen, timeline: StepTimeline) -> None:
    """Select the step kept for this task (`show_task`, `refresh_data`), fetching further
    pages of steps until it is loaded."""
    kept = screen.keep.get("step_of")
    if kept is None or kept[0] != timeline.task_id:
        return
    key = timeline.last_key() if kept[1] is LAST and not timeline.more_available() else str(kept[1])
    if timeline.select_key(key) or not timeline.more_available():
        del screen.keep["step_of"]
    else:
        timeline.request_more()


def open_step_detail(screen: MainScreen) -> None:
    """The highlighted step in full; back on its changed files when the detail says "files"."""
    from memtui.ui.screens.step_detail import StepDetailScreen

    step = screen.query_one(StepTimeline).current_record()
    if step is None:
        screen.notify("No step selected.", severity="warning")
        return

    timeline = screen.query_one(StepTimeline)
    detail = StepDetailScreen(step, timeline.records)

    def closed(result: str | None) -> None:
        shown = detail.step  # n / p may have moved to another step of the task
        if timeline.task_id == shown.task_id:
            timeline.select_key(str(shown.id))
        if result == "files":
            screen.action_focus_pane("files")

    screen.app.push_screen(detail, closed)


def open_export(screen: MainScreen) -> None:
    """The export dialog for the highlighted session (sessions pane) or task (key x)."""
    from memtui.ui.screens.export import ExportScreen, export_target

    target = screen.app.source is not None and export_target(screen)
    if not target:
        screen.app.bell()
        return

    def exported(done: str | None) -> None:
        if done:
            screen.notify(done, title="Export", markup=False)

    screen.app.push_screen(ExportScreen(*target), exported)


def resume_highlighted(screen: MainScreen) -> None:
    """Resume the highlighted session in its agent: Claude Code or Codex (key a)."""
    from memtui.ui.screens.resume import resume_session

    resume_session(screen.app, None if screen.session_id == ORPHANS_KEY else screen.session_id)
