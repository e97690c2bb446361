"""What every foreign-source adapter shares: the adapter base class, memory items, and the
entry record that says whether a file's before-content is known.

An adapter maps one agent's store onto the read model in memtui.core.model, so the panes
show it like the native store. Nothing here writes to a store.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from memtui.core.errors import ContentError, MemtuiError
from memtui.core.model import (
    CheckpointInfo,
    EntryInfo,
    Id,
    MessageInfo,
    Problem,
    Reference,
    SessionInfo,
    StepInfo,
    TaskInfo,
)


class UnknownId(MemtuiError, KeyError):
    """An id that this source does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown id"


class ContentUnknown(ContentError):
    """The store does not hold a file change's full before- (or after-) content.

    `read_entry` raises it rather than return None, which would mean "the file did not
    exist": a rollback must refuse such an entry, never delete or empty the file.
    """


@dataclass(frozen=True)
class SourceEntryInfo(EntryInfo):
    """A file change read from a foreign store.

    `before_known` is False when the store does not hold the full pre-edit content (a
    Codex patch hunk, a Claude Code edit with neither `originalFile` nor a backup); then
    `read_entry` raises ContentUnknown and `unknown_reason` says why — a rollback must
    refuse such an entry. `diff` holds the store's own diff text where it has one.
    """

    before_known: bool = True
    after_known: bool = True
    unknown_reason: str = ""
    diff: str | None = None


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


class SourceAdapter:
    """Base class: empty answers for everything a store does not have.

    Subclasses set `kind` and `capabilities` and override what their store holds.
    """

    kind: str = ""
    capabilities: frozenset[str] = frozenset()

    def __init__(self, path) -> None:
        self.path = path
        # Workers of the app read one adapter from several threads; indexing happens once.
        self._index_lock = threading.RLock()

    # -- summary --------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """The numbers `memtui sources` prints for this store."""
        return {}

    def problems(self) -> list[Problem]:
        """Malformed records found while reading (file, line, message)."""
        return []

    def close(self) -> None:
        """Release open handles (SQLite connections)."""

    # -- the MemorySource protocol ----------------------------------------------------------
    def sessions(self) -> Sequence[SessionInfo]:
        return []

    def tasks(self, session_id: Id | None) -> Sequence[TaskInfo]:
        return []

    def task(self, task_id: Id) -> TaskInfo:
        for session in self.sessions():
            for task in self.tasks(session.id):
                if task.id == task_id:
                    return task
        for task in self.tasks(None):
            if task.id == task_id:
                return task
        raise UnknownId(f"no task {task_id!r} in {self.path}")

    def references(self, task_id: Id) -> Sequence[Reference]:
        return []

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> Sequence[StepInfo]:
        return []

    def checkpoints(self, task_id: Id) -> Sequence[CheckpointInfo]:
        return []

    def checkpoint_entries(self, checkpoint_id: Id) -> Sequence[EntryInfo]:
        return []

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        raise UnknownId(f"no file change {entry_id!r} in {self.path}")

    def messages(self, task_id: Id) -> Sequence[MessageInfo]:
        return []

    # -- extras -----------------------------------------------------------------------------
    def memory_items(self, kind: str | None = None) -> Sequence[MemoryItem]:
        """Facts, snippets, notes or history rows the store keeps; empty for most stores."""
        return []


class IndexedSource(SourceAdapter):
    """An adapter that reads its whole store into memory once, on first use.

    Subclasses implement `_index()`, which fills `_counts` and `_problems` (and whatever
    else they answer from); it runs at most once, under the index lock, and again only
    after `_loaded` is reset.
    """

    def __init__(self, path) -> None:
        super().__init__(path)
        self._counts: dict[str, int] = {}
        self._problems: list[Problem] = []
        self._loaded = False

    def _index(self) -> None:
        raise NotImplementedError

    def _load(self) -> None:
        if self._loaded:
            return
        with self._index_lock:
            if not self._loaded:
                self._index()
                self._loaded = True

    def _find(self, table: str, key: object, what: str) -> Any:
        """`self.<table>[str(key)]` once the index is loaded, or UnknownId naming `what`."""
        self._load()
        found = getattr(self, table).get(str(key))
        if found is None:
            raise UnknownId(f"no {what} {key!r} in {self.path}")
        return found

    def counts(self) -> dict[str, int]:
        self._load()
        return dict(self._counts)

    def problems(self) -> list[Problem]:
        self._load()
        return list(self._problems)


def preview(text: object, width: int = 80) -> str:
    """`text` on one line, whitespace collapsed, cut to `width` with an ellipsis (titles)."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def page(items: Sequence[Any], offset: int, limit: int | None) -> list[Any]:
    """items[offset:offset+limit], the paging every `steps()` does."""
    end = None if limit is None else offset + limit
    return list(items[offset:end])
