"""The store's side of database statistics (memtui.core.stats): a store's file opened for a few
reads, and how the contents of checkpoint entries are stored — the columns they are referenced
by differ between schemas."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import peewee

from memtui.core.store.paths import locate
from memtui.core.store.schema import blob_columns, connect, open_error, probe

Query = Callable[..., list]  # (sql, params=()) -> rows, as AgentStore.query


@dataclass(frozen=True)
class ContentStat:
    """File contents of checkpoint entries: what they describe vs what is stored."""

    raw_bytes: int  # sum of entry before/after sizes: every content counted each time it is used
    unique_bytes: int  # the distinct contents entries use (blob sizes) plus inline legacy contents
    stored_bytes: int  # bytes on disk after compression and deltas (delta bases included)
    blobs: int
    entries: int

    @property
    def dedup_saved(self) -> int:
        return self.raw_bytes - self.unique_bytes

    @property
    def ratio(self) -> float:
        """stored / raw: the share of the described bytes that is kept (0.02 = 2 %)."""
        return self.stored_bytes / self.raw_bytes if self.raw_bytes else 1.0


@contextmanager
def database_reads(path: Path) -> Iterator[tuple[Query, Path]]:
    """Read-only statements on the store at `path` (a workspace or an agent.db), opened for the
    purpose and closed after, with its database file. Another program's database is refused, as
    every other verb does; one that is not SQLite, or locked, is one line (MemtuiError)."""
    db_path, _ = locate(Path(path), create=False)
    db = connect(db_path, readonly=True)
    try:
        probe(db, db_path)
        yield (lambda sql, params=(): db.execute_sql(sql, params).fetchall()), db_path
    except (sqlite3.DatabaseError, peewee.DatabaseError) as exc:
        raise open_error(exc, db_path) from None
    finally:
        db.close()


def _one(query: Query, sql: str, params: tuple = ()):
    return query(sql, params)[0][0]


def content_stat(query: Query, tables: set[str]) -> ContentStat | None:
    """How the contents of checkpoint entries are stored, in a store of any schema (None: one
    without entries); `tables` are the database's tables."""
    if "checkpoint_entry" not in tables:
        return None
    cols = {r[1] for r in query("PRAGMA table_info(checkpoint_entry)")}
    raw, entries = query(
        "SELECT COALESCE(SUM(COALESCE(before_size, 0) + COALESCE(after_size, 0)), 0), COUNT(*)"
        " FROM checkpoint_entry")[0]
    legacy = 0
    if {"before_legacy", "after_legacy"} <= cols:
        legacy = _one(query, "SELECT COALESCE(SUM(COALESCE(length(before_legacy), 0)"
                            " + COALESCE(length(after_legacy), 0)), 0) FROM checkpoint_entry")
        # Old-scheme rows may lack sizes: count their inline bytes as raw too.
        if not raw:
            raw = legacy
    unique = stored = blobs = 0
    # The columns the entries reference contents by (blob ids from schema 4, hashes in 2–3).
    refs = next((r for r in (blob_columns(4), blob_columns(2)) if {r.before, r.after} <= cols), None)
    if "blob" in tables and refs:
        key, before, after = refs
        stored, blobs = query("SELECT COALESCE(SUM(stored), 0), COUNT(*) FROM blob")[0]
        # Distinct contents the entries use (a base kept only for a delta is storage, not content).
        unique = _one(query, f"SELECT COALESCE(SUM(size), 0) FROM blob WHERE {key} IN"
                            f" (SELECT {before} FROM checkpoint_entry UNION SELECT {after} FROM checkpoint_entry)")
    return ContentStat(raw, unique + legacy, stored + legacy, blobs, entries)
