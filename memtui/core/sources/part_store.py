"""The persistent index of an agent's home: what each of its transcript files gave the index,
kept between runs in memtui's cache folder, so a run parses only the files that are new or
changed since the last one.

One SQLite file per home (`$XDG_CACHE_HOME/memtui/index/<kind>-<name>-<key>.db`, the folder
0700: the index holds the sessions' titles and prompts), its key the home's resolved path and
its device and inode; nothing is ever written in the agent's home. Per listed file it keeps:

- `sign`: what the file's part was read from (its size, mtime_ns and inode, and those of the
  files the agent's parser looked at beside it: a Claude Code session's sub-agents), and the
  file's own stat key and the byte offset parsed to;
- `head`: the part's light tables (sessions, each session's task rows, counts, problems):
  what a listing (`memtui log`, `sources`, the sessions pane, search's change check) reads;
- `side`: what usage reads of the part (each task's token counts by step, its handoffs), read
  a session at a time when its usage or cost is asked for;
- `body`: the whole part (turns and steps as byte offsets into the file, never payloads),
  read when one session's tasks, steps or changes are shown.

Beside the rows, `heads` keeps every part's head in one blob, as of the last build that wrote
it: a warm open reads that one blob (the heads share their strings and paths, a third of the
unpickling of each head alone) and a row's head only for a part it lacks.

The parts are the agent's own (each agent package supplies its parser and index classes);
this module only keeps them, pickled, keyed by the parser's code: an index written by other
code, a damaged file, or one of another layout is built again. A build from nothing is
written beside the index under a temporary name and renamed over it when complete, so kill -9
during it leaves the old index (or none) and a temporary file the next open removes; an
update of an existing index is one SQLite transaction per batch (a kill rolls it back).
"""

from __future__ import annotations

import copyreg
import hashlib
import io
import os
import pickle
import re
import sqlite3
import threading
from pathlib import Path, PurePath
from typing import Any, Iterable

import zstandard

from memtui.core.atomic import check_writes_allowed, fsync_dir, made_private, remove_stale_temps, temp_path
from memtui.core.errors import WritesForbidden
from memtui.core.places import cache_dir

LAYOUT = "5"
"""The layout of the file (its tables); the parser's code is keyed separately (`code_key`)."""
FOLDER = "index"
"""The folder of the homes' indexes under memtui's cache folder."""
BATCH = 64
"""Parts written per transaction when an index is updated in place."""

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE parts(path TEXT NOT NULL, sign TEXT NOT NULL, size INTEGER, mtime_ns INTEGER,
                   inode INTEGER, parsed_to INTEGER, head BLOB NOT NULL, side BLOB NOT NULL, body BLOB NOT NULL,
                   cursor BLOB, PRIMARY KEY (path, sign));
CREATE TABLE heads(id INTEGER PRIMARY KEY CHECK (id = 1), blob BLOB NOT NULL);
"""


def code_key(*folders: Path) -> str:
    """A digest of the Python sources in `folders`: a part pickled by other code (a field
    added to a turn, a parser that reads a record differently) is never served."""
    digest = hashlib.blake2b(digest_size=16)
    for folder in folders:
        for path in sorted(Path(folder).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def index_path(home: Path, kind: str, cache: Path | None = None, folder_name: str = FOLDER) -> Path | None:
    """Where the index of the store at `home` (opened as `kind`) is kept (or another file of the
    store's, under `folder_name` of memtui's cache folder), its folder made 0700; None when
    writes are forbidden (--read-only) or the folder cannot be made."""
    try:
        check_writes_allowed()
    except WritesForbidden:
        return None
    folder = (cache or cache_dir()) / folder_name
    home = Path(home).resolve()
    try:
        st = os.stat(home)
        if not made_private(folder):
            return None  # a link, or someone else's: nothing goes there
    except OSError:
        return None
    key = hashlib.sha256(f"{kind}\0{home}\0{st.st_dev}\0{st.st_ino}".encode("utf-8", "surrogateescape")).hexdigest()[:20]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", home.name.lstrip(".") or "root")[:40]
    return folder / f"{kind}-{name}-{key}.db"


class PartStore:
    """The index file of one home: read whole at open (signatures and heads), bodies on demand,
    changed parts written in batches, vanished ones dropped."""

    def __init__(self, path: Path, code: str) -> None:
        self.path = Path(path)
        self.code = code
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # the app's workers read bodies from several threads
        self._pid = os.getpid()  # the process the connection was opened in (`_reading`)
        self._inherited: list[sqlite3.Connection | None] = []
        self._pending: list[tuple] = []
        self._fresh: Path | None = None  # a build from nothing: the temporary file written
        self.rows: dict[tuple[str, str], bytes | None] = {}
        """(path, signature) → the part's head (pickled), of every row kept; None for a head not
        read from the file yet (`head`: the blob of all heads mostly serves them)."""
        self._paths: set[str] | None = None  # the paths of the rows read at open (`holds`)
        self._previous: set[tuple[str, str]] = set()  # the parts of the index served before the last build
        self.rebuilt = ""
        """Why the index was built from nothing this time ("" when it was read)."""
        self.heads: bytes | None = None
        """Every part's head in one blob ((path, signature) → head, pickled), as of the build
        that wrote it; None when none is kept."""

    # -- open ------------------------------------------------------------------------------
    def open(self) -> dict[tuple[str, str], bytes | None]:
        """The rows kept ((path, signature) → head); {} when the index is built from nothing this time
        (none yet, another layout or code, damaged): then it is written aside until `finish`."""
        remove_stale_temps(self.path.parent)  # a build killed before its rename
        reason = "no index yet"
        if self.path.exists():
            try:
                conn = self._connect(self.path)
                meta = dict(conn.execute("SELECT key, value FROM meta"))
                if meta.get("layout") == LAYOUT and meta.get("code") == self.code:
                    self.heads = next(iter(conn.execute("SELECT blob FROM heads WHERE id = 1").fetchone() or ()), None)
                    rows = "SELECT path, sign, NULL FROM parts" if self.heads is not None else "SELECT path, sign, head FROM parts"
                    self.rows = {(path, sign): head for path, sign, head in conn.execute(rows)}
                    self._conn = conn
                    return self.rows
                reason = "index of another version"
                conn.close()
            except sqlite3.DatabaseError:
                reason = "damaged index"
        self.rebuilt = reason
        self._fresh = temp_path(self.path)
        conn = self._connect(self._fresh, wal=False)
        conn.execute("PRAGMA journal_mode=OFF")  # a file of no use until it is complete and renamed into place
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(SCHEMA)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [("layout", LAYOUT), ("code", self.code)])
        self._conn = conn
        return self.rows

    @staticmethod
    def _connect(path: Path, wal: bool = True) -> sqlite3.Connection:
        """A connection to the index file: WAL, commits not synced (a kill loses nothing the
        next open cannot read again; a power cut at worst the last updates, read again too)."""
        conn = sqlite3.connect(str(path), timeout=5.0, isolation_level=None, check_same_thread=False)
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    # -- write -----------------------------------------------------------------------------
    def put(self, path: str, sign: str, own: tuple[int, int, int] | None, head: bytes, side: bytes, body: bytes,
            cursor: bytes | None = None) -> None:
        """Keep a part read now (written with its batch, or at `finish`); `cursor`: where its
        parse of the file stopped, and the parser's state there (a grown file goes on from it)."""
        size, mtime_ns, inode = own if own is not None else (None, None, None)
        self._pending.append((path, sign, size, mtime_ns, inode, size, head, side, body, cursor))
        self.rows[(path, sign)] = head
        if len(self._pending) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self._pending or self._conn is None:
            return
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany("INSERT OR REPLACE INTO parts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self._pending)
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        self._pending = []

    def finish(self, listed: dict[str, str], heads: bytes | None = None) -> None:
        """Write what is pending, drop the rows of files no longer listed (`listed`: path →
        signature of each part in the index built now), keep `heads` (every part's head in one
        blob) when given, and put a build from nothing in place (renamed over the old index).
        A file's row of the index served before this build is kept until the next one: a read
        of that index may still ask for its body."""
        current = set(listed.items())
        keep = current | self._previous
        self.rows = {row: head for row, head in self.rows.items() if row in keep}
        self._flush()
        if self._conn is None:
            return
        with self._lock:
            gone = [row for row in self._conn.execute("SELECT path, sign FROM parts") if tuple(row) not in keep]
            if gone or heads is not None:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    self._conn.executemany("DELETE FROM parts WHERE path = ? AND sign = ?", gone)
                    if heads is not None:
                        self._conn.execute("INSERT OR REPLACE INTO heads VALUES (1, ?)", (heads,))
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                if heads is not None:
                    self.heads = heads
        self._previous = current
        if self._fresh is not None:
            with self._lock:
                self._conn.close()
                fd = os.open(self._fresh, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(self._fresh, self.path)
                fsync_dir(self.path.parent)
                self._fresh = None
                self._conn = self._connect(self.path)

    # -- read ------------------------------------------------------------------------------
    def _reading(self) -> sqlite3.Connection | None:
        """The connection to read with: in a process forked from the one that opened the index,
        one of its own (the one inherited is the other process's: its locks are that process's,
        and it is never closed here, as closing it would drop them)."""
        if self._conn is not None and self._pid != os.getpid():
            self._inherited.append(self._conn)
            self._conn = self._connect(self.path)
            self._lock = threading.Lock()
            self._pid = os.getpid()
        return self._conn

    def head(self, path: str, sign: str) -> bytes:
        """The head of a row kept (KeyError: none is), read from the file when it was not at open."""
        head = self.rows[(path, sign)]
        if head is None:
            conn = self._reading()
            assert conn is not None
            with self._lock:
                row = conn.execute("SELECT head FROM parts WHERE path = ? AND sign = ?", (path, sign)).fetchone()
            if row is None:
                raise KeyError((path, sign))
            head = self.rows[(path, sign)] = row[0]
        return head

    def blob(self, path: str, sign: str, column: str) -> bytes | None:
        """The part of `path` as read with signature `sign`: its `column` ("side" or "body");
        None when the index now holds another (another process read the file again since)."""
        conn = self._reading()
        if conn is None or column not in ("side", "body"):
            return None
        with self._lock:
            row = conn.execute(f"SELECT {column} FROM parts WHERE path = ? AND sign = ?", (path, sign)).fetchone()
        return row[0] if row is not None else None

    def holds(self, path: str) -> bool:
        """Whether the index held a part of `path` when opened (a file read again changed)."""
        if self._paths is None:
            self._paths = {row_path for row_path, _sign in self.rows}
        return path in self._paths

    def cursor(self, path: str) -> bytes | None:
        """The cursor kept of `path`'s last parse (the newest of its rows), None when none is."""
        for pending in reversed(self._pending):
            if pending[0] == path and pending[9] is not None:
                return pending[9]
        if self._conn is None:
            return None
        with self._lock:
            row = self._conn.execute("SELECT cursor FROM parts WHERE path = ? AND cursor IS NOT NULL"
                                     " ORDER BY rowid DESC LIMIT 1", (path,)).fetchone()
        return row[0] if row is not None else None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        if self._fresh is not None:  # not finished: the temporary file goes
            self._fresh.unlink(missing_ok=True)
            self._fresh = None


class _Codecs(threading.local):
    """Each thread's zstd contexts, made when the thread first asks (a context costs more to make
    than a part's compression; one is never used by two threads at once)."""

    def __init__(self) -> None:
        self.pair = (zstandard.ZstdCompressor(level=1), zstandard.ZstdDecompressor())


_codecs = _Codecs()


def _codec() -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
    """This thread's zstd contexts."""
    return _codecs.pair


PATHS_KEPT = 65_536
"""Paths `path_of` keeps at most (then it starts again)."""
_paths: dict[str, Path] = {}


def path_of(text: str) -> Path:
    """The path `text` names, made once: the heads of a home's parts name the same home and
    folders thousands of times, and each its transcript, which the home's listing made already
    (`known_paths`); making a Path parses it (16 µs on Python 3.11)."""
    path = _paths.get(text)
    if path is None:
        if len(_paths) >= PATHS_KEPT:
            _paths.clear()
        path = _paths[text] = Path(text)
    return path


def known_paths(paths: Iterable[Path]) -> None:
    """Paths made already (a store's files as listed): what is unpickled next names them as these."""
    for path in paths:
        _paths.setdefault(str(path), path)


def _reduce_path(path: PurePath) -> tuple:
    return path_of, (os.fspath(path),)


_DISPATCH = {**copyreg.dispatch_table, type(Path()): _reduce_path}
"""How a part is pickled: as pickle does, a path as its text (`path_of`)."""


def dumps(part: object) -> bytes:
    """A part pickled and compressed (zstd's level 1: smaller than zlib's fastest level, and
    four times faster to compress and to decompress; a parser's kept state, its uuids, costs
    zlib more than its pickling). Paths are pickled as their text (`path_of`)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(part)
    return _codec()[0].compress(out.getbuffer())


def loads(blob: bytes) -> Any:
    """A part written by `dumps` (the index is memtui's own file in a 0700 folder of this user)."""
    return pickle.loads(_codec()[1].decompress(blob))
