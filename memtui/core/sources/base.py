"""What every foreign-source adapter shares: the adapter base class (a MemorySource) and
the entry record that says whether a file's before-content is known.

An adapter maps one agent's store onto the read model in memtui.core.model, so the panes
show it like the native store. Nothing here writes to a store.
"""

from __future__ import annotations

import threading
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Generic, Mapping, Sequence, TypeVar

from memtui.core.errors import ContentUnknown  # noqa: F401 (lives in errors; adapters import it from here)
from memtui.core.memory_source import Capability, MemorySource, UnknownId
from memtui.core.model import EntryInfo, Id, Problem, SessionInfo, StepInfo, TaskInfo


@dataclass(frozen=True)
class SourceEntryInfo(EntryInfo):
    """A file change read from a foreign store (a Codex patch hunk, a Claude Code edit): the
    read model's EntryInfo, whose `before_known` … `line_counts` such stores fill in."""


class SourceAdapter(MemorySource):
    """Base of the foreign-store adapters: a path, and a lock for indexing once.

    Subclasses set `kind`, `label` and `capabilities` and override what their store holds
    (MemorySource answers "none" for the rest). Adapters never write.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # Workers of the app read one adapter from several threads; indexing happens once (under
        # this lock, which an adapter that builds more than its index takes too).
        self.index_lock = threading.RLock()

    # A store that keeps no sessions (memory files) answers with none.
    def sessions(self) -> Sequence[SessionInfo]:
        return []

    def tasks(self, session_id: Id | None) -> Sequence[TaskInfo]:
        return []

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> Sequence[StepInfo]:
        return []

    def task(self, task_id: Id) -> TaskInfo:
        raise UnknownId(f"no task {task_id!r} in {self.path}")

    def step(self, step_id: Id) -> StepInfo:
        raise UnknownId(f"no step {step_id!r} in {self.path}")


TRANSCRIPT_ALWAYS = frozenset({Capability.DIFF, Capability.RESUME, Capability.LIVE, Capability.CLEANUP, Capability.SEARCH})
"""What a transcript store (Claude Code, Codex) can do whatever folders its sessions worked in:
asked of one (`can`), it answers without reading its sessions."""


def transcript_capabilities(source: MemorySource) -> frozenset[Capability]:
    """Claude Code and Codex: file changes, following them, resuming a session in the agent,
    cleaning up the agent's home and searching its sessions (core.memory.search_sessions) always
    (TRANSCRIPT_ALWAYS); rollback and memory edits only with the one workspace every session
    worked in (their recorded paths are relative to it), on this machine."""
    if source.workspace is None or not source.workspace.is_dir():
        return TRANSCRIPT_ALWAYS
    return frozenset({*TRANSCRIPT_ALWAYS, Capability.ROLLBACK, Capability.EDIT_MEMORY})


def files_and_folders(files: Sequence[Path]) -> list[Path]:
    """The files plus every folder holding one (a new file there changes the folder's mtime)."""
    return [*files, *sorted({Path(f).parent for f in files})]


@dataclass
class Index:
    """What an IndexedSource answers from: an agent's index subclasses it (a dataclass whose
    tables are typed fields: `Transcripts.turns`, `Rollouts.changes` …) and adds its tables;
    every index has its counts (what `memtui sources` prints) and the problems met while
    reading. Built whole, then served: its tables never change once a source serves it (a read
    may still add what it meets on the way: a problem of a step read, a session's file sizes;
    an index kept in memtui's cache folder fills its heavy tables a session at a time as reads
    ask for them, memtui.core.sources.kept_parts)."""

    counts: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


IndexT = TypeVar("IndexT", bound=Index)
RowT = TypeVar("RowT")


class IndexedSource(SourceAdapter, Generic[IndexT]):
    """An adapter that reads its whole store into memory (an `Index`) on first use.

    Subclasses implement `build_index()`, which returns a new index; it runs at most once, under
    the index lock, and again after `reload()`. The index served is swapped in with one
    assignment once built, so a read never sees one half-built: a public read takes
    `ix = self.index()` once and reads every table from that `ix` — the listing before a
    reload or the one after it, never a mix (follow mode reloads while the app's workers
    read).
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._current: IndexT | None = None

    def build_index(self) -> IndexT:
        """A new index of the store as it is now (called by `index()`, under the lock)."""
        raise NotImplementedError

    def index(self) -> IndexT:
        """The index served now (built first when there is none)."""
        current = self._current
        if current is not None:
            return current
        with self.index_lock:
            if self._current is None:
                self._current = self.build_index()
            return self._current

    def reload(self) -> None:
        """Forget the index: the next read indexes the store again (its agent may have
        written since: a resumed session's new turns)."""
        with self.index_lock:
            self._current = None

    def found(self, table: Mapping[str, RowT], key: object, what: str) -> RowT:
        """`table[str(key)]`, or UnknownId naming `what` ("no turn 'x' in PATH")."""
        row = table.get(str(key))
        if row is None:
            raise UnknownId(f"no {what} {key!r} in {self.path}")
        return row

    def counts(self) -> dict[str, int]:
        return dict(self.index().counts)

    def problems(self) -> list[Problem]:
        return list(self.index().problems)


def preview(text: object, width: int = 80) -> str:
    """`text` on one line, whitespace collapsed, cut to `width` with an ellipsis (titles)."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def page(items: Sequence[Any], offset: int, limit: int | None) -> list[Any]:
    """items[offset:offset+limit], the paging every `steps()` does."""
    end = None if limit is None else offset + limit
    return list(items[offset:end])
