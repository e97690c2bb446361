"""What each pane of the main screen reads from the source, as plain data.

Pure functions over a `MemorySource`, run in the main screen's thread workers: no widget,
no Textual. `cancelled` is the worker's cancellation flag, checked inside loops so a pane
that moved on stops the read early.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple

from memtui.core.memory_source import MemorySource
from memtui.core.model import CheckpointInfo, EntryInfo, Id, SessionInfo, StepInfo, TaskInfo
from memtui.core.task_tree import build_task_tree

Cancelled = Callable[[], bool]
TITLE_CHUNK = 500
"""Current-task titles are read this many ids at a time."""


def _never() -> bool:
    return False


def sessions_with_titles(source: MemorySource, offset: int = 0, limit: int | None = None
                         ) -> tuple[list[SessionInfo], dict[Id, str], int]:
    """Sessions (`limit` of them from `offset`; all by default), the titles of their current
    tasks, and how many tasks are orphans. memtui's store reads the titles with the sessions;
    for other sources they are looked up in batches."""
    sessions = list(source.session_page(offset, limit))
    titles: dict[Id, str] = {s.current_task_id: s.current_title for s in sessions
                             if s.current_task_id is not None and s.current_title}
    current_ids = [s.current_task_id for s in sessions if s.current_task_id is not None
                   and s.current_task_id not in titles]
    for start in range(0, len(current_ids), TITLE_CHUNK):
        titles.update((t.id, t.title) for t in source.tasks_by_id(current_ids[start:start + TITLE_CHUNK]))
    return sessions, titles, len(source.tasks(None))


FIRST_SESSIONS = 200
"""Sessions read for the first paint; the rest follow."""
MAIN_HOLD = 0.5
"""Seconds the app waits for the store's first sessions before it shows the main screen
without them (loading): with them, the screen's first frame is the sessions listed."""
FIRST_PAINT_WAIT = 3.0
"""Seconds work queued behind the first paint (the other sessions, the header's figures) waits
for it at most."""
FRAME_WRITE = 0.05
"""Seconds between drawing the first frame and starting that work: the driver's thread writes
the frame to the terminal meanwhile (work started at once held the interpreter and delayed
the frame on the terminal by a quarter of a second)."""


SessionPart = tuple[list[SessionInfo], dict[Id, str], int, int, bool]
"""(sessions, titles, orphan count, offset, complete): one part of the sessions list."""


def first_sessions(source: MemorySource, first: int | None = None) -> SessionPart:
    """The newest `first` sessions (FIRST_SESSIONS): the part the first paint shows."""
    first = first or FIRST_SESSIONS
    sessions, titles, orphans = sessions_with_titles(source, 0, first)
    return sessions, titles, orphans, 0, len(sessions) < first


SessionExtent = tuple[int, int, bool]
"""(sessions listed, orphan count, complete) of a first part read already."""


def extent(part: SessionPart) -> SessionExtent:
    """Where a part of the sessions ends: what reading on from it needs, not its rows."""
    sessions, _titles, orphans, offset, complete = part
    return offset + len(sessions), orphans, complete


def session_parts(source: MemorySource, first: int | None = None, after: SessionExtent | None = None
                  ) -> Iterator[SessionPart]:
    """The newest `first` sessions, then (if there are more) all the others; `after` a first
    part read already (by the opening worker: its extent), only the others."""
    if after is None:
        part = first_sessions(source, first)
        yield part
        after = extent(part)
    listed, orphans, complete = after
    if not complete:
        rest, titles, _ = sessions_with_titles(source, listed, None)
        yield rest, titles, orphans, listed, True


@dataclass
class TaskForest:
    """The tasks of one session (or the orphans) as a handoff forest."""

    tasks: list[TaskInfo]
    children: dict[Id, list[TaskInfo]]  # handoff children by parent id (possibly other sessions)
    roots: list[Id]
    handed_from: dict[Id, Id] = field(default_factory=dict)  # root → parent task in another session

    def contains(self, task_id: Id) -> bool:
        """True if the task is in the forest (its own or a nested sub-agent's)."""
        return any(t.id == task_id for t in self.tasks) or any(
            k.id == task_id for kids in self.children.values() for k in kids)

    def target(self, current_task_id: Id | None, kept: Id | None = None) -> Id | None:
        """The task the pane selects: a task kept from before a reload or jump (if it is
        here), else the session's current task, else the first root."""
        if kept is not None and self.contains(kept):
            return kept
        return current_task_id if current_task_id is not None else (self.roots[0] if self.roots else None)

    def count_line(self) -> str:
        """"4", or "1 + 3 from other sessions" when sub-agent tasks of other sessions nest here."""
        own = {t.id for t in self.tasks}
        elsewhere = {k.id for kids in self.children.values() for k in kids} - own
        return f"{len(own):,}" + (f" + {len(elsewhere):,} from other sessions" if elsewhere else "")


def task_forest(source: MemorySource, session_id: Id | None, cancelled: Cancelled = _never) -> TaskForest:
    """The session's tasks with their handoff children (sub-agents of other sessions too):
    memtui.core.task_tree's forest, the same one `memtui export` draws."""
    tree = build_task_tree(source, session_id, cancelled=cancelled)
    return TaskForest(tree.tasks, tree.children, tree.roots, tree.handed_from)


def step_page(source: MemorySource, task_id: Id, offset: int, limit: int,
              with_totals: bool) -> tuple[list[StepInfo], dict[str, float] | None]:
    """One page of a task's steps and, for the first page, the task's totals. The last page
    ends with the task's rollbacks and undos (`rollback_rows`), which no step made."""
    from memtui.core.usage import priced_steps, task_costs

    steps = priced_steps(source.steps(task_id, offset, limit))
    marks = rollback_rows(source, task_id) if with_totals or len(steps) < limit else []
    if len(steps) < limit:
        steps += marks
    if not with_totals:
        return steps, None
    totals = dict(source.step_totals(task_id))
    totals["steps"] = totals.get("steps", 0) + len(marks)
    own, whole = task_costs(source, task_id)
    totals["cost"] = own.cost or 0.0  # what its store recorded, else what the price table says
    totals["cost_with_rounds"] = whole.cost or 0.0  # and its sub-agents' rounds
    return steps, totals


ROLLBACK_TOOLS = {"rollback": "↶ rollback", "undo": "↷ undo"}
"""How memtui's own rollback and undo checkpoints read in the step timeline."""


def rollback_rows(source: MemorySource, task_id: Id) -> list[StepInfo]:
    """The task's rollback and undo checkpoints as rows of its timeline (after its steps):
    selecting one shows the files it wrote, and `u` undoes the newest."""
    from memtui.core.rollback import ROLLBACK_LABELS

    rows = []
    for cp in source.checkpoints(task_id):
        if cp.label in ROLLBACK_LABELS:
            rows.append(StepInfo(f"checkpoint-{cp.id}", task_id, -1, ROLLBACK_TOOLS[cp.label],
                                 {"checkpoint": cp.id, "files": cp.entry_count}, None,
                                 created_at=cp.created_at, checkpoint_id=cp.id))
    return rows


def find_step(source: MemorySource, task_id: Id, seq: int, limit: int, cancelled: Cancelled = _never) -> Id | None:
    """The id of the task's step numbered `seq`, paging through its steps (None if absent)."""
    offset = 0
    while not cancelled():
        page = list(source.steps(task_id, offset, limit))
        found = next((s.id for s in page if s.seq == seq), None)
        if found is not None or len(page) < limit:
            return found
        offset += len(page)
    return None


def checkpoint_files(source: MemorySource, checkpoint_id: Id) -> tuple[CheckpointInfo | None, list[EntryInfo]]:
    """A checkpoint (when the source describes one) and its changed files."""
    entries = list(source.checkpoint_entries(checkpoint_id))
    checkpoint = source.checkpoint(checkpoint_id)
    return checkpoint, entries


class LineCounts(NamedTuple):
    """Lines an entry added and removed, and whether its before and after are the same bytes."""

    added: int
    removed: int
    unchanged: bool = False
    """Nothing changed: a checkpoint may list a file as it was, edited or not (Claude Code's
    prompt checkpoints list every file tracked from the prompt on)."""


def line_counts(source: MemorySource, entries: list[EntryInfo],
                cancelled: Cancelled = _never) -> dict[Id, LineCounts | None] | None:
    """Lines added and removed per entry (None for binary or unreadable content; the file's
    own pane says why when opened), and which entries' before and after are the same bytes.
    None when cancelled part-way."""
    stats: dict[Id, LineCounts | None] = {}
    for entry in entries:
        if cancelled():
            return None
        try:
            before, after = source.read_entry(entry.id)
        except Exception:  # shown per file when the user opens it; the store's own hunk counts, if any
            stats[entry.id] = None if entry.line_counts is None else LineCounts(*entry.line_counts)
            continue
        if before is not None and before == after:
            stats[entry.id] = LineCounts(0, 0, unchanged=True)
            continue
        from memtui.core.diff import diff_stats  # (not before the first frame)

        counted = diff_stats(before, after)
        stats[entry.id] = None if counted is None else LineCounts(counted.added, counted.removed)
    return stats
