"""Opening agent.db: connection settings, schema version, migrations.

Schema history (PRAGMA user_version):
  1  the older scheme: checkpoint entries hold their contents inline (zlib BLOB or TEXT).
  2  content-addressed blobs with skip-delta chains (blob, path_version; entry hashes).
A database from a newer memtui is refused; an older one is browsed as it is and upgraded
when it is opened for writing.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import peewee
from peewee import SqliteDatabase
from playhouse.migrate import SqliteMigrator, migrate

from memtui.core.errors import MemtuiError, NotAStore, SchemaTooNew, StoreLocked, StoreNotFound
from memtui.core.sqlite_readonly import readonly_uri

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 5000
CORE_TABLES = ("session", "task", "step", "checkpoint", "checkpoint_entry")


def connect(db_path: Path, readonly: bool) -> SqliteDatabase:
    """A peewee database for `db_path`; thread-local connections, pragmas on each."""
    if readonly:
        # mode=ro sees what a live agent commits (it may create the -wal/-shm side files, never
        # touching the database file). Where the folder is not writable and no -shm exists,
        # SQLite could not open that way: read the file as immutable instead.
        can_share = os.access(db_path.parent, os.W_OK) or Path(f"{db_path}-shm").exists()
        return SqliteDatabase(
            readonly_uri(db_path, immutable=not can_share), uri=True, check_same_thread=False,
            pragmas={"busy_timeout": BUSY_TIMEOUT_MS, "query_only": 1},
        )
    return SqliteDatabase(
        str(db_path), check_same_thread=False,
        pragmas={
            # First: it only takes effect before the first table exists (a new file).
            "auto_vacuum": "incremental",
            "busy_timeout": BUSY_TIMEOUT_MS,
            "foreign_keys": 1,
            "journal_mode": "wal",
            "synchronous": "normal",
        },
    )


def probe(db: SqliteDatabase, db_path: Path) -> tuple[int, set[str]]:
    """(user_version, table names) — or a clear error for a file that is not a usable store."""
    try:
        version = db.execute_sql("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in db.execute_sql("SELECT name FROM sqlite_master WHERE type='table'")}
    except (sqlite3.DatabaseError, peewee.DatabaseError) as exc:
        raise open_error(exc, db_path) from None
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
        return NotAStore(f"{db_path} is not a SQLite database")
    if "unable to open" in text:
        return StoreNotFound(f"cannot open {db_path}")
    return NotAStore(f"{db_path}: {text}")


def create(db: SqliteDatabase, models) -> None:
    """A new store: all tables and the schema version (auto_vacuum was set on connect)."""
    with db.atomic():
        db.create_tables(models.all)
        db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def upgrade(db: SqliteDatabase, models, version: int) -> None:
    """Bring an older store up to SCHEMA_VERSION, one step per version, in one transaction."""
    migrator = SqliteMigrator(db)
    with db.atomic():
        if version < 2:
            db.create_tables([models.Blob, models.PathVersion], safe=True)
            entry = models.Entry
            migrate(
                migrator.add_column("checkpoint_entry", "before_hash", entry.before_hash),
                migrator.add_column("checkpoint_entry", "after_hash", entry.after_hash),
            )
            db.create_tables([models.Entry], safe=True)  # creates any missing indexes
        db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
