"""A listed source's parts kept between runs (memtui.core.sources.part_store), and the index
served from them: its light tables (sessions, their task rows, counts, problems) read whole
at open, its heavy ones (turns and steps, a session's changes) read a session at a time, when
a read first asks for a row of that session.

The agent's index names its heavy tables (`ListedIndex.lazy`); each is keyed by its
session's id — "<session>:<…>", or a (session, …) tuple — which is how a row is traced to
the file that holds it.
"""

from __future__ import annotations

import copy
from functools import partial as partial_of
import os
import pickle
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Iterator

from memtui.core.paths import stat_key
from memtui.core.sources.cursor import Resumable
from memtui.core.sources.part_pool import Blobs, Parse, light, part_blobs, read_parts, workers_for
from memtui.core.sources.part_store import BATCH, PartStore, code_key, dumps, index_path, known_paths, loads


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




SO_FAR_FIRST = 8
"""A build from nothing parses at most this many of its newest files in its own process while
its worker processes start (`newest_here`), and tells what it read so far only when it has more
files than these to read (a smaller build is over before a screen could show a part of it)."""
HERE_BYTES = 1 << 20
"""A build from nothing parses at most this many bytes of its newest files in its own process
(`newest_here`) while its workers start (the first file whatever its size)."""
SO_FAR_EVERY = 0.5
"""Seconds: while a build from nothing has read fewer than BATCH files, it tells what it read
so far at least this often (a few big transcripts first need not hold the screen back)."""

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

Watcher = Callable[[Path, int, int, Any], None]
"""Told (the store's path, files read so far, files to read, the source whose index is built)
while a build reads files: a verb's progress line, the app's sessions pane."""

_watcher: Watcher | None = None
_lists_sessions = False


def watch_builds(watcher: Watcher | None, sessions: bool = False) -> None:
    """From now on, this process tells `watcher` as an index build reads files; None stops it.
    `sessions`: the watcher lists the sessions read so far (the app's sessions pane), so a build
    from nothing has them ready as batches land (`sessions_so_far`); a verb's progress line
    does not ask for them (each batch's listing costs a little)."""
    global _watcher, _lists_sessions
    _watcher, _lists_sessions = watcher, sessions and watcher is not None


def lists_sessions() -> bool:
    """Whether this process's watcher lists the sessions read so far (see `watch_builds`)."""
    return _lists_sessions


def tell_watcher(home: Path, read: int, to_read: int, source: Any) -> None:
    """Tell the watcher of this process's builds (if any) how the build of `source` goes."""
    if _watcher is not None:
        _watcher(home, read, to_read, source)


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


def newest_here(parse: Parse, items: list[tuple[Path, Any]], sizes: list[int]) -> Iterator[tuple[Any, Blobs | None, bytes | None]]:
    """As `read_parts`, the first items (the first, and more up to SO_FAR_FIRST of them and
    HERE_BYTES in all) parsed in this process while the worker processes (if the rest needs
    them) start on the others: beside the app's threads they start from a fork server, a fresh
    interpreter importing the parser (seconds on a loaded machine), which the newest sessions
    need not wait for; the app's own thread is left the rest of this process's time."""
    first = 1
    while first < min(SO_FAR_FIRST, len(items)) and sum(sizes[:first + 1]) <= HERE_BYTES:
        first += 1
    if workers_for(parse, sizes[first:]) == 0:
        yield from read_parts(parse, items, sizes)
        return
    results: queue.Queue = queue.Queue(maxsize=BATCH)
    stop = threading.Event()

    def offer(result: Any, error: BaseException | None = None) -> bool:
        """Hand a result (or the error, or None: the end) to the build; False once it stopped."""
        while not stop.is_set():
            try:
                results.put((result, error), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def feed() -> None:
        rest = read_parts(parse, items[first:], sizes[first:])  # a generator: closed below
        try:
            if all(offer(result) for result in rest):
                offer(None)
        except BaseException as exc:  # told to the build, which raises it
            offer(None, exc)
        finally:
            rest.close()  # type: ignore[attr-defined]  # the pool shut down (its workers waited for when it finished)

    feeder = threading.Thread(target=feed, name="memtui index workers", daemon=True)
    feeder.start()
    try:
        for item in items[:first]:
            part, cursor = parse(*item)
            yield part, None, cursor
        while True:
            result, error = results.get()
            if error is not None:
                raise error
            if result is None:
                return
            yield result
    finally:
        stop.set()
        feeder.join()


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
        self._in_heads: set[tuple[str, str]] = set()  # the (path, signature) of the heads kept in one blob
        self._opened = False
        self.reads = 0
        """Files read (parsed) so far: a warm open that finds nothing changed reads none."""

    def merge_into(self, whole: Any, paths: Iterable[Path], signature: Callable[[Path], Hashable | None],
                   read: Callable[[Path], Any], progress: Progress | None = None, grown: Grown | None = None,
                   so_far: Callable[[Any], None] | None = None) -> None:
        """Merge the part of each listed path still there into `whole` (heads only: its heavy
        tables become LazyTables filled from the index file on demand). With `grown`, a file
        read again is parsed on from the cursor kept of it (only the lines it grew by).
        `progress` is told after each file read (else the process's watcher, `watch_builds`).

        The files to read are read newest first (by mtime). A build from nothing tells
        `so_far` the index of the files read so far (their heads, in an index of `whole`'s
        class, which grows after the call: read it there) as they land: after the first file,
        then when it has read twice as many (at most BATCH more) or SO_FAR_EVERY has passed
        while they are few, and after the last."""
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

        # Before the heavy tables become LazyTables filling `whole`: the index of a cold build's
        # files read so far starts as `whole` does.
        empty = copy.deepcopy(whole) if so_far is not None and not self._heads and not self.store.rows else None
        for column, names in (("body", whole.lazy), ("side", whole.side)):
            fill = filler(column)
            for name in names:
                setattr(whole, name, LazyTable(fill))
        paths = list(paths)
        known_paths(paths)  # the heads unpickled name them: the listing's Paths, not new ones
        signs = {str(path): (path, self._sign(path, signature)) for path in paths}
        reading = [(path, (self.store.cursor(key), keeps_cursor(path, key in self._heads or self.store.holds(key)))
                        if grown is not None else (None, False))
                   for key, (path, sign) in signs.items() if sign is not None and not self._known(key, sign)]
        # Newest first (the files an agent wrote last: the sessions a user looks for first); the
        # index is merged in the listed order all the same, so it is the one any order makes.
        stats = {str(path): stat_key(path) or (0, 0, 0) for path, _cursor in reading}
        reading.sort(key=lambda item: -stats[str(item[0])][1])
        todo = len(reading)
        partial = empty if todo > SO_FAR_FIRST else None  # a cold build's files read so far
        told, published = 1, time.monotonic()
        # On every core when there are many to read (a cold build); in the order given.
        parse = partial_of(parse_part, read, grown)
        sizes = [stats[str(p)][0] for p, _c in reading]
        parsed = newest_here(parse, reading, sizes) if partial is not None else read_parts(parse, reading, sizes)
        budget = KEEP_READ_BYTES
        fresh: dict[str, tuple[tuple[str, Any] | None, Any]] = {}  # path → (signature, head), whole part or None
        for done, (path, _cursor) in enumerate(reading, start=1):
            key = str(path)
            sign = signs[key][1]
            assert sign is not None
            part, blobs, cursor = next(parsed)
            self.reads += 1
            if blobs is None:  # parsed here
                known = (sign, light(part))
                blobs = part_blobs(part)
            else:  # by a worker
                known = (sign, loads(blobs[0]))
            own = stats[key] if stats[key] != (0, 0, 0) else None
            self.store.put(key, sign, own, *blobs, cursor)
            budget -= own[0] if own is not None else 0
            fresh[key] = (known, part if budget >= 0 else None)  # a worker's part: its tables are read when asked
            if partial is not None and so_far is not None:
                partial.merge(known[1])
                now = time.monotonic()
                if done in (told, todo) or (done < BATCH and now - published >= SO_FAR_EVERY):
                    so_far(partial)
                    told, published = max(told, min(done * 2, done + BATCH)), now
            if progress is not None:
                progress(done, todo)
            else:  # the watcher of this process's builds, if any, told as for every build
                tell_watcher(self.home, done, todo, None)
        kept: dict[str, tuple[str, Any]] = {}
        together = self._kept_heads() if not self._heads else {}
        for key, (path, sign) in signs.items():
            if sign is None:
                continue  # gone since it was listed
            held, whole_part = fresh.get(key) or (self._heads.get(key), None)
            if held is None or held[0] != sign:
                head = together.get((key, sign))
                held = (sign, head if head is not None else loads(self.store.head(key, sign)))
            kept[key] = held
            if whole.merge(whole_part if whole_part is not None else held[1]):
                owner.update((sid, (key, sign)) for sid in held[1].sessions)
                if whole_part is not None:  # its heavy and side tables are in already
                    loaded["body"].add(key)
                    loaded["side"].add(key)
        self._heads = kept
        # Every head in one blob again when a tenth of them (or more) are not in the one kept:
        # after a build from nothing, or once enough files were read again.
        listed = {key: sign for key, (sign, _head) in kept.items()}
        heads = None
        if kept and sum((key, sign) not in self._in_heads for key, sign in listed.items()) * 10 >= len(kept):
            self._in_heads = set(listed.items())
            heads = dumps({(key, sign): head for key, (sign, head) in kept.items()})
        self.store.finish(listed, heads)

    def _kept_heads(self) -> dict[tuple[str, str], Any]:
        """The heads kept in one blob ((path, signature) → head), {} when none is or it cannot
        be read (each head is read from its row then)."""
        heads: Any = None
        if self.store.heads is not None:
            try:
                heads = loads(self.store.heads)
            except Exception:  # noqa: BLE001 — a damaged blob: the rows hold every head too
                heads = None
        heads = heads if isinstance(heads, dict) else {}
        self._in_heads = set(heads)
        return heads

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
    return KeptParts(PartStore(path, parser_code(index_class)), Path(home))


def parser_code(index_class: type) -> str:
    """A digest of the code that reads and serves the parts of `index_class`: the index class's
    package (the agent's parser), this kit, and the core's model (memtui.core.sources.part_store.code_key)."""
    if index_class not in _CODE:
        core = Path(__file__).resolve().parent.parent
        agent = Path(sys.modules[index_class.__module__].__file__ or core).resolve().parent
        _CODE[index_class] = code_key(agent, core / "sources", core / "usage", core)
    return _CODE[index_class]
