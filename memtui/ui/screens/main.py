"""The main screen: sessions · tasks (handoff tree) · step timeline · changed files · diff.

`MainScreen` lays the panes out, keeps them settled on the selection, jumps to a task (a
search hit, a link) and holds the actions. How each pane follows the one above it, each
load a thread worker, is its base `PaneLoading` (memtui.ui.screens.main_loading).
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Input, Label, Tree
from textual.worker import get_current_worker

from memtui.core.model import Id, StepInfo, TaskInfo
from memtui.ui.commands import bindings
from memtui.ui.screens.main_loading import PaneLoading
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.diff_pane import DiffPane
from memtui.ui.widgets.pane import Pane
from memtui.ui.widgets.sessions_table import ORPHANS_KEY, SessionsTable
from memtui.ui.widgets.step_timeline import STEP_PAGE, StepTimeline
from memtui.ui.widgets.task_tree import TaskTree
from memtui.ui.widgets.workspace_bar import WorkspaceBar

__all__ = ["PANE_WIDGETS", "MainScreen", "Pane"]


# pane name (used by `focus_pane`) → id of the focusable widget in it
PANE_WIDGETS = {"sessions": "sessions", "tasks": "tasks", "steps": "steps", "files": "files", "diff": "diff"}


class MainScreen(PaneLoading):
    """Browse sessions, tasks, steps and checkpoint diffs."""

    COMMAND_SCOPE = "main"
    BINDINGS = bindings("main")

    def __init__(self) -> None:
        super().__init__()
        self._filter_target: Widget | None = None

    def compose(self) -> ComposeResult:
        yield WorkspaceBar(id="workspace-bar")
        with Horizontal(id="top-row"):
            yield Pane(SessionsTable(id="sessions", now=self.app.now), title="Sessions", id="sessions-pane")
            yield Pane(TaskTree(id="tasks"), title="Tasks", id="tasks-pane")
        with Vertical(id="steps-row"):
            yield Pane(StepTimeline(id="steps"), Label("", id="step-totals"), title="Steps", id="steps-pane")
        with Horizontal(id="bottom-row"):
            yield Pane(CheckpointFiles(id="files"), title="Changed files", id="files-pane")
            yield Pane(DiffPane(id="diff"), title="Diff", id="diff-pane")
        yield Input(placeholder="filter…", id="filter")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SessionsTable).loading = True
        self.query_one(SessionsTable).focus()

    # ================================================================== settling
    @property
    def busy(self) -> bool:
        """True while a pane is waiting to load or loading, or does not yet show the
        selection above it (tests and screenshots wait on it)."""
        if self._pending_loads or any(w.is_running or w.state.name == "PENDING" for w in self.workers):
            return True
        return not self.settled

    @property
    def settled(self) -> bool:
        """True when each pane shows what the one above it selects: the tree's cursor is
        on the task whose steps are listed, and the files are those of the step."""
        if self.session_id is None:
            return self._loaded_once
        tree = self.query_one(TaskTree)
        wanted = None if self.session_id == ORPHANS_KEY else self.session_id
        if tree.session_id != wanted and self.query_one(SessionsTable).current_record() is not None:
            return False
        task = tree.current_task()
        if task is not None and (task.id != self.task_id or self.query_one(StepTimeline).task_id != task.id):
            return False
        step = self.query_one(StepTimeline).current_record()
        if step is not None and (self.step is None or step.id != self.step.id):
            return False
        return True

    def refresh_data(self) -> None:
        """Reload the sessions (and so everything below them), keeping the selection."""
        if self._loaded_once:
            entry = self.query_one(CheckpointFiles).current_record()
            self._keep = {"task": self.task_id, "step": None if self.step is None else self.step.id,
                          "entry": None if entry is None or self.step is None else (self.step.id, entry.id)}
            # Everything below the sessions reloads even where the cursor does not move.
            self.task_id = None
            self.step = None
            self.query_one(DiffPane).entry = None
        self.load_sessions()

    # ================================================================== jumping to a task
    def show_task(self, task_id: Id, step_seq: int | None = None) -> None:
        """Select a task (a search hit, a link): its session (or the Orphans row), the task in
        the tree and, given `step_seq`, its step with that sequence number."""
        self.locate_task(task_id, step_seq)

    @work(thread=True, exclusive=True, group="locate", exit_on_error=False, description="find the task")
    def locate_task(self, task_id: Id, step_seq: int | None) -> None:
        """Look up the task's session and the id of the step `step_seq` (paging through steps)."""
        worker = get_current_worker()
        step_id: Id | None = None
        with self.app.reading() as source:
            task = source.task(task_id)
            offset = 0
            while step_seq is not None and step_id is None and not worker.is_cancelled:
                page = list(source.steps(task_id, offset, STEP_PAGE))
                step_id = next((s.id for s in page if s.seq == step_seq), None)
                if len(page) < STEP_PAGE:
                    break
                offset += len(page)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._go_to, task, step_id)

    def _go_to(self, task: TaskInfo, step_id: Id | None) -> None:
        sessions = self.query_one(SessionsTable)
        key = ORPHANS_KEY if task.session_id is None else str(task.session_id)
        if not sessions.select_key(key):
            sessions.apply_filter("")  # the session may be filtered out
            self.query_one("#sessions-pane").remove_class("-filtered")
            if not sessions.select_key(key):
                self.notify(f"Task #{task.id} is in no listed session.", markup=False)
                return
        tree = self.query_one(TaskTree)
        self._keep = {"task": task.id, "step": step_id}
        wanted = None if key == ORPHANS_KEY else task.session_id
        if self.session_id == (ORPHANS_KEY if wanted is None else wanted) and tree.session_id == wanted:
            # The session is shown already: move within it.
            if tree.filter_text and not tree.select_task(task.id):
                tree.apply_filter("")
            if self.task_id == task.id:
                del self._keep["task"]
                self._keep.pop("step", None)
                if step_id is not None:
                    self._keep["step_of"] = (task.id, step_id)
                    self._select_kept_step(self.query_one(StepTimeline))
            else:
                tree.select_task(task.id)
        self.query_one(StepTimeline if step_id is not None else TaskTree).focus()

    # ================================================================== actions
    @on(DataTable.RowSelected, "#steps")
    def _step_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_step()

    @on(DataTable.RowSelected, "#sessions")
    def _session_selected(self, event: DataTable.RowSelected) -> None:
        self.query_one(TaskTree).focus()

    @on(Tree.NodeSelected, "#tasks")
    def _task_selected(self, event: Tree.NodeSelected) -> None:
        self.query_one(StepTimeline).focus()

    @on(DataTable.RowSelected, "#files")
    def _file_selected(self, event: DataTable.RowSelected) -> None:
        self.query_one(DiffPane).focus()

    def action_open_step(self) -> None:
        """Open the step detail screen for the highlighted step."""
        step = self.query_one(StepTimeline).current_record()
        if step is None:
            self.notify("No step selected.", severity="warning")
            return
        from memtui.ui.screens.step_detail import StepDetailScreen

        self.app.push_screen(StepDetailScreen(step), lambda result: self._detail_closed(step, result))

    def _detail_closed(self, step: StepInfo, result: str | None) -> None:
        """Back from the step detail: on "files", that step's changed files and diff."""
        if result != "files":
            return
        timeline = self.query_one(StepTimeline)
        if timeline.task_id == step.task_id:
            timeline.select_key(str(step.id))
        self.action_focus_pane("files")

    def action_toggle_pin(self) -> None:
        """Pin the highlighted task (a GC root), or unpin it."""
        task = self.query_one(TaskTree).current_task()
        store = getattr(self.app, "store", None)
        if task is None or store is None:
            self.notify("Select a task of memtui's own store to pin.", markup=False)
            return
        self.write_pin(task.id, not task.pinned)

    @work(thread=True, exclusive=True, group="pin", exit_on_error=False, description="pin the task")
    def write_pin(self, task_id: Id, pinned: bool) -> None:
        from memtui.ui.screens.gc import set_pinned

        set_pinned(self.app.store, task_id, pinned)
        self.app.call_from_thread(self._pinned, task_id, pinned)

    def _pinned(self, task_id: Id, pinned: bool) -> None:
        self.notify(f"Task #{task_id} {'pinned: GC keeps it' if pinned else 'unpinned'}.", markup=False)
        self.app.reopen_source()

    def action_focus_pane(self, name: str) -> None:
        """Focus one pane by name (sessions, tasks, steps, files, diff)."""
        widget_id = PANE_WIDGETS.get(name)
        if widget_id:
            if self.maximized is not None:
                self.minimize()
            self.query_one(f"#{widget_id}").focus()

    def action_zoom(self) -> None:
        """Give the focused pane the whole screen (again: back to all panes)."""
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused
        pane = next((a for a in (focused.ancestors_with_self if focused else []) if isinstance(a, Pane)), None)
        if pane is not None:
            self.maximize(pane, container=False)

    def action_toggle_sessions(self) -> None:
        """Hide the sessions pane so the tasks get the width (again: show it)."""
        pane = self.query_one("#sessions-pane")
        pane.display = not pane.display
        if not pane.display and self.focused is self.query_one(SessionsTable):
            self.query_one(TaskTree).focus()

    # ---- rollback (memtui.ui.screens.rollback)
    def action_rollback(self) -> None:
        """Roll back the selection: a file, a step's checkpoint, or a task with its sub-agents."""
        from memtui.ui.screens.rollback import rollback_selection

        rollback_selection(self)

    def action_rollback_checkpoint(self) -> None:
        """Roll back the whole checkpoint of the selected step."""
        from memtui.ui.screens.rollback import rollback_selection

        rollback_selection(self, whole_checkpoint=True)

    def action_undo_rollback(self) -> None:
        """Undo the last rollback (it was recorded as a checkpoint)."""
        from memtui.ui.screens.rollback import undo_last_rollback

        undo_last_rollback(self)

    # ---- filter
    def _filter_targets(self) -> list[Widget]:
        return [self.query_one(SessionsTable), self.query_one(TaskTree),
                self.query_one(StepTimeline), self.query_one(CheckpointFiles)]

    def action_filter(self) -> None:
        """Filter the focused list (sessions, tasks, steps or files) as you type."""
        focused = self.focused
        targets = self._filter_targets()
        if focused not in targets:
            focused = self._filter_target if self._filter_target in targets else targets[0]
        self._filter_target = focused
        box = self.query_one("#filter", Input)
        pane = next(a for a in focused.ancestors if isinstance(a, Pane))
        box.placeholder = f"filter {pane.label.lower()}…"
        box.value = getattr(focused, "filter_text", "")
        box.add_class("-active")
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        target = self._filter_target
        if target is None:
            return
        target.apply_filter(event.value)  # type: ignore[attr-defined]
        pane = next(a for a in target.ancestors if isinstance(a, Pane))
        pane.set_class(bool(event.value), "-filtered")

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self._close_filter()

    def _close_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.remove_class("-active")
        if self._filter_target is not None:
            self._filter_target.focus()

    def action_clear_filter(self) -> None:
        """Escape: clear the focused list's filter, else leave a zoomed pane."""
        box = self.query_one("#filter", Input)
        if box.has_class("-active"):
            box.value = ""
            self._close_filter()
            return
        focused = self.focused
        if focused in self._filter_targets() and getattr(focused, "filter_text", ""):
            self._filter_target = focused
            focused.apply_filter("")  # type: ignore[attr-defined]
            next(a for a in focused.ancestors if isinstance(a, Pane)).remove_class("-filtered")
            return
        if self.maximized is not None:
            self.minimize()

    # ---- diff pane
    def action_toggle_split(self) -> None:
        """Unified or side-by-side diff."""
        self.query_one(DiffPane).toggle_split()
        self._diff_subtitle()

    def action_next_hunk(self) -> None:
        """Scroll the diff to the next hunk."""
        self.query_one(DiffPane).next_hunk()
        self._diff_subtitle()

    def action_previous_hunk(self) -> None:
        """Scroll the diff to the previous hunk."""
        self.query_one(DiffPane).previous_hunk()
        self._diff_subtitle()

    def action_cycle_file_view(self) -> None:
        """Diff → whole file after → whole file before → diff."""
        self.query_one(DiffPane).cycle_mode()
        self._diff_subtitle()
