"""Read-only SQLite: the URI both memtui's own store and other agents' stores open with.

Another program's database is opened without changing a byte of it (`connect_readonly`).
`mode=ro` alone still lets SQLite create `-wal`/`-shm` files beside a WAL database (and
RA.Aid's pk.db is WAL). When there is no write-ahead log with pending pages we open with
`immutable=1`: no locks, no side files. When a non-empty `-wal` exists, its rows matter
(the agent may be running), so we open `mode=ro`, which reads them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from memtui.core.atomic import check_writes_allowed

BUSY_TIMEOUT_MS = 5000  # how long any memtui connection waits for another process's lock


def readonly_uri(path: Path, *, immutable: bool) -> str:
    """The `file:` URI that opens `path` read-only; `immutable` also skips locks and never
    creates side files, but does not see a write-ahead log's pages."""
    params = "mode=ro&immutable=1" if immutable else "mode=ro"
    return f"file:{quote(str(Path(path).resolve()))}?{params}"


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to another program's SQLite file at `path`."""
    path = Path(path).resolve()
    wal = path.with_name(path.name + "-wal")
    has_log = wal.exists() and wal.stat().st_size > 0
    conn = sqlite3.connect(readonly_uri(path, immutable=not has_log), uri=True, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def connect_readwrite(path: Path) -> sqlite3.Connection:
    """The write connection to another program's existing SQLite file (RA.Aid's curate): never
    creates one (`mode=rw`), waits out a lock like memtui's own store does, and leaves the
    transactions to the caller (autocommit; the caller runs BEGIN IMMEDIATE)."""
    check_writes_allowed(path)
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=rw"
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)


def is_sqlite(path: Path) -> bool:
    """True if the file starts with SQLite's header."""
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def table_names(conn: sqlite3.Connection) -> set[str]:
    """The names of the tables in the database."""
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def truncation(path: Path) -> str | None:
    """Why a SQLite file is visibly cut short, or None: its header says how many pages the
    database has, and the file holds fewer (a copy or a download that stopped midway).
    Reads 100 bytes; SQLite itself would only notice on reaching a missing page."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return None
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid = header[24:28] == header[92:96]  # the page count is trusted only when these agree
    if valid and pages and size < pages * page_size:
        return f"truncated: {size:,} of {pages * page_size:,} bytes"
    return None
