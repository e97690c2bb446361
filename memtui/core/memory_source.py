"""The one joint between the UI/CLI and a store: `MemorySource` and its capabilities.

memtui's own `AgentStore` and every foreign adapter (RA.Aid, JSONL sessions, Claude Code,
Codex, memory files) are `MemorySource`s: the same read model (sessions, tasks, steps,
checkpoints and their entries, messages) plus a declared set of `Capability`s. The UI and
the CLI ask `source.can(Capability.GC)` — they never probe attributes — and an action a
source cannot do is not offered; asked for anyway (a CLI verb), `source.require(...)` raises
`Unsupported`, whose one-line message says what the source can't do and what to do instead.

    source = memtui.open(path)                          # AgentStore.open(path, readonly=True), or another agent's
    if source.can(Capability.ROLLBACK): ...
    source.require(Capability.GC)                      # Unsupported: "… can't …; …"
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, ClassVar, ContextManager, Iterable, Iterator, Literal, Self, Sequence, overload

from memtui.core.capabilities import NATIVE_ONLY, WRITING, Capability, Unsupported, default_instead
from memtui.core.errors import MemtuiError, RollbackError
from memtui.core.record_tables import RecordTables
from memtui.core.model import (
    CheckpointInfo,
    EntryInfo,
    Id,
    MemoryItem,
    MessageInfo,
    Problem,
    Reference,
    ResumeCommand,
    SessionInfo,
    StepInfo,
    TaskInfo,
)

__all__ = ["Capability", "LiveWatch", "MemoryItems", "MemorySource", "NATIVE_ONLY", "ResumeHooks", "RollbackHooks", "Unsupported",
           "UnknownId", "WRITING"]


class UnknownId(MemtuiError, KeyError):
    """An id that this source does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown id"


class MemorySource(ABC):
    """What the panes and the verbs read, and what the source declares it can do.

    Subclasses set `kind`, `label` and `capabilities` (a class attribute, or a property
    when it depends on the store: a Claude Code store can roll back only when it knows the
    workspace its paths are relative to), and implement `sessions`, `tasks`, `task`, `steps`
    and `step` (each answered by id from the source's index or store, never by a scan); every
    other read has an answer here for a store that does not hold that kind of record.

    What only some sources do is a part of its own (`RollbackHooks`, `LiveWatch`,
    `ResumeHooks`, `MemoryItems`), named by a capability: a source that has it subclasses it,
    and a caller reaches it through `source.part(Capability.X)`, typed by the capability.
    """

    kind: ClassVar[str] = ""
    """Machine name: memtui, memory-files, ra-aid, jsonl-sessions, claude-code, codex."""
    label: ClassVar[str] = ""
    """How people name it: "memtui", "RA.Aid", "Claude Code" …"""
    capabilities: frozenset[Capability] = frozenset()
    path: Path
    """Where the store is (a file or a folder)."""
    workspace: Path | None = None
    """The folder its recorded paths are relative to (None when unknown or ambiguous)."""

    reads_forked: bool = False
    """Whether its reads may go on in a process forked from this one: they open files and its
    index file only, each opened again there (memtui.core.sources.part_store), so a search index
    built of its sessions reads them in forked workers (memtui.core.sources.part_pool.forked_map)."""

    def reopener(self) -> "Callable[[], MemorySource] | None":
        """How a worker process started afresh opens this source to read it as this one does
        (a picklable call; memtui.core.sources.part_pool.forked_map uses it where this process
        runs other threads and cannot fork: the app); None (here) when it cannot."""
        return None

    withheld: frozenset[Capability] = frozenset()
    """Capabilities turned off for this session of use (`--read-only` withholds WRITING)."""
    withheld_why: str = ""

    # -- capabilities ---------------------------------------------------------------------
    def can(self, capability: Capability) -> bool:
        """Whether the source declares `capability` and it is not withheld."""
        return capability in self.capabilities and capability not in self.withheld

    def require(self, capability: Capability) -> None:
        """Raise `Unsupported` (one line: what it can't, what instead) unless it can."""
        if not self.can(capability):
            raise Unsupported(self, capability)

    def require_declared(self, capability: Capability) -> None:
        """Raise `Unsupported` unless the source declares `capability`, withheld or not: the
        guard of a core function only some stores serve (plan_gc, db_stats …), so another
        agent's store gets one line, not an AttributeError; a write it then makes on a store
        opened --read-only is refused by the store's writer."""
        if capability not in self.capabilities:
            raise Unsupported(self, capability)

    def withhold(self, capabilities: frozenset[Capability], why: str) -> None:
        """Turn capabilities off (not merely hide them): `can` says no and `require` raises,
        with `why` as the reason ("memtui was started with --read-only")."""
        self.withheld = self.withheld | frozenset(capabilities)
        self.withheld_why = why

    def describe(self) -> str:
        """"the Claude Code store at ~/.claude/projects" (messages name the source so)."""
        return f"the {self.label or self.kind} store at {self.path}"

    def instead(self, capability: Capability) -> str:
        """What to do instead of `capability`, for the message of `Unsupported`."""
        return default_instead(self, capability)

    def with_root(self, root: Path) -> Self:
        """This source bound to `root` (`--root`): the folder its recorded paths are restored
        under and its memory documents read from. The one way to set `workspace` from outside."""
        self.workspace = Path(root)
        return self

    # -- optional parts -------------------------------------------------------------------
    @overload
    def part(self, capability: Literal[Capability.ROLLBACK]) -> RollbackHooks: ...

    @overload
    def part(self, capability: Literal[Capability.LIVE]) -> LiveWatch: ...

    @overload
    def part(self, capability: Literal[Capability.RESUME]) -> ResumeHooks: ...

    @overload
    def part(self, capability: Literal[Capability.ITEMS]) -> MemoryItems: ...

    def part(self, capability: Capability) -> MemorySource:
        """The source's part that does `capability` (its rollback hooks, what to watch for
        changes, its resume command, its memory items), typed by the capability; Unsupported
        (one line: what it can't, what instead) when the source has no such part. Whether it
        may do it now (declared and not withheld) is `can`/`require`, as for every capability."""
        if not self.has_part(capability):
            raise Unsupported(self, capability)
        return self

    def has_part(self, capability: Capability) -> bool:
        """Whether the source has the part that does `capability` (`part` then returns it)."""
        kind = PARTS.get(capability)
        return kind is not None and isinstance(self, kind)

    # -- summary --------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """The numbers `memtui sources` prints for this store."""
        return {}

    def problems(self) -> list[Problem]:
        """Malformed records found while reading (file, line, message)."""
        return []

    def close(self) -> None:
        """Release open handles (SQLite connections)."""

    def __enter__(self) -> "MemorySource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reload(self) -> None:
        """Forget what was read, so the next read sees the store as it is now."""

    @contextmanager
    def reading(self) -> Iterator["MemorySource"]:
        """For a worker thread: the source, with what the thread opened released after."""
        yield self

    # -- the read model -------------------------------------------------------------------
    @abstractmethod
    def sessions(self) -> Sequence[SessionInfo]:
        """Every session, newest activity first."""

    def sessions_so_far(self) -> Sequence[SessionInfo] | None:
        """While the source's index is built from nothing (an agent's heavy home, opened the
        first time): the sessions of what it has read so far, newest activity first, from any
        thread; None when no such build is under way (`sessions()` answers)."""
        return None

    def session_page(self, offset: int, limit: int | None) -> Sequence[SessionInfo]:
        """`sessions()[offset:offset + limit]` (all from `offset` when `limit` is None); a store
        that reads one page without the rest (memtui's own) does so."""
        rows = list(self.sessions())
        return rows[offset:] if limit is None else rows[offset:offset + limit]

    @abstractmethod
    def tasks(self, session_id: Id | None) -> Sequence[TaskInfo]:
        """The tasks of a session (None: the orphans, whose session is gone)."""

    @abstractmethod
    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> Sequence[StepInfo]:
        """A page of a task's steps, in order."""

    @abstractmethod
    def task(self, task_id: Id) -> TaskInfo:
        """One task by id, from the source's index or store (UnknownId when it has none)."""

    def tasks_by_id(self, task_ids: Sequence[Id]) -> list[TaskInfo]:
        """The tasks with these ids (unknown ones left out)."""
        found = []
        for task_id in task_ids:
            try:
                found.append(self.task(task_id))
            except (UnknownId, KeyError):
                continue
        return found

    def references(self, task_id: Id) -> Sequence[Reference]:
        """Edges from and to a task (handoff, supersedes, depends)."""
        return []

    @abstractmethod
    def step(self, step_id: Id) -> StepInfo:
        """One step by id, from the source's index or store (UnknownId when it has none)."""

    def step_usage(self, task_id: Id) -> Sequence[StepInfo]:
        """A task's steps for what they used (model, tokens, cost, time; memtui.core.usage): a
        store that can list them without reading their arguments and results does (its
        StepInfos then hold neither)."""
        return self.steps(task_id)

    def step_totals(self, task_id: Id) -> dict[str, float | None]:
        """Steps, tokens in/out, cost and duration summed over every step of a task (the
        duration over the steps whose duration is known; None when none is)."""
        steps = self.steps(task_id)
        durations = [s.duration_ms for s in steps if s.duration_ms is not None]
        return {"steps": len(steps), "tokens_in": sum(s.tokens_in for s in steps),
                "tokens_out": sum(s.tokens_out for s in steps), "cost": sum(s.cost for s in steps),
                "duration_ms": sum(durations) if durations else None}

    def checkpoints(self, task_id: Id) -> Sequence[CheckpointInfo]:
        """The checkpoints (file edits of one step) of a task."""
        return []

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        """One checkpoint by id."""
        raise UnknownId(f"no checkpoint {checkpoint_id!r} in {self.path}")

    def checkpoint_entries(self, checkpoint_id: Id) -> Sequence[EntryInfo]:
        """The files one checkpoint changed."""
        return []

    def entry(self, entry_id: Id) -> EntryInfo:
        """One checkpoint entry by id."""
        raise UnknownId(f"no file change {entry_id!r} in {self.path}")

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) bytes of one entry; None where that side is absent."""
        raise UnknownId(f"no file change {entry_id!r} in {self.path}")

    def messages(self, task_id: Id) -> Sequence[MessageInfo]:
        """User inputs and summaries of a task."""
        return []

    def thinking(self, task_id: Id) -> Sequence[MessageInfo]:
        """The agent's thinking texts of a task (role "thinking"), in order; read on demand
        (exports), never for a listing. Empty where the store keeps none."""
        return []

    def workspace_root(self, task_id: Id) -> Path | None:
        """The folder a task's recorded paths are relative to (a transcript's session cwd)."""
        return self.workspace

    def task_origins(self, task_ids: Iterable[Id]) -> dict[str, str]:
        """Where each of these tasks came from, "machine · agent" by task id as text, where the
        source knows (Capability.ORIGIN: a team store); empty elsewhere."""
        return {}

    def searched_stores(self) -> Sequence[tuple[str, MemorySource]]:
        """The stores memory search indexes for this source, each with the agent its hits are
        named by: itself, unnamed, when it can search its records (Capability.SEARCH); a source
        listing several agents' sessions (every agent's, memtui.core.sources.every_agent) names
        each of its stores that can."""
        return [("", self)] if self.can(Capability.SEARCH) else []

    def token_usage(self, session_id: Id) -> dict | None:
        """The session's cumulative token usage as its agent reported it (None if never)."""
        return None

    def sessions_key(self, again: bool = False) -> str | None:
        """A digest of what `sessions()` would be read from (its files' stat keys, the code that
        reads them), made without reading the sessions: while it stays the same, `sessions()`
        lists the same sessions with the same titles, times, sizes and task counts (their
        status aside), so whoever kept what it made of them (the search index) need not ask
        again. It may tell an older state than `sessions()` (kept with what was made of them,
        it is then found changed sooner, never later); `again`: only if it tells theirs (a
        caller about to rely on it instead of asking them). None: the source cannot tell so
        cheaply (ask `sessions()`)."""
        return None

    def sqlite_files(self) -> Sequence[Path]:
        """The SQLite files this store keeps in another agent's home (OpenCode's opencode.db):
        `memtui stats` shows their size, freelist and bytes per table, read-only, and `memtui
        vacuum` compacts them while none of `agent_processes` runs. memtui's own store declares
        Capability.STATS instead."""
        return []

    agent_processes: ClassVar[tuple[str, ...]] = ()
    """The names the agent's processes run under (`opencode`, `codex`): while one runs, its
    SQLite files are not vacuumed (memtui.core.agent_vacuum)."""

    def record_tables(self) -> RecordTables | None:
        """The SQL tables memory search reads this store's records from, set-wise (memtui's own
        store); None: the index reads its sessions through the read model above."""
        return None


# -- the optional parts, each named by a capability --------------------------------------------
def default_rollback_root(source: MemorySource, task_id: Id, root: str | Path | None = None) -> Path:
    """The folder a rollback of `task_id` writes under: `root` when given (--root), else the
    source's workspace, else (a transcript home whose sessions worked in different folders) the
    task's session folder. RollbackError when that folder is unknown, not on this machine, or /
    or ~ (every file would be inside: no project to restore under)."""
    if root is not None:
        return Path(root)
    if source.workspace is not None:
        return Path(source.workspace)
    folder = source.workspace_root(task_id)
    if folder is None:
        raise RollbackError(f"task {task_id} recorded no working directory: give the project folder with --root DIR")
    if not folder.is_dir():
        raise RollbackError(f"task {task_id}'s session worked in {folder}, which is not a folder on this machine;"
                            " give a copy of that project with --root DIR")
    if folder.resolve() in (Path(folder.anchor), Path.home().resolve()):
        raise RollbackError(f"task {task_id}'s session worked in {folder}, which is no project folder;"
                            " give the project folder with --root DIR")
    return folder


class RollbackHooks(MemorySource):
    """Capability.ROLLBACK: where a rollback of a task writes, how its recorded paths map onto
    that folder, and the writer that records its undo (memtui's store, a transcript store's
    undo log). A source without this part is rolled back only under an explicit root, with no
    undo recorded."""

    undo_kept_in: str = ""
    """Where a rollback records its undo: "store" (a checkpoint in memtui's own store, its task
    pinned), "state" (memtui's state folder: another agent's store is never written), or ""
    (nowhere: a rollback replaces what is on disk for good)."""

    @abstractmethod
    def writer(self) -> ContextManager[Any]:
        """The one way to write: a writer that records checkpoints (`transaction()`,
        `record_checkpoint(...)`, `pin(...)`, `remove_entries(...)`)."""

    def rollback_root(self, task_id: Id, root: str | Path | None = None) -> Path:
        """The folder a rollback of `task_id` writes under (`default_rollback_root`)."""
        return default_rollback_root(self, task_id, root)

    def rollback_note(self, task_id: Id, root: Path) -> str:
        """A line for a rollback plan of `task_id` saying where recorded paths are restored:
        under `root` (its `rollback_root`); "" for nothing to say."""
        return ""

    def restore_path(self, path: str, task_id: Id, root: Path) -> str:
        """A recorded entry path of `task_id` as a rollback under `root` checks it. memtui's
        paths are workspace-relative already: returned as recorded (an absolute one is refused)."""
        return path

    def rollback_checkpoints(self, limit: int = 20) -> Sequence[CheckpointInfo]:
        """The rollback and undo checkpoints memtui recorded for this source, newest first."""
        return []


class LiveWatch(MemorySource):
    """Capability.LIVE: what to watch to follow changes (memtui.core.live polls it cheaply)."""

    def watched_databases(self) -> Sequence[Path]:
        """SQLite files whose commits mean new data (their PRAGMA data_version is polled)."""
        return []

    def watched_files(self) -> Sequence[Path]:
        """Files and folders whose size or mtime change means new data (a new session is a
        new file in a folder, so folders count too)."""
        return [self.path]


class ResumeHooks(MemorySource):
    """Capability.RESUME: the agent's own command that resumes a session (memtui.core.resume)."""

    @abstractmethod
    def resume_command(self, session_id: Id) -> ResumeCommand:
        """The agent's command that resumes a session, and its recorded directory."""


class MemoryItems(MemorySource):
    """Capability.ITEMS: the memory items a store keeps (facts, snippets, notes, history rows)."""

    @abstractmethod
    def memory_items(self, kind: str | None = None) -> Sequence[MemoryItem]:
        """Its memory items, of `kind` only when given."""


PARTS: dict[Capability, type] = {
    Capability.ROLLBACK: RollbackHooks,
    Capability.LIVE: LiveWatch,
    Capability.RESUME: ResumeHooks,
    Capability.ITEMS: MemoryItems,
}
"""The part each capability names: `MemorySource.part(capability)` returns the source as it."""
