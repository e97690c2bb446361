"""The main screen: sessions · tasks (handoff tree) · step timeline · changed files · diff.

A session loads its task tree, a task its steps, a step its checkpoint's files, a file its diff:
each a thread worker (one group per pane) reading through ui.pane_reads. Elsewhere: the bottom
row (widgets.checkpoint_panes), jumps and dialogs (.jump), keys and filter (.main_keys), rollback.
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Tree
from textual.worker import Worker, get_current_worker

from memtui.core.model import Id, StepInfo
from memtui.ui import pane_reads
from memtui.ui.commands import bindings
from memtui.ui.debounce import Debounce
from memtui.ui.collector import keep_out_of_collections
from memtui.ui.messages import SessionsLoaded, StepsLoaded, TasksLoaded
from memtui.ui.pane_reads import SessionExtent, extent
from memtui.ui.screens import jump, main_keys
from memtui.ui.read_ahead import ReadAhead
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.main_reads import read_steps, read_tasks, session_key
from memtui.ui.widgets.checkpoint_panes import GROUPS as CHECKPOINT_GROUPS
from memtui.ui.widgets.checkpoint_panes import CheckpointPanes
from memtui.ui.widgets.key_footer import KeyFooter
from memtui.ui.widgets.list_filter import ListFilter
from memtui.ui.widgets.pane import Pane, pane_name, toggle_zoom
from memtui.ui.widgets.sessions_table import ORPHANS_KEY, OrphansRow, SessionsTable
from memtui.ui.widgets.step_timeline import STEP_PAGE, StepTimeline, totals_line
from memtui.ui.widgets.task_tree import TaskTree
from memtui.ui.widgets.workspace_bar import WorkspaceBar
from memtui.ui.workers import failure_reason

class MainScreen(MemtuiScreen[None]):
    """Browse sessions, tasks, steps and checkpoint diffs."""

    COMMAND_SCOPE = "main"
    BINDINGS = bindings("main")

    SETTLE_DELAY = 0.12
    """Seconds of quiet before a pane follows a cursor that keeps moving (key held down)."""

    def __init__(self, first: SessionsLoaded | None = None) -> None:
        super().__init__()
        self._first = first
        """The newest sessions the opening read: the first frame shows them (dropped once shown)."""
        self._after: SessionExtent | None = extent(first.part) if first is not None else None
        """Where the sessions the opening read end: the adopting refresh reads on from there."""
        self.session_id: Id | None | str = None
        """The highlighted session (ORPHANS_KEY for the orphans pseudo-session)."""
        self.task_id: Id | None = None
        self.step: StepInfo | None = None
        self._loaded_once = False
        self.debounce = Debounce(self, self.SETTLE_DELAY)
        self.tasks_ahead = ReadAhead(self, "tasks", read_tasks)
        self.steps_ahead = ReadAhead(self, "steps", read_steps)
        self.keep: dict[str, Any] = {}
        """What was selected before `refresh_data` or a jump: reselected as the panes reload."""
        self._totals: dict[str, float] | None = None
        self._stalled = False
        """A pane's load failed: it shows why, and waits for the user (not for a load)."""
        self.tail: bool = self.app.settings.get("tail", True)
        """On the last step of a task, stay on the last step as an agent adds steps (F)."""

    def compose(self) -> ComposeResult:
        yield WorkspaceBar(id="workspace-bar")
        with Horizontal(id="top-row"):
            yield Pane(SessionsTable(id="sessions", now=self.app.now), title="Sessions", id="sessions-pane")
            yield Pane(TaskTree(id="tasks"), title="Tasks", id="tasks-pane")
        with Vertical(id="steps-row"):
            yield Pane(StepTimeline(id="steps"), Label("", id="step-totals"), title="Steps", id="steps-pane")
        yield CheckpointPanes(id="bottom-row", delay=self.SETTLE_DELAY)
        yield ListFilter(id="filter")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#sessions-pane").display = self.app.settings.get("sessions_pane", True)
        self.query_one(SessionsTable).focus()
        first, self._first = self._first, None
        if first is not None:
            self._sessions_loaded(first)
        else:
            self.query_one(SessionsTable).loading = True

    def opened(self, first: SessionsLoaded) -> None:
        """The newest sessions the opening read, come after this screen (an opening slower than
        MAIN_HOLD): shown now (at mount, if not mounted yet); the refresh that follows as the
        source is adopted reads only the sessions after them."""
        self._after = extent(first.part)
        if self.is_mounted:
            self._sessions_loaded(first)
        else:
            self._first = first

    # ================================================================== settling
    @property
    def busy(self) -> bool:
        """True while a pane is waiting to load or loading, or does not yet show the
        selection above it (tests and screenshots wait on it)."""
        if self.debounce.pending or self.bottom.debounce.pending or any(
                w.is_running or w.state.name == "PENDING" for w in self.workers):
            return True
        return not (self.settled or self._stalled)

    @property
    def settled(self) -> bool:
        """True when each pane shows what the one above it selects (task, steps, files)."""
        if self.session_id is None:  # nothing listed, or the first highlight waits for the frame
            return self._loaded_once and self.query_one(SessionsTable).current_record() is None
        tree = self.query_one(TaskTree)
        wanted = None if self.session_id == ORPHANS_KEY else self.session_id
        if tree.session_id != wanted and self.query_one(SessionsTable).current_record() is not None:
            return False
        task = tree.current_task()
        if task is not None and (task.id != self.task_id or self.query_one(StepTimeline).task_id != task.id):
            return False
        step = self.query_one(StepTimeline).current_record()
        return step is None or (self.step is not None and step.id == self.step.id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return main_keys.offered_here(self, action) and super().check_action(action, parameters)

    def focused_pane(self) -> str | None:
        return pane_name(self.focused)

    @property
    def bottom(self) -> CheckpointPanes:
        """The changed files and the diff."""
        return self.query_one(CheckpointPanes)

    def refresh_data(self) -> None:
        """Reload the sessions (and so everything below them), keeping the selection."""
        after, self._after = self._after, None
        if after is not None:  # the opening read the newest sessions (shown, or shown at mount): read the others
            self.load_sessions(after)
            return
        if self._loaded_once:
            jump.keep_selection(self)
        self._stalled = False
        self.load_sessions()

    def _first_paint(self) -> None:
        """Sessions and tasks drawn: what waited (header figures, other sessions) starts soon after."""
        if not self.app.first_paint.is_set():
            self.call_after_refresh(self.set_timer, pane_reads.FRAME_WRITE, self.app.first_paint.set)

    def worker_failed(self, worker: Worker) -> None:
        """The pane that waited says why (the notification named the failed read)."""
        super().worker_failed(worker)
        self._stalled = True
        self._first_paint()
        if worker.group in CHECKPOINT_GROUPS:
            self.bottom.failed(worker)
        elif worker.group in ("sessions", "tasks", "steps"):
            self.query_one(f"#{worker.group}-pane", Pane).failed(failure_reason(worker))

    # ================================================================== sessions
    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, description="load sessions")
    def load_sessions(self, after: SessionExtent | None = None) -> None:
        """The newest page (unless it was read: `after`), the rest once that page is drawn (reading
        on would slow it)."""
        if after is not None:
            self.app.first_paint.wait(pane_reads.FIRST_PAINT_WAIT)
        with self.app.reading() as source:
            for part in pane_reads.session_parts(source, after=after):
                if get_current_worker().is_cancelled:
                    return
                self.post_message(SessionsLoaded(*part))
                self.app.first_paint.wait(pane_reads.FIRST_PAINT_WAIT)

    @on(SessionsLoaded)
    def _sessions_loaded(self, event: SessionsLoaded) -> None:
        table = self.query_one(SessionsTable)
        table.loading = False
        self.query_one("#sessions-pane").border_subtitle = table.show_part(
            event.sessions, event.current_titles, event.orphan_count, event.offset, event.complete, self._loaded_once)
        self._loaded_once = True
        if event.complete:
            keep_out_of_collections()
        if event.offset:
            return
        if not table.records:
            from memtui.ui.screens.notice import no_sessions

            self._first_paint()
            self.app.push_screen(no_sessions(self.app.workspace))
            return
        if self.session_id is not None:  # a reload (at first, the table's own highlight asks: after the frame)
            self._session_highlighted()

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        record = self.query_one(SessionsTable).current_record()
        if record is None:
            return
        key: Id | str = ORPHANS_KEY if isinstance(record, OrphansRow) else record.id
        if key == self.session_id and event is not None:
            return  # already shown or loading: the table's own highlight of the same row
        self.session_id, self._stalled = key, False
        wanted = session_key(record)
        self.query_one("#tasks-pane", Pane).pending("orphans" if key == ORPHANS_KEY else f"session {key}", lambda: (
            key == self.session_id and not self._stalled and self.query_one(TaskTree).session_id != wanted[0]))
        self.debounce.soon("tasks", lambda: self.tasks_ahead.show_or_load(  # read ahead: memtui.ui.read_ahead
            wanted, self._tasks_loaded, lambda: self.load_tasks(wanted)))

    # ================================================================== tasks
    @work(thread=True, exclusive=True, group="tasks", exit_on_error=False, description="load tasks")
    def load_tasks(self, key: tuple[Id | None, Id | None]) -> None:
        """The session's tasks and the first page of steps of the task that will be selected
        (screens.main_reads: one read, one message, one frame)."""
        worker = get_current_worker()
        with self.app.reading() as source:
            loaded = read_tasks(source, key, self.keep.get("task"), lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(loaded)

    @on(TasksLoaded)
    def _tasks_loaded(self, event: TasksLoaded) -> None:
        wanted = None if self.session_id == ORPHANS_KEY else self.session_id
        if event.session_id != wanted:
            return
        tree, forest = self.query_one(TaskTree), event.forest
        self.query_one("#tasks-pane", Pane).show_title("orphans" if event.session_id is None else f"session {wanted}")
        tree.show_tasks(event.session_id, forest.tasks, forest.children, forest.roots, event.current_task_id,
                        forest.handed_from)
        self.query_one("#tasks-pane").border_subtitle = forest.count_line()
        self._first_paint()
        self.tasks_ahead.around(session_key(r) for r in self.query_one(SessionsTable).around_cursor())
        target = forest.target(event.current_task_id, self.keep.get("task"))
        if target is None:
            self._clear_steps()
            return
        if not tree.select_task(target):  # at once: the steps show without waiting for a frame
            tree.move_cursor_to_line(0)
        self._task_highlighted(first_steps=event.first_steps)

    @on(Tree.NodeHighlighted, "#tasks")
    def _task_highlighted(self, event: Tree.NodeHighlighted | None = None,
                          first_steps: StepsLoaded | None = None) -> None:
        task = self.query_one(TaskTree).current_task()
        if task is None or (task.id == self.task_id and event is not None):
            return
        self.task_id, self._stalled = task.id, False
        if first_steps is not None and first_steps.task_id == task.id:  # read with the tasks
            self.debounce.cancel("steps")
            self._steps_loaded(first_steps)
        else:  # the title changes with the steps (Pane.pending)
            self.query_one("#steps-pane", Pane).pending(task.title, lambda: task.id == self.task_id and not (
                self._stalled or self.query_one(StepTimeline).task_id == task.id))
            self.debounce.soon("steps", lambda: self.steps_ahead.show_or_load(
                task.id, self._steps_loaded, lambda: self.load_steps(task.id, 0, True)))

    def _clear_steps(self) -> None:
        self.task_id = None
        self.query_one(StepTimeline).show_steps(-1, [], 0)
        self.query_one("#step-totals", Label).update("")
        self.bottom.show_step(None)

    # ================================================================== steps
    @work(thread=True, exclusive=True, group="steps", exit_on_error=False, description="load steps")
    def load_steps(self, task_id: Id, offset: int, with_totals: bool) -> None:
        with self.app.reading() as source:
            steps, totals = pane_reads.step_page(source, task_id, offset, STEP_PAGE, with_totals)
        if not get_current_worker().is_cancelled:
            self.post_message(StepsLoaded(task_id, offset, steps, totals))

    @on(StepTimeline.NeedMore)
    def _more_steps(self, event: StepTimeline.NeedMore) -> None:
        self.load_steps(event.task_id, event.offset, False)

    @on(StepsLoaded)
    def _steps_loaded(self, event: StepsLoaded) -> None:
        if event.task_id != self.task_id:
            return
        timeline = self.query_one(StepTimeline)
        if event.offset == 0:
            task = self.query_one(TaskTree).current_task()
            if task is not None and task.id == event.task_id:  # the title changes with the steps
                self.query_one("#steps-pane", Pane).show_title(task.title)
            self._totals = event.totals
            timeline.show_steps(event.task_id, event.steps,
                                int(event.totals["steps"]) if event.totals else len(event.steps))
            self.step = None
            if self.keep.get("task") == event.task_id:
                del self.keep["task"]
                kept = self.keep.pop("step", None)
                if kept is not None:
                    self.keep["step_of"] = (event.task_id, kept)
                    jump.select_kept_step(self, timeline)
            self._step_highlighted()
            self.steps_ahead.around(task.id for task in self.query_one(TaskTree).around_cursor())
            if not event.steps:
                self.bottom.show_step(None)
        else:
            timeline.add_steps(event.task_id, event.offset, event.steps)
            jump.select_kept_step(self, timeline)
        self.query_one("#step-totals", Label).update(totals_line(self._totals, len(timeline.records)),
                                                     layout=False)
        shown = len(timeline.records)
        self.query_one("#steps-pane").border_subtitle = (
            f"{shown:,}/{timeline.total:,}" if timeline.total > shown else f"{timeline.total:,}")

    @on(DataTable.RowHighlighted, "#steps")
    def _step_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        step = self.query_one(StepTimeline).current_record()
        if step is None or (self.step is not None and step.id == self.step.id):
            return
        self.step, self._stalled = step, False
        self.bottom.show_step(step, self.query_one(StepTimeline).around_cursor())

    def show_task(self, task_id: Id, step_seq: int | None = None) -> None:
        """Select a task (a search hit, a link) and its step `step_seq` (screens.jump)."""
        jump.show_task(self, task_id, step_seq)

    # ================================================================== actions
    @on(DataTable.RowSelected, "#steps")
    def _step_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_step()

    @on(DataTable.RowSelected, "#sessions")
    @on(Tree.NodeSelected, "#tasks")
    def _opened(self, event: DataTable.RowSelected | Tree.NodeSelected) -> None:
        """Enter on a session goes to its tasks, on a task to its steps."""
        (self.query_one(TaskTree) if isinstance(event, DataTable.RowSelected) else self.query_one(StepTimeline)).focus()

    def action_open_step(self) -> None:
        """Open the step detail screen for the highlighted step."""
        jump.open_step_detail(self)

    def action_toggle_pin(self) -> None:
        """Pin the highlighted task (a GC root), or unpin it."""
        main_keys.toggle_pin(self)

    def action_export(self) -> None:
        """Export the highlighted session (from the sessions pane) or task (key x)."""
        jump.open_export(self)

    def action_resume(self) -> None:
        """Resume the highlighted session in its agent: Claude Code or Codex (key a)."""
        jump.resume_highlighted(self)

    def action_toggle_tail(self) -> None:
        """Follow a running task's new steps, like tail -f (again: stay where you are)."""
        main_keys.toggle_tail(self)

    def action_focus_pane(self, name: str) -> None:
        """Focus one pane by name (sessions, tasks, steps, files, diff)."""
        main_keys.focus_pane(self, name)

    def action_zoom(self) -> None:
        """Give the focused pane the whole screen (again: back to all panes)."""
        toggle_zoom(self)

    def action_toggle_sessions(self) -> None:
        """Hide the sessions pane so the tasks get the width (again: show it)."""
        main_keys.toggle_sessions(self)

    def action_rollback(self, whole_checkpoint: bool = False) -> None:
        """Roll back the selection: a file (or, `whole_checkpoint`, its step's checkpoint), a
        step's checkpoint, or a task with its sub-agents."""
        from memtui.ui.screens.rollback import rollback_selection

        rollback_selection(self, whole_checkpoint)

    def action_undo_rollback(self) -> None:
        """Undo the last rollback (it was recorded as a checkpoint)."""
        from memtui.ui.screens.rollback import undo_last_rollback

        undo_last_rollback(self)

    def action_filter(self) -> None:
        """Filter the focused list (sessions, tasks, steps or files) as you type."""
        main_keys.open_filter(self)

    def action_clear_filter(self) -> None:
        """Escape: close the filter box, else clear the focused list's filter, else leave a zoomed pane."""
        main_keys.clear_filter(self)

    def action_toggle_split(self) -> None:
        """Unified or side-by-side diff."""
        self.bottom.view_diff(self.bottom.diff.toggle_split)

    def action_next_hunk(self) -> None:
        """Scroll the diff to the next hunk."""
        self.bottom.view_diff(self.bottom.diff.next_hunk)

    def action_previous_hunk(self) -> None:
        """Scroll the diff to the previous hunk."""
        self.bottom.view_diff(self.bottom.diff.previous_hunk)

    def action_cycle_file_view(self) -> None:
        """Diff → whole file after → whole file before → diff."""
        self.bottom.view_diff(self.bottom.diff.cycle_mode)
