"""A listed source's parts kept between runs (memtui.core.sources.part_store), and the index
served from them: its light tables (sessions, their task rows, counts, problems) read whole
at open, its heavy ones (turns and steps, a session's changes) read a session at a time, when
a read first asks for a row of that session.

The agent's index names its heavy tables (`ListedIndex.lazy`); each is keyed by its
session's id — "<session>:<…>", or a (session, …) tuple — which is how a row is traced to
the file that holds it.
"""

from __future__ import annotations

from functools import partial
import os
import pickle
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator

from memtui.core.paths import stat_key
from memtui.core.sources.cursor import Resumable
from memtui.core.sources.part_pool import light, part_blobs, read_parts
from memtui.core.sources.part_store import PartStore, code_key, index_path, loads


def session_of(key: object) -> str:
    """The session a heavy table's key belongs to."""
    return str(key[0]) if isinstance(key, tuple) and key else str(key).split(":", 1)[0]


class LazyTable(dict):
    """A heavy table of a served index: a session's rows are read (`fill(session)`) when one
    of them is first asked for; walking the whole table reads every session first."""

    def __init__(self, fill: Callable[[str | None], None]) -> None:
        super().__init__()
        self._fill = fill

    def __missing__(self, key: object) -> Any:
        self._fill(session_of(key))
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key: object, default: Any = None) -> Any:
        if not dict.__contains__(self, key):
            self._fill(session_of(key))
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        self._fill(session_of(key))
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[Any]:
        self._fill(None)
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._fill(None)
        return dict.__len__(self)

    def keys(self):  # type: ignore[override]
        self._fill(None)
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._fill(None)
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._fill(None)
        return dict.items(self)


def session_rows(table: dict, session: str) -> list[tuple[Any, Any]]:
    """The (key, row) pairs of one session's rows of a heavy table, that session alone read."""
    if isinstance(table, LazyTable):
        table.get(f"{session}:")  # reads the session's rows
    return [(key, row) for key, row in dict.items(table) if session_of(key) == session]




KEEP_READ_BYTES = 64 << 20
"""A build keeps the whole parts of the files it reads (no read of the index file to show
them) up to this many bytes of files: an update's few; a build from nothing keeps the heads
of the rest (its memory bounded, not the home's size)."""

Grown = Callable[[Path, Resumable | None, bool], tuple[Any, Resumable | None]]
"""An agent's parse of a file on from a kept cursor (None, or one that no longer fits: the whole
file): its part, and — when asked (`keep`) — the cursor and state to go on from next time."""

LIVE_NS = 3600 * 10**9
"""A file written less than this long ago may still grow (its agent is at work): its parse
keeps a cursor. So does a file that changed since it was indexed (a session resumed after a
pause is parsed whole once, then from its cursor). The others (a heavy home's
thousands of finished sessions) keep none: the parser's state costs a cold build a seventh more
time and triples the index; one that grows after all is parsed whole once, then from its cursor."""


def keeps_cursor(path: Path, seen_before: bool) -> bool:
    """Whether a parse of `path` should keep a cursor (see LIVE_NS)."""
    if seen_before:
        return True
    try:
        return time.time_ns() - os.stat(path).st_mtime_ns < LIVE_NS
    except OSError:
        return False


Progress = Callable[[int, int], None]
"""Told (files read so far, files to read) while a build reads files."""

_watcher: Callable[[Path, int, int], None] | None = None


def watch_builds(watcher: Callable[[Path, int, int], None] | None) -> None:
    """From now on, this process tells `watcher(home, files read, files to read)` as an index
    build reads files (a verb's progress line on a terminal); None stops it."""
    global _watcher
    _watcher = watcher


def parse_part(read: Callable[[Path], Any], grown: Grown | None, path: Path,
               cursor: tuple[bytes | None, bool]) -> tuple[Any, bytes | None]:
    """A file's part, parsed on from its kept cursor (`cursor`: the pickled cursor, if any, and
    whether to keep one: `keeps_cursor`) with `grown` if given, else read whole; and the
    cursor to keep (pickled), if any."""
    if grown is None:
        return read(path), None
    blob, keep = cursor
    # The state in a cursor is the parser's pickle, compressed already.
    part, resume = grown(path, pickle.loads(blob) if blob is not None else None, keep)
    return part, pickle.dumps(resume, pickle.HIGHEST_PROTOCOL) if resume is not None else None


class KeptParts:
    """The parts of a listed source, kept in its home's index file: at each build, every listed
    file's signature is compared with the one kept; only a new or changed file is read, a file
    no longer listed is dropped."""

    def __init__(self, store: PartStore, home: Path) -> None:
        self.store = store
        self.home = home
        # Fills of a served index take their own lock, not the source's: a read never waits
        # for the next index being built (follow mode reloads while the app's workers read).
        self._lock = threading.RLock()
        self._heads: dict[str, tuple[str, Any]] = {}  # path → (signature, head), as last built
        self._opened = False
        self.reads = 0
        """Files read (parsed) so far: a warm open that finds nothing changed reads none."""

    def merge_into(self, whole: Any, paths: Iterable[Path], signature: Callable[[Path], Hashable | None],
                   read: Callable[[Path], Any], progress: Progress | None = None, grown: Grown | None = None) -> None:
        """Merge the part of each listed path still there into `whole` (heads only: its heavy
        tables become LazyTables filled from the index file on demand). With `grown`, a file
        read again is parsed on from the cursor kept of it (only the lines it grew by)."""
        if not self._opened:
            self.store.open()
            self._opened = True
        owner: dict[str, tuple[str, str]] = {}  # session id → (path, signature) of its part
        loaded: dict[str, set[str]] = {"body": set(), "side": set()}  # paths whose tables are in

        def filler(column: str) -> Callable[[str | None], None]:
            def fill(session: str | None) -> None:
                with self._lock:
                    wanted = list(owner.values()) if session is None else [owner[session]] if session in owner else []
                    for path, sign in wanted:
                        if path in loaded[column]:
                            continue
                        loaded[column].add(path)
                        blob = self.store.blob(path, sign, column)
                        if column == "side":
                            whole.add_side(loads(blob) if blob is not None else read(Path(path)).side_tables())
                        else:
                            whole.add_tables(loads(blob) if blob is not None else read(Path(path)))
            return fill

        for column, names in (("body", whole.lazy), ("side", whole.side)):
            fill = filler(column)
            for name in names:
                setattr(whole, name, LazyTable(fill))
        signs = {str(path): (path, self._sign(path, signature)) for path in paths}
        reading = [(path, (self.store.cursor(key), keeps_cursor(path, key in self._heads or self.store.holds(key)))
                        if grown is not None else (None, False))
                   for key, (path, sign) in signs.items() if sign is not None and not self._known(key, sign)]
        todo = len(reading)
        # On every core when there are many to read (a cold build); in order, as listed.
        parsed = read_parts(partial(parse_part, read, grown), reading, [(stat_key(p) or (0,))[0] for p, _c in reading])
        done = 0
        budget = KEEP_READ_BYTES
        kept: dict[str, tuple[str, Any]] = {}
        for key, (path, sign) in signs.items():
            if sign is None:
                continue  # gone since it was listed
            known = self._heads.get(key)
            whole_part = None
            if known is None or known[0] != sign:
                head = self.store.rows.get((key, sign))
                if head is not None:
                    known = (sign, loads(head))
                else:
                    part, blobs, cursor = next(parsed)
                    self.reads += 1
                    done += 1
                    if blobs is None:  # parsed here
                        known = (sign, light(part))
                        blobs = part_blobs(part)
                    else:  # by a worker
                        known = (sign, loads(blobs[0]))
                    own = stat_key(path)
                    self.store.put(key, sign, own, *blobs, cursor)
                    budget -= own[0] if own is not None else 0
                    whole_part = part if budget >= 0 else None  # a worker's: its tables are read when asked
                    if _watcher is not None:
                        _watcher(self.home, done, todo)
                    if progress is not None:
                        progress(done, todo)
            kept[key] = known
            if whole.merge(whole_part if whole_part is not None else known[1]):
                owner.update((sid, (key, sign)) for sid in known[1].sessions)
                if whole_part is not None:  # its heavy and side tables are in already
                    loaded["body"].add(key)
                    loaded["side"].add(key)
        self._heads = kept
        self.store.finish({key: sign for key, (sign, _head) in kept.items()})

    @staticmethod
    def _sign(path: Path, signature: Callable[[Path], Hashable | None]) -> str | None:
        sign = signature(path)
        return None if sign is None else repr(sign)

    def _known(self, key: str, sign: str) -> bool:
        """Whether the part of `key` with signature `sign` is kept (in memory or in the file)."""
        known = self._heads.get(key)
        return (known is not None and known[0] == sign) or (key, sign) in self.store.rows

    def close(self) -> None:
        self.store.close()


_CODE: dict[type, str] = {}


def kept_parts(home: Path, kind: str, index_class: type) -> KeptParts | None:
    """The kept parts of the store at `home` (its index file in memtui's cache folder), keyed by
    the code that reads and serves them: the index class's package (the agent's parser), this
    kit, and the core's model; None when no index file may be kept (--read-only, no cache folder)."""
    path = index_path(home, kind)
    if path is None:
        return None
    if index_class not in _CODE:
        core = Path(__file__).resolve().parent.parent
        agent = Path(sys.modules[index_class.__module__].__file__ or core).resolve().parent
        _CODE[index_class] = code_key(agent, core / "sources", core / "usage", core)
    return KeptParts(PartStore(path, _CODE[index_class]), Path(home))
