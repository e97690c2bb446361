"""Opening agent.db: connection settings, schema version, migrations.

Schema history (PRAGMA user_version):
  1  the older scheme: checkpoint entries hold their contents inline (zlib BLOB or TEXT).
  2  content-addressed blobs with skip-delta chains (blob, path_version; entry hashes).
  3  per-task counters (steps, payload bytes, checkpoints, entries, content bytes, inline
     bytes) on the task row, kept by every writer; the upgrade counts them once.
  4  compact metadata: blobs have an integer id that entries and deltas reference (the hash
     stays on the blob, for dedup and verification); a blob carries its path and version
     (path_version is gone, paths are kept once in `path`); partial indexes only where a query
     needs them (no index on entry paths or step times).
  5  the content hash is indexed by its first 8 bytes (`blob_hash_prefix`) instead of whole:
     a lookup compares the whole hash on the row (BY_HASH), and the index is 40% the size.
  6  an entry names its path by id (`checkpoint_entry.path_id` → `path`, where contents already
     kept each path once) instead of repeating the text: entries take ~45% fewer bytes. New
     deltas are zstd frames without the magic number and content size (content.ZSTD_MAGIC).
     A path row counts its versions and names its newest blob, so blob versions are indexed
     only where shallow enough to be a base a writer looks up (`blob_shallow`, SHALLOW). The
     hash prefix indexed is 4 bytes.
  7  frames are kept in packs (memtui.core.store.packs): a blob row names its pack and offset
     instead of holding its frame once sealed; new frames stay loose in the row until they add
     up to a pack. The file is ~5% smaller after VACUUM (less unused page space).
  8  `blob_shallow` indexes only the versions that start a run (version % RUN = 0): the only
     ones a writer looks up by version (content.base_versions; inside a run it takes the
     path's newest blob), a third of the index it was.
A database from a newer memtui is refused; an older one is browsed as it is (readers ask
`blob_columns(version)` for the columns that reference contents) and upgraded when it is
opened for writing (memtui.core.store.migrate: one transaction, old schema or new, never a mix).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

import peewee
from peewee import SqliteDatabase

from memtui.core.atomic import fsync_dir, temp_path
from memtui.core.content import MAX_CHAIN, RUN
from memtui.core.errors import MemtuiError, NotAStore, ReadOnlyStore, SchemaTooNew, StoreLocked, StoreNotFound, damaged
from memtui.core.paths import stat_key
from memtui.core.sqlite_readonly import BUSY_TIMEOUT_MS, is_sqlite, readonly_uri
from memtui.core.store.models import build_models

SCHEMA_VERSION = 8

# Write amplification (tests/bench/recorder.py). Every commit appends each page it dirtied to
# the write-ahead log, whole; a recorded step dirties a handful (its row and index leaves, the
# task's counters, the session's activity time), so the page size sets the bytes written per
# step far more than the payload does. 1 KiB pages write ~2.3x fewer bytes per recorded call
# than SQLite's default 4 KiB (and the file is a little smaller: step payloads pack into
# overflow pages with less slack); reads measured no slower on a 3,000-task demo store. A
# store made with other pages keeps them (SQLite cannot change it in WAL mode).
PAGE_SIZE = 1024
# Pages in the log before SQLite copies it back into the file: the same 4 MiB log as SQLite's
# default of 1000 pages of 4 KiB, so hot pages are copied back no more often than before.
WAL_AUTOCHECKPOINT = 4000
COUNTERS = ("step_count", "step_bytes", "checkpoint_count", "entry_count", "entry_bytes", "legacy_bytes")

# The bytes of inline legacy (schema 1) contents of the joined entries `e`.
SUM_LEGACY_SQL = ("COALESCE(SUM(CASE typeof(e.before_legacy) WHEN 'blob' THEN length(e.before_legacy)"
                  " WHEN 'text' THEN length(CAST(e.before_legacy AS BLOB)) ELSE 0 END"
                  " + CASE typeof(e.after_legacy) WHEN 'blob' THEN length(e.after_legacy)"
                  " WHEN 'text' THEN length(CAST(e.after_legacy AS BLOB)) ELSE 0 END), 0)")
SUM_CONTENT_SQL = "COALESCE(SUM(COALESCE(e.before_size, 0) + COALESCE(e.after_size, 0)), 0)"
CORE_TABLES = ("session", "task", "step", "checkpoint", "checkpoint_entry")

# The blobs that start a run and are shallow enough to be the base of a later run's first
# version or of a new path's first content (content.base_versions, KIN_DEPTH): the only ones
# looked up by path and version besides a path's newest (path.newest_blob). A query names this
# condition as it is, so that SQLite uses blob_shallow (schema 8; every shallow version in 6–7:
# 3x the entries). Measured on 1,500 commits of a real history: index 19 → 7 KiB, and new
# paths' first contents, which take a related path's newest such blob as base, 0.5% smaller.
SHALLOW = f"depth <= {MAX_CHAIN - RUN} AND version % {RUN} = 0"

# Indexes peewee's Meta cannot declare (partial ones); made by `create` and the upgrade.
INDEXES = (
    "CREATE INDEX IF NOT EXISTS blob_hash_prefix ON blob (substr(hash, 1, 4))",
    f"CREATE UNIQUE INDEX IF NOT EXISTS blob_shallow ON blob (path_id, version) WHERE {SHALLOW}",
    "CREATE INDEX IF NOT EXISTS blob_base ON blob (base) WHERE base IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS blob_loose ON blob (stored) WHERE pack IS NULL",
    "CREATE INDEX IF NOT EXISTS checkpoint_entry_before_blob ON checkpoint_entry (before_blob)"
    " WHERE before_blob IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS checkpoint_entry_after_blob ON checkpoint_entry (after_blob)"
    " WHERE after_blob IS NOT NULL",
)

# A blob by its content hash, with by_hash(h) as parameters: the first 4 bytes find it through
# blob_hash_prefix (schema 6; 8 bytes in 5: by_hash_sql), the whole hash is compared on the
# row; on older stores the whole-hash index (4) or primary key (2–3) answers the same
# condition. The writer looks a content up before inserting it, inside its write transaction,
# so each hash is stored once. (4 bytes: a lookup meets another content's row once in 4e9/n.)
BY_HASH = "substr(hash, 1, 4) = ? AND hash = ?"


def by_hash(content_hash: bytes, version: int = SCHEMA_VERSION) -> tuple[bytes, bytes]:
    return content_hash[:8 if version == 5 else 4], content_hash


def by_hash_sql(version: int) -> str:
    """BY_HASH for a store of schema `version` (one browsed read-only may be older)."""
    return "substr(hash, 1, 8) = ? AND hash = ?" if version == 5 else BY_HASH


class BlobColumns(NamedTuple):
    """How entries and deltas reference a content in a given schema: `key` is the blob's column
    they hold (the integer id from schema 4, the 32-byte hash in 2–3), `before`/`after` the
    entry's columns. On a schema-1 store there are no blobs (`key` is None)."""

    key: str | None
    before: str | None
    after: str | None


def entry_path(version: int) -> str:
    """The SQL expression for the path of the entry `e` in a store of schema `version`."""
    return "(SELECT path FROM path WHERE id = e.path_id)" if version >= 6 else "e.path"


def blob_columns(version: int) -> BlobColumns:
    if version >= 4:
        return BlobColumns("id", "before_blob", "after_blob")
    if version >= 2:
        return BlobColumns("hash", "before_hash", "after_hash")
    return BlobColumns(None, None, None)


class _ReadOnlyDatabase(SqliteDatabase):
    """Read-only connections that decide, each time one opens, how to read the file.

    With no write-ahead log beside the database (no live writer, nothing pending) the file
    is opened `immutable`: no locks and no `-wal`/`-shm` side files created. With a log and
    its shared-memory index present (an agent is recording, or just did), `mode=ro` reads
    what it commits without creating anything. A log without its index (a writer crashed)
    is read too where the folder is writable; SQLite then creates the `-shm` index, the one
    case where reading leaves a side file.
    """

    def __init__(self, db_path: Path, **kwargs) -> None:
        self.db_path = db_path
        super().__init__(readonly_uri(db_path, immutable=True), uri=True, **kwargs)

    def _connect(self) -> sqlite3.Connection:
        immutable = not reads_log(self.db_path)
        conn = sqlite3.connect(readonly_uri(self.db_path, immutable=immutable), timeout=self._timeout,
                               isolation_level=None, factory=_Connection, **self.connect_params)
        conn.immutable = immutable
        conn.file_key = stat_key(self.db_path)
        try:
            self._add_conn_hooks(conn)
        except Exception:
            conn.close()
            raise
        return conn

    def refresh(self) -> None:
        """Before a read outside a transaction: an immutable connection is dropped once a writer
        has started (a log appeared), so the next read sees it through `mode=ro` instead of
        reading a file that is changing under an immutable view."""
        conn = self._state.conn
        if conn is not None and conn.immutable and not self.in_transaction() and (
                reads_log(self.db_path) or conn.file_key != stat_key(self.db_path)):
            self.close()  # a log appeared, or a writer came and went since (the file changed)


class _Connection(sqlite3.Connection):
    immutable = False
    file_key: tuple[int, int] | None = None  # the file's (size, mtime) when it was opened


def reads_log(db_path: Path) -> bool:
    """Whether a read-only open must read a write-ahead log (see _ReadOnlyDatabase)."""
    wal, shm = Path(f"{db_path}-wal"), Path(f"{db_path}-shm")
    try:
        wal_bytes = wal.stat().st_size
    except OSError:
        return False
    if shm.exists():
        return True
    return wal_bytes > 0 and os.access(db_path.parent, os.W_OK)


def connect(db_path: Path, readonly: bool, create: bool = False) -> SqliteDatabase:
    """A peewee database for `db_path`; thread-local connections, pragmas on each.

    Read-only: see _ReadOnlyDatabase. Writing: `mode=rw`, so SQLite never creates a file
    that is not there (only `create=True`, for a new store's temp file, may).
    """
    if readonly:
        return _ReadOnlyDatabase(db_path, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000,
                                 pragmas={"busy_timeout": BUSY_TIMEOUT_MS, "query_only": 1})
    mode = "rwc" if create else "rw"
    return SqliteDatabase(
        f"file:{quote(str(Path(db_path).resolve()))}?mode={mode}", uri=True, check_same_thread=False,
        timeout=BUSY_TIMEOUT_MS / 1000,  # the first pragmas already wait for a lock: the same wait
        pragmas={
            # First: these two only take effect before the first table exists (a new file).
            "page_size": PAGE_SIZE,
            "auto_vacuum": "incremental",
            "busy_timeout": BUSY_TIMEOUT_MS,
            "foreign_keys": 1,
            "journal_mode": "wal",
            "synchronous": "normal",
            "wal_autocheckpoint": WAL_AUTOCHECKPOINT,
        },
    )


def probe(db: SqliteDatabase, db_path: Path) -> tuple[int, set[str]]:
    """(user_version, table names) — or a clear error for a file that is not a usable store."""
    try:
        version = db.execute_sql("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in db.execute_sql("SELECT name FROM sqlite_master WHERE type='table'")}
    except (sqlite3.DatabaseError, peewee.DatabaseError) as exc:
        raise open_error(exc, db_path) from None
    except UnicodeDecodeError:  # a damaged page of the schema table: names that are not text
        raise damaged(db_path, "its table names do not read as text") from None
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"{db_path} was written by a newer memtui (schema {version}, this one reads up to "
            f"{SCHEMA_VERSION}); upgrade memtui to open it"
        )
    if tables and not set(CORE_TABLES) <= tables:
        raise NotAStore(f"{db_path} is a SQLite database but not a memtui store")
    return version, tables


def probe_file(db_path: Path) -> tuple[int, set[str]]:
    """`probe` through a read-only connection of its own, which changes nothing in the file."""
    db = connect(db_path, readonly=True)
    try:
        return probe(db, db_path)
    finally:
        db.close()


def open_error(exc: Exception, db_path: Path) -> MemtuiError:
    """The one-line error for a SQLite failure while opening `db_path`."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreLocked(f"{db_path} is locked by another process")
    if "not a database" in text or "malformed" in text:
        if is_sqlite(db_path):  # SQLite's own header, then pages it cannot read
            return damaged(db_path, text)
        return NotAStore(f"{db_path} is not a SQLite database")
    if "unable to open" in text:
        if db_path.exists() and not (os.access(db_path, os.W_OK) and os.access(db_path.parent, os.W_OK)):
            return ReadOnlyStore(f"cannot write {db_path}: permission denied (the file or its folder is read-only)")
        return StoreNotFound(f"cannot open {db_path}")
    return NotAStore(f"{db_path}: {text}")


def create_file(db_path: Path) -> None:
    """A new, empty store at `db_path`, built in a temp file beside it and linked into place,
    so a crash never leaves a half-made or empty agent.db. If another process created the
    store meanwhile, theirs stays."""
    tmp = temp_path(db_path)  # with the pid: the next open for writing sweeps it once this process is gone
    try:
        db = connect(tmp, readonly=False, create=True)
        try:
            create(db, build_models(db))
        finally:
            db.close()  # the last connection checkpoints the log into the file and removes it
        try:
            os.link(tmp, db_path)  # never replaces: an existing file wins
        except FileExistsError:
            pass
        except OSError:  # a filesystem without hard links
            if not db_path.exists():
                os.rename(tmp, db_path)
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
    fsync_dir(db_path.parent)


def create(db: SqliteDatabase, models) -> None:
    """A new store: all tables and the schema version (auto_vacuum was set on connect)."""
    with db.atomic():
        db.create_tables(models.all)
        for statement in INDEXES:
            db.execute_sql(statement)
        db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def recount(db: SqliteDatabase) -> None:
    """Set every task's counters from its rows (three grouped scans; the schema-3 upgrade)."""
    db.execute_sql(
        "UPDATE task SET step_count = s.n, step_bytes = s.b FROM (SELECT task_id, COUNT(*) AS n,"
        " COALESCE(SUM(payload_bytes), 0) AS b FROM step GROUP BY task_id) AS s WHERE s.task_id = task.id")
    db.execute_sql(
        "UPDATE task SET checkpoint_count = c.n FROM (SELECT task_id, COUNT(*) AS n FROM checkpoint"
        " GROUP BY task_id) AS c WHERE c.task_id = task.id")
    db.execute_sql(
        f"UPDATE task SET entry_count = x.n, entry_bytes = x.b, legacy_bytes = x.l FROM (SELECT c.task_id,"
        f" COUNT(*) AS n, {SUM_CONTENT_SQL} AS b, {SUM_LEGACY_SQL} AS l FROM checkpoint c"
        f" JOIN checkpoint_entry e ON e.checkpoint_id = c.id GROUP BY c.task_id) AS x WHERE x.task_id = task.id")
