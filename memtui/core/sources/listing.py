"""The session listing of a store whose index is built whole (Gemini CLI's chats, Cline's task
folders, Aider's history, OpenCode's database), kept between runs in memtui's cache folder:
what the sessions pane, `memtui log` and the merged home (`memtui ~`) list, read without
parsing a session's body.

Each listed unit (a chat file, a task folder, a history file, a database) gives a part: its
sessions as listed (`ListedRow`, the SessionInfo less what is measured at each listing: its
files' bytes and stat digest), its counts and its problems. The parts are kept by the engine
that keeps the transcript stores' (memtui.core.sources.kept_parts): a unit is parsed again only
when its signature changed, one no longer listed is dropped. Each agent subclasses `Listing`
in its own package, so its parser's code keys the parts it kept. Where no index may be kept
(--read-only, no cache folder), the caller lists from its full index instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, ClassVar, Hashable, Iterable

from memtui.core.model import Problem, SessionInfo
from memtui.core.paths import files_key, stat_key
from memtui.core.sources.base import IndexedSource, IndexT
from memtui.core.sources.kept_parts import KeptParts, kept_parts
from memtui.core.sources.relist import ListedIndex
from memtui.core.sources.timestamps import sort_key


@dataclass(frozen=True)
class ListedRow:
    """A session as listed: its row (stored bytes and files key left to the listing), the unit
    it was read from, the files measured for it (None: none of its own, a database's session,
    whose files key its agent gives), and what else its agent keeps of it to answer cheaply (the folder it worked in). Paths are
    kept as text: a Path costs ten times a string to unpickle, at every open."""

    info: SessionInfo
    unit: str
    measured: tuple[str, ...] | None
    extra: Any = None

    @property
    def id(self) -> str:
        return str(self.info.id)

    @property
    def file(self) -> Path:
        """The unit it was read from."""
        return Path(self.unit)


@dataclass
class Listing(ListedIndex[ListedRow]):
    """The listing of a store (the parts merged), or of one unit (a part). An agent subclasses it
    in its own package (the code key of the kept parts is that package's)."""

    side: ClassVar[tuple[str, ...]] = ()
    """A listing has no side tables (usage reads the store's full index)."""

    def side_tables(self) -> dict[str, dict]:
        return {}

    def add_side(self, tables: dict[str, dict]) -> None:
        pass


def listing_of(rows: Iterable[ListedRow], counts: dict[str, int], problems: list, cls: type[Listing] = Listing) -> Listing:
    """A listing of `rows` with the index's counts and problems."""
    return cls(sessions={row.id: row for row in rows}, counts=dict(counts), problems=list(problems))


def listed_sessions(listing: Listing) -> list[SessionInfo]:
    """The sessions of `listing` still there, each with the bytes and stat digest of its files as
    they are now, newest activity first."""
    out = []
    for row in listing.sessions.values():
        if stat_key(row.unit) is None:
            continue  # removed since it was listed (a cleanup): gone at once, not at the next reload
        if row.measured is None:  # a session of a database: its bytes are not its own files'
            out.append(row.info)
            continue
        stored, key = files_key(row.measured)
        out.append(replace(row.info, stored_bytes=stored, files_key=key))
    return sorted(out, key=lambda s: sort_key(s.updated_at), reverse=True)


@dataclass
class KeptListing:
    """The kept listing of one store: `build` merges the kept parts of the units listed now,
    parsing only the new or changed ones."""

    home: Path
    kind: str
    cls: type[Listing]
    _kept: KeptParts | None | bool = field(default=False, repr=False)

    def build(self, units: Iterable[Path], signature: Callable[[Path], Hashable | None],
              read: Callable[[Path], Listing]) -> Listing | None:
        """The listing of `units` (each unit's part kept while its `signature` is unchanged);
        None when no index may be kept here (the caller lists from its full index)."""
        if self._kept is False:
            self._kept = kept_parts(self.home, f"{self.kind}-listing", self.cls)
        if not isinstance(self._kept, KeptParts):
            return None
        whole = self.cls()
        self._kept.merge_into(whole, list(units), signature, read)
        return whole

    @property
    def reads(self) -> int:
        """Units parsed so far (a warm open that finds nothing changed parses none)."""
        return self._kept.reads if isinstance(self._kept, KeptParts) else 0

    def close(self) -> None:
        if isinstance(self._kept, KeptParts):
            self._kept.close()
        self._kept = False


def folder_signature(folder: Path) -> tuple | None:
    """A folder's files' names and stat keys (a unit that is a folder: a task's), None when gone."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.is_file())
    except OSError:
        return None
    return tuple((name, stat_key(os.path.join(folder, name))) for name in names)


class ListingSource(IndexedSource[IndexT]):
    """An IndexedSource whose sessions, counts and problems come from its kept listing: a
    listing parses only the units new or changed since memtui last read them; the full index
    (tasks, steps, changes) is built when a read first asks for one.

    The agent's source says what its units are (`units`), how one is signed (`unit_signature`)
    and read into a part (`unit_reader`: a module-level function, so a worker process can run
    it), and how its full index is listed (`index_listing`, where no index may be kept)."""

    listing_class: ClassVar[type[Listing]] = Listing
    listed_from_index: ClassVar[bool] = False
    """Its one unit (a database, a history file) is read whole for its listing, which is its full
    index's (`index_listing`): a unit read for the listing builds that index and keeps it, so the
    first read after the listing (a session's tasks) does not parse the unit again."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._listing: Listing | None = None
        self._kept_listing: KeptListing | None = None

    def units(self) -> list[Path]:
        """The units to list now (chat files, task folders, a history file, a database)."""
        raise NotImplementedError

    def unit_signature(self) -> Callable[[Path], Hashable | None]:
        """What a unit's part was read from, as sizes and mtimes (None: the unit is gone)."""
        return stat_key

    def unit_reader(self) -> Callable[[Path], Listing]:
        """A unit's part: its sessions as listed, counts and problems."""
        raise NotImplementedError

    def index_listing(self, ix: IndexT) -> Listing:
        """The listing of the full index `ix` (the same rows the units' parts hold)."""
        raise NotImplementedError

    def listing_kind(self) -> str:
        """The name its kept listing is filed under (the kind, and what else changes the rows)."""
        return self.kind

    def listing(self) -> Listing:
        """The sessions as listed now, kept between runs (built once per reload)."""
        current = self._listing
        if current is not None:
            return current
        with self.index_lock:
            if self._listing is None:
                if self._kept_listing is None:
                    self._kept_listing = KeptListing(Path(self.path), self.listing_kind(), self.listing_class)
                read = self._read_keeping_index if self.listed_from_index and self._current is None else self.unit_reader()
                kept = self._kept_listing.build(self.units(), self.unit_signature(), read)
                self._listing = kept if kept is not None else self.index_listing(self.index())
            return self._listing

    def _read_keeping_index(self, unit: Path) -> Listing:
        """The unit's part, as the listing of the full index built from it; the index is served
        from now on (under the index lock: `listing` holds it)."""
        ix = self.build_index()
        self._current = ix
        return self.index_listing(ix)

    @property
    def units_read(self) -> int:
        """Units parsed into the kept listing so far (a warm open that finds nothing changed: 0)."""
        return self._kept_listing.reads if self._kept_listing is not None else 0

    def reload(self) -> None:
        with self.index_lock:
            self._listing = None
            super().reload()

    def close(self) -> None:
        with self.index_lock:
            if self._kept_listing is not None:
                self._kept_listing.close()
                self._kept_listing = None
            self._listing = None
        super().close()

    def sessions(self) -> list[SessionInfo]:
        return listed_sessions(self.listing())

    def counts(self) -> dict[str, int]:
        return dict(self.listing().counts)

    def problems(self) -> list[Problem]:
        return list(self.listing().problems)
