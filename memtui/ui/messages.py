"""App-wide messages: results of the thread workers, posted back to the UI thread.

Workers never touch widgets: they read through the source, build plain data (the frozen
dataclasses of memtui.core.model) and post one of these. Each carries what it was asked
for (`session_id`, `task_id` ...), so a handler can drop a result that arrived after the
user moved on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from textual.message import Message

from memtui.core.model import CheckpointInfo, EntryInfo, Id, SessionInfo, StepInfo
from memtui.ui.pane_reads import LineCounts, TaskForest

if TYPE_CHECKING:  # the diff engine is imported by the first diff shown, not before the first frame
    from memtui.core.diff import FileDiff


@dataclass
class SourceOpened(Message):
    """The store (or foreign source) is open and readable."""

    source: Any
    store: Any | None  # the AgentStore when the source is a native store
    first: "SessionsLoaded | None" = None  # the newest sessions, read with the opening


@dataclass
class SourceFailed(Message):
    """Opening failed: the message is for the user (missing workspace, unreadable DB ...)."""

    title: str
    message: str
    hint: str = ""


@dataclass
class WorkspaceMeasured(Message):
    """Header facts: database size, row counts and (when computed) live/reclaimable tasks."""

    db_bytes: int | None
    counts: dict[str, int] = field(default_factory=dict)
    gc: dict[str, int] | None = None  # {"live": n, "reclaimable": m, "reclaimable_bytes": b}
    gc_pending: bool = False  # the figures are being computed (a later message brings them)


@dataclass
class IndexProgress(Message):
    """The index of an agent's home is being built: `read` of `to_read` transcripts so far;
    `source`, the one being built, lists the sessions read so far (`sessions_so_far`)."""

    read: int
    to_read: int
    source: Any = None


@dataclass
class SessionsSoFar(Message):
    """The sessions of the transcripts indexed so far, newest first (the index is being built)."""

    sessions: Sequence[SessionInfo]


@dataclass
class SessionsLoaded(Message):
    """Sessions newest first from `offset` (the first page, then the rest), with current-task
    titles; orphans counted apart; `complete` on the last part."""

    sessions: list[SessionInfo]
    current_titles: dict[Id, str]
    orphan_count: int
    offset: int = 0
    complete: bool = True
    kept_at: float | None = None
    """Set on the page an earlier run listed (memtui.ui.kept_page: epoch seconds it was kept),
    shown until the page read now replaces it; None on a page read now."""
    origin: bool | None = None
    """A kept page's: whether its store's sessions named their machine (the open source says
    for a page read now: None)."""

    @property
    def part(self) -> tuple[list[SessionInfo], dict[Id, str], int, int, bool]:
        """As memtui.ui.pane_reads.session_parts yields it."""
        return self.sessions, self.current_titles, self.orphan_count, self.offset, self.complete


@dataclass
class TasksLoaded(Message):
    """The task forest of one session (or of the orphans when `session_id` is None)."""

    session_id: Id | None
    forest: TaskForest
    current_task_id: Id | None
    first_steps: "StepsLoaded | None" = None
    """The first page of the steps of the task the pane will select, read with the tasks."""


@dataclass
class StepsLoaded(Message):
    """One page of a task's steps; `offset == 0` starts a fresh list."""

    task_id: Id
    offset: int
    steps: list[StepInfo]
    totals: dict[str, float] | None


@dataclass
class EntriesLoaded(Message):
    """The changed files of one checkpoint; `stats` maps entry id → (added, removed) lines, and
    whether the file is unchanged (pane_reads.LineCounts)."""

    step_id: Id | None
    checkpoint: CheckpointInfo | None
    entries: list[EntryInfo]
    stats: dict[Id, LineCounts | None] = field(default_factory=dict)
    first: "EntryContentLoaded | None" = None
    """The diff of the first file, read with the list (the pane shows it at once)."""


@dataclass
class EntryContentLoaded(Message):
    """Both sides of one checkpoint entry, read, verified and diffed (off the UI thread)."""

    entry: EntryInfo
    prepared: FileDiff


@dataclass
class SessionCostsLoaded(Message):
    """What sessions cost, as the sessions pane shows it: row key → "$1.23" ("—": not priced)."""

    costs: dict[str, str]
