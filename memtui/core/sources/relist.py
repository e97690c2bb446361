"""A transcript store read again as it is now, cheaply: its files listed again at each reload
(an agent started a session while memtui was open; a cleanup archived or restored one), and
only what is new or changed read again.

Its files are listed by memtui.core.sources.folders (a folder listed again only when its mtime
changed); `Parts` keeps what each listed file gave the index while the file — and what it
names (a session's sub-agent transcripts) — keeps its size and mtime.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Generic, Hashable, Iterable, Iterator, Protocol, Self, Sequence, TypeVar

from memtui.core.model import Problem, Reference, SessionInfo, StepInfo, TaskInfo
from memtui.core.sources.base import Index, IndexedSource
from memtui.core.sources.cursor import Resumable
from memtui.core.sources.kept_parts import (Grown, KeptParts, Progress, keeps_cursor, kept_parts, lists_sessions,
                                            tell_watcher)

PartT = TypeVar("PartT")
_PATH = type(Path())


class Parts:
    """What each listed file gave an index: read again only when its signature (the sizes and
    mtimes of what the read looked at) changed; a file no longer listed is forgotten."""

    def __init__(self) -> None:
        self._kept: dict[Path, tuple[Hashable, Any]] = {}
        self._cursors: dict[Path, Resumable] = {}
        self.reads = 0
        """Files read so far (a reload that finds nothing changed reads none)."""

    def each(self, paths: Iterable[Path], signature: Callable[[Path], Hashable | None],
             read: Callable[[Path], PartT], grown: Grown | None = None) -> list[PartT]:
        """The part of each path still there, in order (`signature` None: gone since listed);
        with `grown`, a file read again is parsed on from where its last parse stopped."""
        kept: dict[Path, tuple[Hashable, Any]] = {}
        cursors: dict[Path, Resumable] = {}
        for path in paths:
            sign = signature(path)
            if sign is None:
                continue
            known = self._kept.get(path)
            if known is None or known[0] != sign:
                if grown is not None:
                    part, resume = grown(path, self._cursors.pop(path, None), keeps_cursor(path, known is not None))
                    if resume is not None:
                        self._cursors[path] = resume
                    known = (sign, part)
                else:
                    known = (sign, read(path))
                self.reads += 1
            kept[path] = known
            if path in self._cursors:
                cursors[path] = self._cursors[path]
        self._kept, self._cursors = kept, cursors
        return [part for _sign, part in kept.values()]


class SessionRow(Protocol):
    """A session of a listed index: its id, and the file (or folder) it was read from."""

    @property
    def id(self) -> str: ...

    @property
    def file(self) -> Path: ...


SessionT = TypeVar("SessionT", bound=SessionRow)


@dataclass
class ListedIndex(Index, Generic[SessionT]):
    """An index made of parts, one per listed file (a transcript, a rollout), each holding its
    sessions: a part is an index of the same class, merged into the whole with `merge`."""

    sessions: dict[str, SessionT] = field(default_factory=dict)
    task_rows: dict[str, list[TaskInfo]] = field(default_factory=dict)
    """session id → its tasks as listed (a part's reader fills it): what a listing reads, so it
    reads no turn."""

    usage_rows: dict[str, list[StepInfo]] = field(default_factory=dict)
    """task id → its steps that used tokens, as `step_usage` answers (a part's reader fills it)."""
    handoffs: dict[str, list[Reference]] = field(default_factory=dict)
    """task id → the handoffs it is either end of, in its session (where the agent has them)."""

    side: ClassVar[tuple[str, ...]] = ("usage_rows", "handoffs")
    """What usage reads (memtui.core.usage): kept apart from the heavy tables, read a session at
    a time from the index file."""
    lazy: ClassVar[tuple[str, ...]] = ()
    """The heavy tables (turns, steps, changes: keyed by "<session>:…" or (session, …)): kept
    in the home's index file and read a session at a time when the index is kept there
    (memtui.core.sources.kept_parts); every other field is read whole at open."""

    def add_tables(self, part: Self) -> None:
        """Add the part's heavy tables (its `lazy` ones) to this index's."""

    def side_tables(self) -> dict[str, dict]:
        """The side tables by name (`side`)."""
        return {"usage_rows": self.usage_rows, "handoffs": self.handoffs}

    def add_side(self, tables: dict[str, dict]) -> None:
        """Add side tables (as `side_tables` gives them) to this index's."""
        self.usage_rows.update(tables.get("usage_rows", {}))
        self.handoffs.update(tables.get("handoffs", {}))

    def merge(self, part: Self) -> bool:
        """Add one file's part (its sessions, task rows and other tables, its counts and
        problems); a session already read from another file is reported, not read twice (False)."""
        clash = next((s for s in part.sessions.values() if s.id in self.sessions), None)
        if clash is not None:
            self.problems.append(Problem(str(clash.file), None, f"session {clash.id} already read from another file"))
            return False
        self.problems.extend(part.problems)
        self.sessions.update(part.sessions)
        self.task_rows.update(part.task_rows)
        self.add_side(part.side_tables())
        self.add_tables(part)
        for name, count in part.counts.items():
            self.counts[name] = self.counts.get(name, 0) + count
        return True


ListedT = TypeVar("ListedT", bound=ListedIndex[Any])


class ListedSource(IndexedSource[ListedT]):
    """An IndexedSource over a set of files (transcripts, rollouts): listed again by `relist` at
    each reload, and each file's part of the index kept while it is unchanged (`listed_parts`)."""

    def __init__(self, files: Iterable[Path], *, home: Path | None = None, path: Path | None = None,
                 relist: Callable[[], Iterable[Path]] | None = None) -> None:
        self.files = sorted(p if p.__class__ is _PATH else Path(p) for p in files)  # a listing's Paths kept
        super().__init__(path or (self.files[0].parent if self.files else Path(".")))
        self.home = home
        self._relist = relist  # the files as they are now: listed again at each reload
        self._parts = Parts()  # what each file gave the index, read again when it changed
        self._kept: KeptParts | None | bool = False  # the home's index file (None: none can be kept)
        self._indexed = False
        self.progress: Progress | None = None
        """Told (files read, files to read) while a build reads files (a cold build's progress)."""
        self._so_far: tuple[SessionInfo, ...] | None = None
        self._key: str | None | bool = False  # sessions_key (False: not asked yet)
        self._key_checked = True  # no index read since the sessions key was made (or checked)

    def merge_listed(self, whole: ListedT, signature: Callable[[Path], Hashable | None],
                     read: Callable[[Path], ListedT], grown: Grown | None = None) -> None:
        """Merge each listed file's part into `whole`, a new index: the files to index are those
        listed when the store was opened, the first time; those listed now after (a new session
        shows up, a removed one goes). A file is read again only when its `signature` changed:
        since the last build, or — where the index declares heavy tables (`lazy`) and memtui may
        write its cache folder — since the last run (the home's index file). `grown`: how the
        agent parses a grown file on from where its last parse stopped (kept in the index file)."""
        if self._relist is not None and self._indexed:
            self.files = sorted(Path(p) for p in self._relist())
        self._indexed = True
        self._key_checked = False  # the sessions key, if made, was made before this index
        kept = self._kept_parts(whole)
        if kept is not None:
            try:
                kept.merge_into(whole, self.files, signature, read, self._told, grown,
                                self._read_so_far if lists_sessions() else None)
            finally:
                self._so_far = None
            return
        for part in self._parts.each(self.files, signature, read, grown):
            whole.merge(part)

    @property
    def index_read(self) -> bool:
        """Whether this source has read its index (or is reading it) since it was opened."""
        return self._indexed or self._current is not None

    def sessions_key(self, again: bool = False) -> str | None:
        """(MemorySource's) A digest of what the agent says its sessions are read from
        (`sessions_inputs`: the files listed at open and those beside them, with their stat
        keys; the parser's code), made once, before this source first reads its index (the
        index it then reads is as new or newer): None when first asked after that, and after a
        reload (the index served may then be older than the files now), or when the agent
        cannot tell. `again`, once the index was read after the key was made: the key only if
        the files are still as they were when it was made (then that index read them so too),
        else None from now on."""
        with self.index_lock:  # never made while an index is built: it would be the newer
            if self._key is False:  # asked first: made now if the index is not read yet
                self._key = None if self.index_read else self._made_key()
                self._key_checked = True
            elif again and not self._key_checked and isinstance(self._key, str):
                self._key = self._key if self._made_key() == self._key else None
                self._key_checked = True
            return self._key if isinstance(self._key, str) else None

    def _made_key(self) -> str | None:
        inputs = self.sessions_inputs(self.files)
        if inputs is None:
            return None
        digest = hashlib.blake2b(f"{self.kind}\0{self.path}\0{self.home}\0".encode("utf-8", "surrogateescape"),
                                 digest_size=16)
        for item in inputs:
            digest.update(item.encode("utf-8", "surrogateescape") + b"\0")
        return digest.hexdigest()

    def reload(self) -> None:
        """(IndexedSource's) The sessions key made before the first index no longer tells the
        next one's (`sessions_key`: None from now on)."""
        self._key = None
        super().reload()

    def sessions_inputs(self, files: list[Path]) -> Iterator[str] | None:
        """What the sessions of the index built from `files` are read from, as text (each file
        with its stat key, the parser's code): equal inputs, equal sessions (`sessions_key`).
        None (here): the agent cannot tell without reading them."""
        return None

    def _told(self, read: int, to_read: int) -> None:
        tell_watcher(self.path, read, to_read, self)
        if self.progress is not None:
            self.progress(read, to_read)

    def _read_so_far(self, partial: ListedT) -> None:
        """(The build's thread.) The sessions of the index built so far, as `sessions()` lists
        them: this source's own read model over that index (a view of it serving `partial`)."""
        view = copy.copy(self)
        view._current = partial
        self._so_far = tuple(view.sessions())

    def sessions_so_far(self) -> Sequence[SessionInfo] | None:
        """While the index is built from nothing: the sessions of the files read so far (read
        newest first), newest activity first; None when no such build is under way."""
        return self._so_far

    def _kept_parts(self, whole: ListedT) -> KeptParts | None:
        if self._kept is False:
            self._kept = None
            if whole.lazy:
                self._kept = kept_parts(self.path, self.kind, type(whole))
        return self._kept if isinstance(self._kept, KeptParts) else None

    @property
    def index_kept(self) -> bool:
        """Whether its index is kept in a file of memtui's cache folder (once it is read)."""
        return isinstance(self._kept, KeptParts)

    @property
    def files_read(self) -> int:
        """Files read into the index so far (a reload that finds nothing changed reads none)."""
        return self._parts.reads + (self._kept.reads if isinstance(self._kept, KeptParts) else 0)

    def close(self) -> None:
        if isinstance(self._kept, KeptParts):
            self._kept.close()
        self._kept = False
        super().close()

    def listed_now(self) -> list[Path]:
        """The files as listed now: the next reload's (watched by follow mode)."""
        return list(self._relist()) if self._relist is not None else self.files
