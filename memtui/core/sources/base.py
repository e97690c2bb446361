"""What every foreign-source adapter shares: the adapter base class (a MemorySource) and
the entry record that says whether a file's before-content is known.

An adapter maps one agent's store onto the read model in memtui.core.model, so the panes
show it like the native store. Nothing here writes to a store.
"""

from __future__ import annotations

import threading
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Sequence

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

    def __init__(self, path) -> None:
        self.path = path
        # Workers of the app read one adapter from several threads; indexing happens once.
        self._index_lock = threading.RLock()

    # A store that keeps no sessions (memory files) answers with none.
    def sessions(self) -> Sequence[SessionInfo]:
        return []

    def tasks(self, session_id: Id | None) -> Sequence[TaskInfo]:
        return []

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> Sequence[StepInfo]:
        return []


def transcript_capabilities(source: MemorySource) -> frozenset[Capability]:
    """Claude Code and Codex: file changes, following them, resuming a session in the agent,
    cleaning up the agent's home and searching its sessions (core.memory.search_sessions) always;
    rollback and memory edits only with the one workspace every session worked in (their
    recorded paths are relative to it), on this machine."""
    always = {Capability.DIFF, Capability.RESUME, Capability.LIVE, Capability.CLEANUP, Capability.SEARCH}
    if source.workspace is None or not source.workspace.is_dir():
        return frozenset(always)
    return frozenset({*always, Capability.ROLLBACK, Capability.EDIT_MEMORY})


def files_and_folders(files: Sequence[Path]) -> list[Path]:
    """The files plus every folder holding one (a new file there changes the folder's mtime)."""
    return [*files, *sorted({Path(f).parent for f in files})]


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

    def reload(self) -> None:
        """Forget the index: the next read indexes the store again (its agent may have
        written since: a resumed session's new turns)."""
        with self._index_lock:
            self._loaded = False
            self._counts = {}
            self._problems = []

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
