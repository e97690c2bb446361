"""The main screen's panes following the selection, each loading in a thread worker.

Selection flows left to right and top to bottom: highlighting a session loads its task
tree, a task its steps, a step the files of the checkpoint it made, a file its diff. Each
load is a thread worker (one exclusive group per pane, so a newer request cancels an
older one); results come back as messages from memtui.ui.messages and are dropped when
the user has moved on. `PaneLoading` is the base of `MainScreen` (memtui.ui.screens.main),
which lays the panes out and adds jumping to a task and the actions.
"""

from __future__ import annotations

from time import monotonic
from typing import Any, Callable

from rich.text import Text
from textual import on, work
from textual.timer import Timer
from textual.widgets import DataTable, Label, Tree
from textual.worker import Worker, WorkerState, get_current_worker

from memtui.core.diff import diff_stats
from memtui.core.model import Id, SessionInfo, StepInfo, TaskInfo
from memtui.core.sources.base import ContentUnknown
from memtui.ui.messages import (
    EntriesLoaded,
    EntryContentLoaded,
    SessionsLoaded,
    StepsLoaded,
    TasksLoaded,
)
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.sources import partial_entry_shown
from memtui.ui.text import safe_text
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.diff_pane import DiffPane
from memtui.ui.widgets.pane import Pane
from memtui.ui.widgets.sessions_table import ORPHANS_KEY, OrphansRow, SessionsTable
from memtui.ui.widgets.step_timeline import STEP_PAGE, StepTimeline, totals_line
from memtui.ui.widgets.task_tree import TaskTree


class PaneLoading(MemtuiScreen[None]):
    """Sessions → tasks → steps → changed files → diff, each pane loaded for the one above."""

    SETTLE_DELAY = 0.12
    """Seconds of quiet before a pane follows a cursor that keeps moving (key held down)."""

    def __init__(self) -> None:
        super().__init__()
        self.session_id: Id | None | str = None
        """The highlighted session (ORPHANS_KEY for the orphans pseudo-session)."""
        self.task_id: Id | None = None
        self.step: StepInfo | None = None
        self._loaded_once = False
        self._pending_loads: dict[str, Timer] = {}
        self._keep: dict[str, Any] = {}
        """What was selected before `refresh_data`: reselected as the panes reload."""
        self._last_request: dict[str, float] = {}

    def _soon(self, name: str, load: Callable[[], None]) -> None:
        """Run `load` now if the cursor was still, else once it stops moving (one per pane)."""
        now = monotonic()
        moving = now - self._last_request.get(name, 0.0) < self.SETTLE_DELAY
        self._last_request[name] = now
        timer = self._pending_loads.pop(name, None)
        if timer is not None:
            timer.stop()
        if not moving:
            load()
            return

        def fire() -> None:
            self._pending_loads.pop(name, None)
            load()

        self._pending_loads[name] = self.set_timer(self.SETTLE_DELAY, fire)
    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, description="load sessions")
    def load_sessions(self) -> None:
        with self.app.reading() as source:
            sessions = list(source.sessions())
            current_ids = [s.current_task_id for s in sessions if s.current_task_id is not None]
            titles: dict[Id, str] = {}
            by_id = getattr(source, "tasks_by_id", None)
            for start in range(0, len(current_ids), 500):
                chunk = current_ids[start:start + 500]
                found = by_id(chunk) if by_id else [source.task(i) for i in chunk]
                titles.update((t.id, t.title) for t in found)
            orphans = len(source.tasks(None))
        if not get_current_worker().is_cancelled:
            self.post_message(SessionsLoaded(sessions, titles, orphans))

    @on(SessionsLoaded)
    def _sessions_loaded(self, event: SessionsLoaded) -> None:
        table = self.query_one(SessionsTable)
        table.loading = False
        table.current_titles = event.current_titles
        records: list[SessionInfo | OrphansRow] = list(event.sessions)
        if event.orphan_count:
            records.append(OrphansRow(event.orphan_count))
        table.set_records(records, keep_cursor=self._loaded_once)
        self._loaded_once = True
        pane = self.query_one("#sessions-pane")
        pane.border_subtitle = f"{len(event.sessions)}" + (f" + {event.orphan_count} orphans"
                                                             if event.orphan_count else "")
        if not records:
            self._show_empty()
            return
        self._session_highlighted()

    def _show_empty(self) -> None:
        from memtui.ui.screens.notice import NoticeScreen

        where = getattr(self.app, "workspace", None)
        self.app.push_screen(NoticeScreen(
            "This workspace has no sessions yet",
            f"{where}: the store is there, but no agent has recorded anything in it.",
            "See what memtui shows with a demo workspace:  memtui demo"))

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        record = self.query_one(SessionsTable).current_record()
        if record is None:
            return
        key: Id | str = ORPHANS_KEY if isinstance(record, OrphansRow) else record.id
        if key == self.session_id and event is not None:
            return  # already shown or loading: the table's own highlight of the same row
        self.session_id = key
        self.query_one("#tasks-pane", Pane).show_title("orphans" if key == ORPHANS_KEY else f"session {key}")
        current = None if isinstance(record, OrphansRow) else record.current_task_id
        self._soon("tasks", lambda: self.load_tasks(None if key == ORPHANS_KEY else key, current))

    @work(thread=True, exclusive=True, group="tasks", exit_on_error=False, description="load tasks")
    def load_tasks(self, session_id: Id | None, current_task_id: Id | None) -> None:
        worker = get_current_worker()
        with self.app.reading() as source:
            tasks = list(source.tasks(session_id))
            by_id: dict[Id, TaskInfo] = {t.id: t for t in tasks}
            children: dict[Id, list[TaskInfo]] = {}
            parent_of: dict[Id, Id] = {}
            queue = list(tasks)
            while queue and not worker.is_cancelled:
                task = queue.pop(0)
                for ref in source.references(task.id):
                    if ref.kind != "handoff" or ref.from_task != task.id or ref.to_task in parent_of:
                        continue
                    child = by_id.get(ref.to_task)
                    if child is None:
                        try:
                            child = source.task(ref.to_task)
                        except KeyError:
                            continue  # a dangling reference: nothing to show
                        by_id[child.id] = child
                        queue.append(child)
                    children.setdefault(task.id, []).append(child)
                    parent_of[child.id] = task.id
            roots = [t.id for t in tasks if t.id not in parent_of]
            if not roots and tasks:  # a handoff cycle inside the session: show every task at the top
                roots = [t.id for t in tasks]
            # A sub-agent session's task was handed off from a task elsewhere: say from where.
            handed_from: dict[Id, Id] = {}
            for root in roots:
                for ref in source.references(root):
                    if ref.kind == "handoff" and ref.to_task == root and ref.from_task not in by_id:
                        handed_from[root] = ref.from_task
        for kids in children.values():
            kids.sort(key=lambda t: str(t.id) if isinstance(t.id, str) else f"{t.id:012d}")
        if not worker.is_cancelled:
            self.post_message(TasksLoaded(session_id, tasks, children, roots, current_task_id, handed_from))

    @on(TasksLoaded)
    def _tasks_loaded(self, event: TasksLoaded) -> None:
        wanted = None if self.session_id == ORPHANS_KEY else self.session_id
        if event.session_id != wanted:
            return
        tree = self.query_one(TaskTree)
        tree.show_tasks(event.session_id, event.tasks, event.children, event.roots, event.current_task_id,
                        event.handed_from)
        own = {t.id for t in event.tasks}
        elsewhere = {k.id for kids in event.children.values() for k in kids} - own
        # Sub-agent tasks of other sessions nest here too: count them apart.
        self.query_one("#tasks-pane").border_subtitle = f"{len(own)}" + (
            f" + {len(elsewhere)} from other sessions" if elsewhere else "")
        target = event.current_task_id if event.current_task_id is not None else (
            event.roots[0] if event.roots else None)
        kept = self._keep.get("task")
        if kept is not None and (any(t.id == kept for t in event.tasks) or any(
                kept in [k.id for k in kids] for kids in event.children.values())):
            target = kept
        if target is None:
            self._clear_steps()
            return

        def select() -> None:
            if not tree.select_task(target):
                tree.move_cursor_to_line(0)
            self._task_highlighted()

        self.call_after_refresh(select)

    @on(Tree.NodeHighlighted, "#tasks")
    def _task_highlighted(self, event: Tree.NodeHighlighted | None = None) -> None:
        task = self.query_one(TaskTree).current_task()
        if task is None or (task.id == self.task_id and event is not None):
            return
        self.task_id = task.id
        self.query_one("#steps-pane", Pane).show_title(task.title)
        self.query_one("#steps-pane").border_subtitle = "loading…"
        self._soon("steps", lambda: self.load_steps(task.id, 0, True))

    def _clear_steps(self) -> None:
        self.task_id = None
        self.query_one(StepTimeline).show_steps(-1, [], 0)
        self.query_one("#step-totals", Label).update("")
        self._show_entries_for(None)

    @work(thread=True, exclusive=True, group="steps", exit_on_error=False, description="load steps")
    def load_steps(self, task_id: Id, offset: int, with_totals: bool) -> None:
        with self.app.reading() as source:
            steps = list(source.steps(task_id, offset, STEP_PAGE))
            totals = None
            if with_totals:
                step_totals = getattr(source, "step_totals", None)
                if step_totals is not None:
                    totals = step_totals(task_id)
                else:
                    totals = {"steps": source.task(task_id).step_count,
                              "tokens_in": sum(s.tokens_in for s in steps),
                              "tokens_out": sum(s.tokens_out for s in steps),
                              "cost": sum(s.cost for s in steps),
                              "duration_ms": sum(s.duration_ms for s in steps)}
        if not get_current_worker().is_cancelled:
            self.post_message(StepsLoaded(task_id, offset, steps, totals))

    @on(StepTimeline.NeedMore)
    def _more_steps(self, event: StepTimeline.NeedMore) -> None:
        self.load_more_steps(event.task_id, event.offset)

    @work(thread=True, exclusive=True, group="steps-more", exit_on_error=False, description="load more steps")
    def load_more_steps(self, task_id: Id, offset: int) -> None:
        with self.app.reading() as source:
            steps = list(source.steps(task_id, offset, STEP_PAGE))
        if not get_current_worker().is_cancelled:
            self.post_message(StepsLoaded(task_id, offset, steps, None))

    @on(StepsLoaded)
    def _steps_loaded(self, event: StepsLoaded) -> None:
        if event.task_id != self.task_id:
            return
        timeline = self.query_one(StepTimeline)
        if event.offset == 0:
            total = int(event.totals["steps"]) if event.totals else len(event.steps)
            self._totals = event.totals
            timeline.show_steps(event.task_id, event.steps, total)
            self.step = None
            if self._keep.get("task") == event.task_id:
                del self._keep["task"]
                kept = self._keep.pop("step", None)
                if kept is not None:
                    self._keep["step_of"] = (event.task_id, kept)
                    self._select_kept_step(timeline)
            self._step_highlighted()
            if not event.steps:
                self._show_entries_for(None)
        else:
            timeline.add_steps(event.task_id, event.offset, event.steps)
            self._select_kept_step(timeline)
        self.query_one("#step-totals", Label).update(
            totals_line(getattr(self, "_totals", None), len(timeline.records)), layout=False)
        self.query_one("#steps-pane").border_subtitle = (
            f"{len(timeline.records)}/{timeline.total}" if timeline.total > len(timeline.records)
            else f"{timeline.total}")

    def _select_kept_step(self, timeline: StepTimeline) -> None:
        """Select the step kept for this task (`show_task`, `refresh_data`), fetching further
        pages of steps until it is loaded."""
        kept = self._keep.get("step_of")
        if kept is None or kept[0] != timeline.task_id:
            return
        if timeline.select_key(str(kept[1])) or not timeline.more_available():
            del self._keep["step_of"]
        else:
            timeline.request_more()

    @on(DataTable.RowHighlighted, "#steps")
    def _step_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        step = self.query_one(StepTimeline).current_record()
        if step is None or (self.step is not None and step.id == self.step.id):
            return
        self.step = step
        self._show_entries_for(step)

    def _show_entries_for(self, step: StepInfo | None) -> None:
        files = self.query_one(CheckpointFiles)
        pane = self.query_one("#files-pane", Pane)
        diff = self.query_one(DiffPane)
        if step is None or step.checkpoint_id is None:
            self.workers.cancel_group(self, "entries")
            files.show_entries([], {})
            pane.show_title()
            pane.border_subtitle = ""
            diff.show_message(Text("This step changed no files." if step is not None else "No step selected."))
            self.query_one("#diff-pane", Pane).show_title()
            self.query_one("#diff-pane").border_subtitle = ""
            return
        pane.show_title(f"checkpoint {step.checkpoint_id}")
        pane.border_subtitle = "loading…"
        self._soon("entries", lambda: self.load_entries(step.id, step.checkpoint_id))

    @work(thread=True, exclusive=True, group="entries", exit_on_error=False, description="load checkpoint files")
    def load_entries(self, step_id: Id, checkpoint_id: Id) -> None:
        worker = get_current_worker()
        with self.app.reading() as source:
            entries = list(source.checkpoint_entries(checkpoint_id))
            checkpoint = source.checkpoint(checkpoint_id) if hasattr(source, "checkpoint") else None
            if worker.is_cancelled:
                return
            self.post_message(EntriesLoaded(step_id, checkpoint, entries, {}))
            stats = {}
            for entry in entries:
                if worker.is_cancelled:
                    return
                try:
                    before, after = source.read_entry(entry.id)
                except Exception:  # shown per file when the user opens it; the store's own hunk counts, if any
                    stats[entry.id] = getattr(entry, "line_counts", None)
                    continue
                counted = diff_stats(before, after)  # None for binary/undecodable content
                stats[entry.id] = None if counted is None else (counted.added, counted.removed)
        if not worker.is_cancelled:
            self.post_message(EntriesLoaded(step_id, checkpoint, entries, stats))

    @on(EntriesLoaded)
    def _entries_loaded(self, event: EntriesLoaded) -> None:
        if self.step is None or event.step_id != self.step.id:
            return
        files = self.query_one(CheckpointFiles)
        if event.stats and [r.id for r in files.records] == [e.id for e in event.entries]:
            files.update_stats(event.stats)
            return
        files.show_entries(event.entries, event.stats)
        kept = self._keep.get("entry")
        if kept is not None and kept[0] == event.step_id:
            del self._keep["entry"]
            files.select_key(str(kept[1]))
        count = len(event.entries)
        self.query_one("#files-pane").border_subtitle = f"{count} file{'s' if count != 1 else ''}"
        if not event.entries:
            self.query_one(DiffPane).show_message(Text("This checkpoint holds no files."))
        else:
            self._file_highlighted()

    @on(DataTable.RowHighlighted, "#files")
    def _file_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        entry = self.query_one(CheckpointFiles).current_record()
        if entry is None:
            return
        diff = self.query_one(DiffPane)
        if diff.entry is not None and diff.entry.id == entry.id:
            return
        diff.begin(entry)
        self.query_one("#diff-pane", Pane).show_title()
        self._soon("diff", lambda: self.load_entry_content(entry))

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False, description="read file contents")
    def load_entry_content(self, entry: Any) -> None:
        with self.app.reading() as source:
            try:
                before, after = source.read_entry(entry.id)
            except ContentUnknown:  # another agent's store lacks a side: the pane says so
                before, after = None, None
        prepared = DiffPane.prepare(entry.path, before, after)
        if not get_current_worker().is_cancelled:
            self.post_message(EntryContentLoaded(entry, before, after, prepared))

    @on(EntryContentLoaded)
    def _content_loaded(self, event: EntryContentLoaded) -> None:
        diff = self.query_one(DiffPane)
        if diff.entry is None or diff.entry.id != event.entry.id:
            return
        if not partial_entry_shown(diff, event.entry):  # another agent's store may lack a side
            diff.show_content(event.entry, event.before, event.after, event.prepared)
        self.query_one("#diff-pane", Pane).show_title(event.entry.path)
        self._diff_subtitle()

    def _diff_subtitle(self) -> None:
        """"unified · hunk 1/3" under the diff."""
        diff = self.query_one(DiffPane)
        self.query_one("#diff-pane").border_subtitle = diff.describe()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Failures are notified by the app; the pane that waited says so too."""
        super().on_worker_state_changed(event)
        if event.state != WorkerState.ERROR:
            return
        reason = str(event.worker.error) or type(event.worker.error).__name__
        if event.worker.group == "diff":
            self.query_one(DiffPane).show_message(safe_text(f"Cannot show this file: {reason}"))
        elif event.worker.group == "entries":
            self.query_one("#files-pane", Pane).border_subtitle = "unreadable"
        elif event.worker.group in ("steps", "tasks"):
            self.query_one(f"#{event.worker.group}-pane", Pane).border_subtitle = "unreadable"
