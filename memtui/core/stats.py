"""Database size and freelist statistics.

`db_stats` reads only: file and WAL sizes, the page figures SQLite keeps in its header,
bytes and rows per table and per index (from the `dbstat` virtual table when this SQLite
has it, otherwise row counts with no per-b-tree bytes), and how file contents are stored
(raw bytes the entries describe, bytes after dedup, bytes actually stored). After a GC the
freed pages sit on the freelist; memtui.core.vacuum has the actions that return them.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import peewee

from memtui.core.display import human_bytes
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability, MemorySource
from memtui.core.store import AgentStore
from memtui.core.sqlite_readonly import connect_readonly
from memtui.core.store.stats_queries import ContentStat, Query, content_stat, database_reads

AUTO_VACUUM = {0: "none", 1: "full", 2: "incremental"}
VACUUM_HINT_SHARE = 0.25  # suggest VACUUM when a quarter of the file is free pages…
VACUUM_HINT_BYTES = 1024 * 1024  # …and that is worth at least a MiB


@dataclass(frozen=True)
class TableStat:
    name: str
    rows: int
    bytes: int | None  # None when dbstat is missing
    pages: int | None


@dataclass(frozen=True)
class IndexStat:
    name: str
    table: str
    bytes: int | None
    pages: int | None


@dataclass(frozen=True)
class DbStats:
    path: str
    file_bytes: int
    wal_bytes: int
    page_size: int
    page_count: int
    freelist_count: int
    auto_vacuum: str
    journal_mode: str
    dbstat: bool
    tables: tuple[TableStat, ...] = ()
    indexes: tuple[IndexStat, ...] = ()
    content: ContentStat | None = None
    overhead_bytes: int = 0  # pages dbstat does not attribute (header, pointer-map pages)

    @property
    def freelist_bytes(self) -> int:
        return self.freelist_count * self.page_size

    @property
    def freelist_share(self) -> float:
        return self.freelist_count / self.page_count if self.page_count else 0.0

    @property
    def vacuum_hint(self) -> str | None:
        """A sentence when VACUUM would give much space back, else None."""
        if self.freelist_share >= VACUUM_HINT_SHARE and self.freelist_bytes >= VACUUM_HINT_BYTES:
            how = (" (or an incremental vacuum, which needs no extra space)"
                   if self.auto_vacuum == "incremental" else "")
            return (f"{self.freelist_share:.0%} of the file ({human_bytes(self.freelist_bytes)}) is free pages:"
                    f" VACUUM would return them to the disk{how}")
        return None

    def to_json(self) -> dict:
        """The `memtui stats --json` document."""
        content = None
        if self.content is not None:
            c = self.content
            content = {"raw_bytes": c.raw_bytes, "unique_bytes": c.unique_bytes, "stored_bytes": c.stored_bytes,
                       "dedup_saved_bytes": c.dedup_saved, "blobs": c.blobs, "entries": c.entries}
        return {
            "path": self.path, "file_bytes": self.file_bytes, "wal_bytes": self.wal_bytes,
            "page_size": self.page_size, "page_count": self.page_count,
            "freelist_count": self.freelist_count, "freelist_bytes": self.freelist_bytes,
            "auto_vacuum": self.auto_vacuum, "journal_mode": self.journal_mode, "dbstat": self.dbstat,
            "tables": [{"name": t.name, "bytes": t.bytes, "rows": t.rows, "pages": t.pages} for t in self.tables],
            "indexes": [{"name": i.name, "table": i.table, "bytes": i.bytes, "pages": i.pages}
                        for i in self.indexes],
            "content": content,
            "vacuum_hint": self.vacuum_hint,
        }


def db_stats(source: "AgentStore | str | Path", use_dbstat: bool = True) -> DbStats:
    """Statistics of an open store, or of a database file opened read-only for the purpose."""
    if isinstance(source, AgentStore):
        return _stats(source.query, source.db_path, use_dbstat)
    if isinstance(source, MemorySource):  # another agent's store: one line, not a TypeError
        source.require_declared(Capability.STATS)
    with database_reads(Path(source)) as (query, db_path):
        return _stats(query, db_path, use_dbstat)


def sqlite_file_stats(path: Path, use_dbstat: bool = True) -> DbStats:
    """The same statistics of another program's SQLite file (an agent's database), opened
    read-only for the purpose without a byte of it changed (memtui.core.sqlite_readonly: no
    lock, no -wal/-shm created where no log is pending)."""
    conn = connect_readonly(path)
    try:
        return _stats(lambda sql, params=(): conn.execute(sql, params).fetchall(), Path(path), use_dbstat)
    except sqlite3.DatabaseError as exc:
        raise MemtuiError(f"{path}: cannot read its statistics ({exc})") from None
    finally:
        conn.close()


def _one(query: Query, sql: str, params: tuple = ()):
    return query(sql, params)[0][0]


def has_dbstat(query: Query) -> bool:
    try:
        query("SELECT 1 FROM dbstat LIMIT 1")
        return True
    except (sqlite3.Error, peewee.DatabaseError):
        return False


def _stats(query: Query, db_path: Path, use_dbstat: bool) -> DbStats:
    wal = Path(f"{db_path}-wal")
    page_size = _one(query, "PRAGMA page_size")
    page_count = _one(query, "PRAGMA page_count")
    freelist = _one(query, "PRAGMA freelist_count")
    objects = query(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
    tables = [n for t, n, _ in objects if t == "table"]
    names = [*tables, "sqlite_schema"]  # the schema b-tree takes pages too
    dbstat = use_dbstat and has_dbstat(query)
    per_tree: dict[str, tuple[int, int, int]] = {}  # name -> (bytes, pages, leaf cells)
    if dbstat:
        for name, size, pages, cells in query(
                "SELECT name, SUM(pgsize), COUNT(*), SUM(CASE WHEN pagetype = 'leaf' THEN ncell ELSE 0 END)"
                " FROM dbstat GROUP BY name"):
            per_tree[name] = (size, pages, cells)
    table_stats = []
    for name in names:
        if dbstat:
            size, pages, cells = per_tree.get(name, (0, 0, 0))
            # A rowid table's leaf cells are its rows; WITHOUT ROWID tables live in an index b-tree.
            table_stats.append(TableStat(name, cells, size, pages))
        else:
            source = "sqlite_master" if name == "sqlite_schema" else name
            table_stats.append(TableStat(name, _one(query, f'SELECT COUNT(*) FROM "{source}"'), None, None))
    index_stats = []
    for kind, name, table in objects:
        if kind == "index":
            size, pages, _ = per_tree.get(name, (0, 0, 0)) if dbstat else (None, None, None)
            index_stats.append(IndexStat(name, table, size, pages))
    attributed = sum(v[1] for v in per_tree.values())
    overhead = (page_count - freelist - attributed) * page_size if dbstat else 0
    return DbStats(
        path=str(db_path),
        file_bytes=db_path.stat().st_size if db_path.exists() else 0,
        wal_bytes=wal.stat().st_size if wal.exists() else 0,
        page_size=page_size, page_count=page_count, freelist_count=freelist,
        auto_vacuum=AUTO_VACUUM.get(_one(query, "PRAGMA auto_vacuum"), "?"),
        journal_mode=_journal_mode(query, db_path),
        dbstat=dbstat,
        tables=tuple(sorted(table_stats, key=lambda t: (-(t.bytes or 0), -t.rows, t.name))),
        indexes=tuple(sorted(index_stats, key=lambda i: (-(i.bytes or 0), i.name))),
        content=content_stat(query, set(tables)),
        overhead_bytes=max(0, overhead),
    )


def _journal_mode(query: Query, db_path: Path) -> str:
    """The persistent mode: a read-only (immutable) connection reports "delete" for a WAL
    database, so read the file header's format bytes (2 = WAL) first."""
    try:
        with open(db_path, "rb") as fh:
            header = fh.read(20)
        if len(header) == 20 and header[18] == 2 and header[19] == 2:
            return "wal"
    except OSError:
        pass
    return _one(query, "PRAGMA journal_mode")
