"""The read model: plain frozen dataclasses that every pane, CLI verb and source adapter shares.

No peewee object ever leaves the store; foreign sources (RA.Aid, Claude Code, Codex, JSONL
stores) produce the same records, with string ids where their store uses them. What reads
them is a `memtui.core.memory_source.MemorySource`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from memtui.core.usage.tokens import Tokens

Id = int | str

TaskStatus = Literal["running", "waiting_user", "completed", "failed", "cancelled"]
UNFINISHED: frozenset[str] = frozenset({"running", "waiting_user"})
FINISHED: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
REFERENCE_KINDS: tuple[str, ...] = ("handoff", "supersedes", "depends")


SESSION_STATUSES = ("open", "closed", "unknown", "archived")
"""What SessionInfo.status says ("unknown": nothing on disk tells whether the agent still has the
session open — Codex, JSONL stores, a Claude Code home without its process registry;
"archived": moved into memtui's archive by a cleanup)."""


ORIGIN_SEPARATOR = " · "
"""Between the machine and the agent in SessionInfo.origin."""


@dataclass(frozen=True)
class SessionInfo:
    """One conversation with an agent."""

    id: Id
    title: str
    status: str  # one of SESSION_STATUSES
    current_task_id: Id | None
    created_at: datetime
    updated_at: datetime
    task_count: int = 0
    stored_bytes: int = 0  # bytes of step payloads and checkpoint content of its tasks
    current_title: str = ""  # the current task's title ("" without one)
    files_key: str = ""  # a transcript store's: digest of its files' stat keys (paths.files_key), "" elsewhere
    origin: str = ""  # a team store's: "machine · agent" it was pushed from (memtui push); a merged home's: its agent; "" elsewhere

    @property
    def machine(self) -> str:
        """The machine a team store's session was pushed from ("" elsewhere)."""
        return self.origin.rsplit(ORIGIN_SEPARATOR, 1)[0] if ORIGIN_SEPARATOR in self.origin else ""

    @property
    def agent(self) -> str:
        """The agent a session came from where its source names it: a team store's kind of store
        (claude-code, codex, memtui …), a merged home's agent ("Gemini CLI"); "" elsewhere. An
        agent's name never holds the separator; a machine's may."""
        return self.origin.rsplit(ORIGIN_SEPARATOR, 1)[-1]


@dataclass(frozen=True)
class TaskInfo:
    """One unit of work. `session_id` is None for an orphan (its session was deleted)."""

    id: Id
    session_id: Id | None
    title: str
    status: str
    pinned: bool = False
    superseded: bool = False  # a newer task of its session supersedes it
    summary: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None
    finished_at: datetime | None = None
    collected: bool = False  # its heavy data was removed by GC
    step_count: int = 0
    checkpoint_count: int = 0


@dataclass(frozen=True)
class Reference:
    """An edge between tasks: handoff (parent → sub-agent), supersedes (new → old), depends."""

    from_task: Id
    to_task: Id
    kind: str


@dataclass(frozen=True)
class StepInfo:
    """One tool call or model turn."""

    id: Id
    task_id: Id
    seq: int
    tool: str
    args: Any
    result: Any
    status: str = "ok"
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    duration_ms: int | None = None  # None: the source did not record how long the step took
    created_at: datetime | None = None
    checkpoint_id: Id | None = None
    model: str = ""
    """The model that made the step's replies, as the agent named it ("" when not recorded)."""
    usage: Tokens | None = None
    """The step's replies' tokens by kind (memtui.core.usage), where the agent records them;
    None where only tokens_in/tokens_out are known. `cost` is the cost the store recorded
    (0.0: none); memtui.core.usage prices the tokens otherwise."""


@dataclass(frozen=True)
class CheckpointInfo:
    """The file edits one step made (or a rollback recorded)."""

    id: Id
    task_id: Id
    step_id: Id | None
    created_at: datetime | None
    entry_count: int = 0
    label: str = ""  # "" for agent edits; "rollback" / "undo" for ones memtui recorded


@dataclass(frozen=True)
class EntryInfo:
    """One file in a checkpoint. Sizes are None where the side is absent."""

    id: Id
    checkpoint_id: Id
    path: str
    kind: str  # "added" | "modified" | "deleted"
    before_size: int | None
    after_size: int | None
    before_hash: str | None = None
    after_hash: str | None = None
    before_known: bool = True
    """False when the store does not hold the full pre-edit content (a Codex patch hunk, a
    Claude Code edit with neither `originalFile` nor a backup): `read_entry` then raises
    ContentUnknown and `unknown_reason` says why — a rollback must refuse such an entry."""
    after_known: bool = True
    unknown_reason: str = ""
    diff: str | None = None
    """The store's own diff text, where it keeps one."""
    line_counts: tuple[int, int] | None = None
    """(added, removed) lines from the store itself, when the contents are unknown."""


@dataclass(frozen=True)
class MessageInfo:
    """A light record that survives GC: user inputs and task summaries."""

    id: Id
    task_id: Id | None
    role: str
    content: str
    created_at: datetime | None = None


@dataclass(frozen=True)
class QuestionInfo:
    """A questionnaire put to the user; the task waits while it is unanswered."""

    id: Id
    task_id: Id
    question: str
    answer: str | None
    created_at: datetime | None = None
    answered_at: datetime | None = None


@dataclass(frozen=True)
class Problem:
    """Something malformed found while reading a store: reported, skipped, never fatal."""

    file: str
    line: int | None
    message: str


@dataclass(frozen=True)
class MemoryItem:
    """One distilled item an agent keeps for later: a fact, a code snippet, a note, a history row.

    `protected` items are attached to the most recent human input (RA.Aid's GC keeps them
    too), so curation never deletes them.
    """

    id: Id
    kind: str  # "fact" | "snippet" | "note" | "history"
    content: str
    created_at: datetime | None = None
    filepath: str | None = None
    line_number: int | None = None
    description: str | None = None
    task_id: Id | None = None
    session_id: Id | None = None
    protected: bool = False


@dataclass(frozen=True)
class ResumeCommand:
    """The agent's command that resumes a session, and where the session ran (a source's
    `resume_command`; memtui.core.resume plans and runs it)."""

    argv: tuple[str, ...]
    cwd: Path | None
    open: bool = False
    """A running process of the agent has the session open (a second one would write to the
    same transcript)."""
