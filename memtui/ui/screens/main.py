"""The main screen: sessions · tasks (handoff tree) · step timeline · changed files · diff.

A session loads its task tree, a task its steps, a step its checkpoint's files, a file its diff:
each a thread worker (one group per pane) reading through ui.pane_reads. The bottom row (files
and diff) is a widget of its own (widgets.checkpoint_panes).

One concern, so one module past 400 lines: the screen's panes and how each follows the one
above, what is kept across a reload or a jump, and what its keys do with the selection.

A search hit or a link names a task (and maybe a step by its number): the screen selects its
session (or the Orphans row), the task in the tree and the step, paging through the steps as
needed; the lookup is a worker of the screen. Enter on a step opens its detail; `c` there
comes back on the step's changed files.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Label, Tree
from textual.worker import Worker, get_current_worker

from memtui.core.memory_source import Capability
from memtui.core.model import Id, StepInfo, TaskInfo
from memtui.ui import pane_reads
from memtui.ui.commands import COMMANDS, bindings
from memtui.ui.debounce import Debounce
from memtui.ui.collector import keep_out_of_collections
from memtui.ui.messages import SessionCostsLoaded, SessionsLoaded, SessionsSoFar, StepsLoaded, TasksLoaded
from memtui.ui.pane_reads import SessionExtent, extent
from memtui.ui.read_ahead import ReadAhead
from memtui.ui.screens.base import MemtuiScreen
from memtui.ui.screens.main_reads import read_steps, read_tasks, session_key
from memtui.ui.widgets.checkpoint_panes import GROUPS as CHECKPOINT_GROUPS
from memtui.ui.widgets.checkpoint_panes import CheckpointPanes
from memtui.ui.settings import remember
from memtui.ui.text import relative_time
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.key_footer import KeyFooter
from memtui.ui.widgets.list_filter import ListFilter, show_count
from memtui.ui.widgets.pane import Pane, focus_now, pane_name, toggle_zoom
from memtui.ui.widgets.sessions_table import ORPHANS_KEY, OrphansRow, SessionsTable
from memtui.ui.widgets.step_timeline import STEP_PAGE, StepTimeline, totals_line
from memtui.ui.widgets.task_tree import TaskTree
from memtui.ui.widgets.workspace_bar import WorkspaceBar
from memtui.ui.workers import failure_reason

PANES = ("sessions", "tasks", "steps", "files", "diff")
"""The panes `action_focus_pane` knows; each one's focusable widget has the pane's name as its id."""
DIFF_ACTIONS = frozenset(c.action for c in COMMANDS if c.scope == "main" and c.needs is Capability.DIFF)
"""The keys that act on a file's diff (v ] [ f): the main screen's commands that need DIFF."""
LAST = object()
"""A kept step meaning "the task's last step" (tail)."""


NO_SESSION_MATCHES = "no session matches the filter"
"""What the tasks and steps panes say while the sessions filter matches none."""
NO_TASK_MATCHES = "no task matches the filter"
"""What the steps pane says while the tasks filter matches none."""


class MainScreen(MemtuiScreen[None]):
    """Browse sessions, tasks, steps and checkpoint diffs."""

    COMMAND_SCOPE = "main"
    BINDINGS = bindings("main")

    SETTLE_DELAY = 0.12
    """Seconds of quiet before a pane follows a cursor that keeps moving (key held down)."""

    def __init__(self, first: SessionsLoaded | None = None, fit: tuple[int, int, int] | None = None) -> None:
        super().__init__()
        self._first = first
        """The newest sessions the opening read: the first frame shows them (dropped once shown)."""
        self._fit = fit
        """(terminal columns, rows, the sessions table's row width) as an earlier run drew a kept
        page: at that terminal size the first frame draws the rows fitted to that width."""
        self._after: SessionExtent | None = extent(first.part) if first is not None and first.kept_at is None else None
        """Where the sessions the opening read end: the adopting refresh reads on from there."""
        self._kept: str | None = None
        """The sessions pane's line while it shows the page an earlier run listed (memtui.ui.kept_page)."""
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
        self._so_far: object = None
        """The sessions indexed so far last listed (while the index is built from nothing)."""
        self.tail: bool = self.app.settings.get("tail", True)
        """On the last step of a task, stay on the last step as an agent adds steps (F)."""

    def compose(self) -> ComposeResult:
        yield WorkspaceBar(id="workspace-bar")
        with Horizontal(id="top-row"):
            sessions = SessionsTable(id="sessions", now=self.app.now)
            sessions.show_origin(self._origin())
            yield Pane(sessions, title="Sessions", id="sessions-pane")
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
        fit, self._fit = self._fit, None
        if fit is not None and fit[:2] == (self.app.size.width, self.app.size.height):
            self.query_one(SessionsTable).expect_width(fit[2])
        if first is not None:
            self._sessions_loaded(first)
        else:
            self.query_one(SessionsTable).loading = True
            self.show_indexing()

    def show_indexing(self) -> None:
        """While the sessions wait for the index of an agent's home being built, the pane counts
        the transcripts read and lists the sessions read so far; over a kept page (an index built
        anew behind it), the pane counts them after the page's line."""
        if not self.query(SessionsTable):
            return  # (not composed yet: asked again at mount)
        indexing = self.app.indexing  # type: ignore[attr-defined]  (MemtuiApp)
        if self._kept is not None and indexing is not None:
            self.query_one("#sessions-pane").border_subtitle = (
                f"{self._kept} · indexing {indexing[0]:,}/{indexing[1]:,} transcripts")
        if self._loaded_once:
            return
        self._count_indexed()
        source = self.app.indexed  # type: ignore[attr-defined]  (MemtuiApp)
        if source is not None:
            self.load_sessions_so_far(source)

    def _count_indexed(self) -> None:
        indexing = self.app.indexing  # type: ignore[attr-defined]  (MemtuiApp)
        table = self.query_one(SessionsTable)
        listed = f"{len(table.records):,}…" if table.records else ""
        if indexing is not None:
            self.query_one("#sessions-pane").border_subtitle = (
                f"{listed} · " if listed else "") + f"indexing {indexing[0]:,}/{indexing[1]:,} transcripts"
        elif listed:  # every transcript read: the index is being put in place
            self.query_one("#sessions-pane").border_subtitle = listed

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
        # The diff's keys are not offered while the diff pane shows no file's diff ("This step
        # changed no files", a file the store kept no contents of): they would only ring the bell.
        if action in DIFF_ACTIONS and self.bottom.diff.entry is None:
            return False
        return super().check_action(action, parameters)

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
            self._keep_selection()
        self._stalled = False
        self.load_sessions()

    def _first_paint(self) -> None:
        """Sessions and tasks drawn: what waited (header figures, other sessions) starts soon after."""
        if not self.app.first_paint.is_set():
            self.call_after_refresh(self.set_timer, pane_reads.FRAME_WRITE, self._painted)

    def _painted(self) -> None:
        """The first frame of sessions is on the terminal: what waited for it starts, and how
        wide the sessions table is at this terminal size is noted (kept with the page)."""
        width = self.query_one(SessionsTable).scrollable_content_region.width
        if width > 0:
            self.app.sessions_fit = (self.app.size.width, self.app.size.height, width)  # type: ignore[attr-defined]
        self.app.first_paint.set()

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

    @work(thread=True, exclusive=True, group="sessions-so-far", exit_on_error=False,
          description="list the sessions indexed so far")
    def load_sessions_so_far(self, source: Any) -> None:
        """The sessions of the transcripts indexed so far, when more than the pane lists."""
        sessions = source.sessions_so_far()
        if sessions is not None and sessions is not self._so_far and not get_current_worker().is_cancelled:
            self.post_message(SessionsSoFar(sessions))

    @on(SessionsSoFar)
    def _sessions_so_far(self, event: SessionsSoFar) -> None:
        if self._loaded_once:
            return  # the whole index is listed already
        self._so_far = event.sessions
        table = self.query_one(SessionsTable)
        table.loading = False
        table.show_part(list(event.sessions), {}, 0, 0, complete=False, keep_cursor=self._cursor_moved(table))
        self._count_indexed()

    @staticmethod
    def _cursor_moved(table: SessionsTable) -> bool:
        """Whether the user moved off the newest session while the list fills (a cold build): the
        cursor then stays on their session; else on the newest, at the top, as the list grows."""
        return table.cursor_row > 0

    def _origin(self) -> bool:
        """Whether the open source's sessions name the machine they came from (a team store)."""
        return self.app.source is not None and self.app.source.can(Capability.ORIGIN)

    @on(SessionsLoaded)
    def _sessions_loaded(self, event: SessionsLoaded) -> None:
        table = self.query_one(SessionsTable)
        table.loading = False
        if not event.offset:
            table.show_origin(self._origin() if event.origin is None else event.origin)
        so_far = not self._loaded_once and self._so_far is not None  # the sessions indexed so far are listed
        line = table.show_part(
            event.sessions, event.current_titles, event.orphan_count, event.offset, event.complete,
            self._loaded_once or (so_far and self._cursor_moved(table)))
        self._loaded_once = True
        was_kept, self._kept = self._kept is not None, None
        if event.kept_at is not None:  # listed by the last run: said so until the opening's page replaces it
            self._kept = f"{line} · as of {relative_time(datetime.fromtimestamp(event.kept_at, timezone.utc), self.app.now())}"
            self.query_one("#sessions-pane").border_subtitle = f"{self._kept}; checking…"
            self._first_paint()
            return
        self.query_one("#sessions-pane").border_subtitle = line
        self.load_costs(event.sessions, event.complete and event.orphan_count > 0)
        if event.complete:
            keep_out_of_collections()
        if event.offset:
            return
        if not table.records:
            from memtui.ui.screens.notice import no_sessions

            self._first_paint()
            self.app.push_screen(no_sessions(self.app.workspace))
            return
        if self.session_id is not None or so_far:  # a reload (at first, the table's own highlight asks: after the frame)
            self._session_highlighted()
        elif was_kept:  # the highlight came while the store was opening: once it is adopted (after this)
            self.call_later(self._session_highlighted)

    @work(thread=True, group="costs", exit_on_error=False, description="price the sessions")
    def load_costs(self, sessions: list, orphans: bool) -> None:
        """Each listed session's cost (memtui.core.usage), after the first paint."""
        from memtui.core.usage import cost_text, session_costs

        self.app.first_paint.wait(pane_reads.FIRST_PAINT_WAIT)
        worker = get_current_worker()
        with self.app.reading() as source:
            groups = session_costs(source, [*sessions, *([None] if orphans else [])],
                                   cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(SessionCostsLoaded({ORPHANS_KEY if key is None else str(key): cost_text(g.cost, g.unpriced)
                                                  for key, g in groups.items()}))

    @on(SessionCostsLoaded)
    def _costs_loaded(self, event: SessionCostsLoaded) -> None:
        self.query_one(SessionsTable).show_costs(event.costs)

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        record = self.query_one(SessionsTable).current_record()
        if record is None or not self._loaded_once:
            return  # (the sessions indexed so far: their tasks wait for the whole index)
        key: Id | str = ORPHANS_KEY if isinstance(record, OrphansRow) else record.id
        if self.app.source is None:  # a kept page: the tasks come once the store is open
            self.query_one("#tasks-pane", Pane).pending("orphans" if key == ORPHANS_KEY else f"session {key}",
                                                        lambda: self.app.source is None)
            return
        if key == self.session_id and event is not None:
            return  # already shown or loading: the table's own highlight of the same row
        self.session_id, self._stalled = key, False
        wanted = session_key(record)
        self.query_one("#tasks-pane", Pane).pending("orphans" if key == ORPHANS_KEY else f"session {key}", lambda: (
            key == self.session_id and not self._stalled and self.query_one(TaskTree).session_id != wanted[0]))
        self.debounce.soon("tasks", lambda: self.tasks_ahead.show_or_load(  # read ahead: memtui.ui.read_ahead
            wanted, self._tasks_loaded, lambda: self.load_tasks(wanted)))

    @on(SessionsTable.NothingMatches, "#sessions")
    def _no_session_matches(self) -> None:
        """The sessions filter matches none: the tasks and steps of the session highlighted
        before go, and the panes say why (a filter matching again highlights its first session,
        which loads as any highlight does)."""
        if self.query_one(SessionsTable).current_record() is not None:
            return  # matching again by the time this came
        why = NO_SESSION_MATCHES
        self.session_id = None
        self.debounce.cancel("tasks")
        self.workers.cancel_group(self, "tasks")
        self.query_one(TaskTree).show_tasks(None, [], {}, [], None)
        self._clear_steps()
        for name in ("#tasks-pane", "#steps-pane"):
            pane = self.query_one(name, Pane)
            pane.show_title(why)
            pane.border_subtitle = ""

    @on(TaskTree.NothingMatches, "#tasks")
    def _no_task_matches(self) -> None:
        """The tasks filter matches none: the steps of the task highlighted before go (and the
        step shown below them), and the steps pane says why; a filter matching again
        highlights its first task, whose steps load as any highlight's do."""
        if self.query_one(TaskTree).current_task() is not None:
            return  # matching again by the time this came
        self.debounce.cancel("steps")
        self.workers.cancel_group(self, "steps")
        self._clear_steps()
        pane = self.query_one("#steps-pane", Pane)
        pane.show_title(NO_TASK_MATCHES)
        pane.border_subtitle = ""

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
                    self._select_kept_step(timeline)
            elif task is not None and task.id == event.task_id and self._tails(task):  # a running task opens where its agent is writing
                self.keep["step_of"] = (event.task_id, LAST)
                self._select_kept_step(timeline)
            self._step_highlighted()
            self.steps_ahead.around(task.id for task in self.query_one(TaskTree).around_cursor())
            if not event.steps:
                self.bottom.show_step(None)
        else:
            timeline.add_steps(event.task_id, event.offset, event.steps)
            self._select_kept_step(timeline)
        self.query_one("#step-totals", Label).update(totals_line(self._totals, len(timeline.records)),
                                                     layout=False)
        shown = len(timeline.records)
        self.query_one("#steps-pane").border_subtitle = (
            f"{shown:,}/{timeline.total:,}" if timeline.total > shown else f"{timeline.total:,}")

    def _tails(self, task: TaskInfo | None) -> bool:
        """True when `task` is running and new steps are followed (follow mode and tail on)."""
        return task is not None and task.status == "running" and self.tail and self.app.follower.enabled

    @on(DataTable.RowHighlighted, "#steps")
    def _step_highlighted(self, event: DataTable.RowHighlighted | None = None) -> None:
        step = self.query_one(StepTimeline).current_record()
        if step is None or (self.step is not None and step.id == self.step.id):
            return
        self.step, self._stalled = step, False
        self.bottom.show_step(step, self.query_one(StepTimeline).around_cursor())

    # ================================================================== jumps and reloads
    def show_task(self, task_id: Id, step_seq: int | None = None) -> None:
        """Select a task (a search hit, a link) and its step `step_seq`: looked up in a worker,
        then selected as the panes load."""

        def locate() -> None:
            worker = get_current_worker()
            with self.app.reading() as source:
                task = source.task(task_id)
                step_id = None if step_seq is None else pane_reads.find_step(
                    source, task_id, step_seq, STEP_PAGE, lambda: worker.is_cancelled)
            if not worker.is_cancelled:
                self.app.call_from_thread(self._go_to, task, step_id)

        self.run_worker(locate, thread=True, exclusive=True, group="locate", exit_on_error=False,
                        description="find the task")

    def _go_to(self, task: TaskInfo, step_id: Id | None) -> None:
        """Select `task`'s session, then the task and step as the panes load (or at once when
        the session is shown already)."""
        sessions = self.query_one(SessionsTable)
        key = ORPHANS_KEY if task.session_id is None else str(task.session_id)
        if not sessions.select_key(key):
            ListFilter.clear_on(sessions)  # the session may be filtered out
            if not sessions.select_key(key):
                self.notify(f"Task #{task.id} is in no listed session.", markup=False)
                return
        tree = self.query_one(TaskTree)
        self.keep = {"task": task.id, "step": step_id}
        wanted = None if key == ORPHANS_KEY else task.session_id
        if self.session_id == (ORPHANS_KEY if wanted is None else wanted) and tree.session_id == wanted:
            # The session is shown already: move within it.
            if tree.filter_text and not tree.select_task(task.id):
                ListFilter.clear_on(tree)
            if self.task_id == task.id:
                self.keep = {} if step_id is None else {"step_of": (task.id, step_id)}
                self._select_kept_step(self.query_one(StepTimeline))
            else:
                tree.select_task(task.id)
        self.query_one(StepTimeline if step_id is not None else TaskTree).focus()

    def _keep_selection(self) -> None:
        """Before a reload (`refresh_data`): keep the task, the step (LAST: on the last step with
        tail on, F, stay on the last as new ones arrive) and the changed file shown, and forget
        what the panes show and what was read ahead: everything below the sessions reloads, even
        where the cursor does not move."""
        entry = self.query_one(CheckpointFiles).current_record()
        tail = self.tail and self.query_one(StepTimeline).at_end()
        self.keep = {"task": self.task_id, "step": LAST if tail else None if self.step is None else self.step.id}
        self.bottom.keep_entry = None if entry is None or self.step is None else (self.step.id, entry.id)
        self.task_id = None
        self.step = None
        self.bottom.forget()
        self.tasks_ahead.clear()
        self.steps_ahead.clear()

    def _select_kept_step(self, timeline: StepTimeline) -> None:
        """Select the step kept for this task (`show_task`, `refresh_data`), fetching further
        pages of steps until it is loaded."""
        kept = self.keep.get("step_of")
        if kept is None or kept[0] != timeline.task_id:
            return
        key = timeline.last_key() if kept[1] is LAST and not timeline.more_available() else str(kept[1])
        if timeline.select_key(key) or not timeline.more_available():
            del self.keep["step_of"]
        else:
            timeline.request_more()

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
        """Open the step detail screen for the highlighted step; back on its changed files when
        the detail says "files"."""
        from memtui.ui.screens.step_detail import StepDetailScreen

        timeline = self.query_one(StepTimeline)
        step = timeline.current_record()
        if step is None:
            self.notify("No step selected.", severity="warning")
            return
        detail = StepDetailScreen(step, timeline.records)

        def closed(result: str | None) -> None:
            shown = detail.step  # n / p may have moved to another step of the task
            if timeline.task_id == shown.task_id:
                timeline.select_key(str(shown.id))
            if result == "files":
                self.action_focus_pane("files")

        self.app.push_screen(detail, closed)

    def action_toggle_pin(self) -> None:
        """Pin the highlighted task (a GC root), or unpin it."""
        from memtui.ui.writes import pin_task

        task = self.query_one(TaskTree).current_task()
        if task is None or self.app.store is None:
            self.notify("Select a task of memtui's own store to pin.", markup=False)
            return
        pin_task(self, task.id, not task.pinned)

    def export_target(self) -> tuple[str, Id, str] | None:
        """What x exports: the highlighted session while the sessions pane has focus (and it is
        a session, not the orphans), else the highlighted task."""
        table = self.query_one(SessionsTable)
        record = table.current_record()
        session = None if record is None or isinstance(record, OrphansRow) else record
        task = self.query_one(TaskTree).current_task()
        if session is not None and (self.focused is table or task is None):
            return "session", session.id, session.title
        if task is not None:
            return "task", task.id, task.title
        return None

    def action_export(self) -> None:
        """Export the highlighted session (from the sessions pane) or task (key x)."""
        from memtui.ui.screens.export import ExportScreen

        target = self.app.source is not None and self.export_target()
        if not target:
            self.app.bell()
            return

        def exported(done: str | None) -> None:
            if done:
                self.notify(done, title="Export", markup=False)

        self.app.push_screen(ExportScreen(*target), exported)

    def action_resume(self) -> None:
        """Resume the highlighted session in its agent: Claude Code or Codex (key a)."""
        from memtui.ui.screens.resume import resume_session

        resume_session(self.app, None if self.session_id == ORPHANS_KEY else self.session_id)

    def action_toggle_tail(self) -> None:
        """Follow a running task's new steps, like tail -f (again: stay where you are)."""
        self.tail = not self.tail
        remember(self.app, tail=self.tail)
        self.notify(f"Tail {'on: the last step stays selected as steps arrive' if self.tail else 'off'}.")

    def action_focus_pane(self, name: str) -> None:
        """Focus one pane by name (sessions, tasks, steps, files, diff), first leaving a zoomed one."""
        if name in PANES:
            if self.maximized is not None:
                self.minimize()
            focus_now(self.query_one(f"#{name}"))

    def action_zoom(self) -> None:
        """Give the focused pane the whole screen (again: back to all panes)."""
        toggle_zoom(self)

    def action_toggle_sessions(self) -> None:
        """Hide the sessions pane so the tasks get the width (again: show it)."""
        pane = self.query_one("#sessions-pane")
        pane.display = not pane.display
        remember(self.app, sessions_pane=pane.display)
        if pane.display:  # laid out anew: fitted to its width (it had none while hidden from the start)
            self.call_after_refresh(self.query_one(SessionsTable).refit)
        if not pane.display and self.focused is self.query_one(SessionsTable):
            self.query_one(TaskTree).focus()

    def action_rollback(self, whole_checkpoint: bool = False) -> None:
        """Roll back the selection; the focused pane says what: task tree → the task with its
        sub-agents; steps → the step's checkpoint; changed files or diff → the file entry
        (`whole_checkpoint`: its whole checkpoint)."""
        from memtui.ui.screens.rollback import start_rollback

        app = self.app
        if app.source is None:
            return
        focused = self.focused
        tree = self.query_one(TaskTree)
        timeline = self.query_one(StepTimeline)
        step = timeline.current_record()
        in_diff = focused is not None and any(a.id in ("files-pane", "diff-pane") for a in focused.ancestors_with_self)
        if focused is tree:
            task = tree.current_task()
            if task is not None:
                start_rollback(app, f"Roll back task {task.id} · {task.title[:50]}", task=task.id)
                return
        elif in_diff and not whole_checkpoint:
            entry = self.query_one(CheckpointFiles).current_record()
            if entry is not None:
                start_rollback(app, f"Roll back {entry.path}", entry=entry.id)
                return
        elif step is not None and step.checkpoint_id is not None and (in_diff or focused is timeline):
            start_rollback(app, f"Roll back checkpoint {step.checkpoint_id} (step {step.seq})",
                           checkpoint=step.checkpoint_id)
            return
        app.notify("Select a task, a step with a checkpoint, or a changed file to roll back.", severity="warning")

    def action_undo_rollback(self) -> None:
        """Undo the last rollback (it was recorded as a checkpoint)."""
        from memtui.ui.screens.rollback import undo_last_rollback

        undo_last_rollback(self.app)

    def action_filter(self) -> None:
        """Filter the focused list (sessions, tasks, steps or files) as you type."""
        self.query_one(ListFilter).open_on(self.focused, [self.query_one(kind) for kind in (
            SessionsTable, TaskTree, StepTimeline, CheckpointFiles)])

    def action_filter_origin(self, field: str) -> None:
        """Show the sessions of the next machine (`field` "machine") or agent ("agent") in turn,
        then all again: the filter's `machine:NAME` / `agent:KIND` word (the rest of it stays)."""
        from memtui.core.team.origin_words import origin_word, split_origin_words

        table = self.query_one(SessionsTable)
        values = table.origins(field)
        current = table.origin_filter(field)
        index = next((i for i, v in enumerate(values) if v.lower() == current.lower()), -1)
        chosen = values[index + 1] if index + 1 < len(values) else ""
        words, rest = split_origin_words(table.filter_text)
        kept = [origin_word(name, value) for name, value in words.items() if name != field]
        text = " ".join([*filter(None, [rest]), *kept, *([origin_word(field, chosen)] if chosen else [])])
        table.apply_filter(text)
        self.query_one(ListFilter).target = table
        show_count(table, bool(text))

    def action_clear_filter(self) -> None:
        """Escape: close the filter box, else clear the focused list's filter, else leave a zoomed pane."""
        box = self.query_one(ListFilter)
        if box.active:
            box.close(clear=True)
        elif self.focused is not None and ListFilter.clear_on(self.focused):
            box.target = self.focused
        elif self.maximized is not None:
            self.minimize()

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
