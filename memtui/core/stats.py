"""Database size and freelist statistics, and the explicit space-returning actions.

`db_stats` reads only: file and WAL sizes, the page figures SQLite keeps in its header,
bytes and rows per table and per index (from the `dbstat` virtual table when this SQLite
has it, otherwise row counts with no per-b-tree bytes), and how file contents are stored
(raw bytes the entries describe, bytes after dedup, bytes actually stored). After a GC the
freed pages sit on the freelist and are reused by new writes; `vacuum` (rewrites the whole
file, needs about twice the space meanwhile) and `incremental_vacuum` (gives back freelist
pages from the end of the file, auto_vacuum=INCREMENTAL only) return them to the disk. None
of these ever runs implicitly.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import peewee

from memtui.core.display import human_bytes
from memtui.core.errors import MemtuiError
from memtui.core.store.schema import blob_columns

if TYPE_CHECKING:
    from memtui.core.store import AgentStore

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
            return (f"{self.freelist_share:.0%} of the file ({_mib(self.freelist_bytes)}) is free pages:"
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


def _mib(n: int) -> str:
    return f"{n / 1048576:.1f} MiB"


def db_stats(source: "AgentStore | str | Path", use_dbstat: bool = True) -> DbStats:
    """Statistics of an open store, or of a database file opened read-only for the purpose."""
    from memtui.core.store import AgentStore

    if isinstance(source, AgentStore):
        return _stats(source.query, source.db_path, use_dbstat)
    from memtui.core.store import locate
    from memtui.core.store.schema import connect, open_error

    db_path, _ = locate(Path(source), create=False)
    db = connect(db_path, readonly=True)
    try:
        return _stats(lambda sql, params=(): db.execute_sql(sql, params).fetchall(), db_path, use_dbstat)
    except (sqlite3.DatabaseError, peewee.DatabaseError) as exc:  # not SQLite, or locked: one line
        raise open_error(exc, db_path) from None
    finally:
        db.close()


Query = Callable[..., list]  # (sql, params=()) -> rows, as AgentStore.query


def _one(query: Query, sql: str, params: tuple = ()):
    return query(sql, params)[0][0]


def _raw(conn: sqlite3.Connection, sql: str) -> int:
    return conn.execute(sql).fetchone()[0]


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
        content=_content(query, set(tables)),
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


def _content(query: Query, tables: set[str]) -> ContentStat | None:
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


# ---------------------------------------------------------------------- actions
@dataclass
class VacuumResult:
    kind: str  # "vacuum" | "incremental" | "checkpoint"
    file_bytes_before: int
    file_bytes_after: int
    freelist_before: int
    freelist_after: int
    wal_bytes_after: int = 0
    seconds: float = 0.0
    detail: dict = field(default_factory=dict)

    @property
    def bytes_returned(self) -> int:
        return self.file_bytes_before - self.file_bytes_after

    def to_json(self) -> dict:
        return {"kind": self.kind, "file_bytes_before": self.file_bytes_before,
                "file_bytes_after": self.file_bytes_after, "bytes_returned": self.bytes_returned,
                "freelist_before": self.freelist_before, "freelist_after": self.freelist_after,
                "wal_bytes_after": self.wal_bytes_after, "seconds": round(self.seconds, 3), **self.detail}

    def summary(self) -> str:
        """One line for the app's toast and the CLI: what the action did."""
        if self.kind == "checkpoint":  # memtui's stores always have a write-ahead log
            moved, frames = (max(0, self.detail.get(k, 0)) for k in ("checkpointed_frames", "wal_frames"))
            return (f"Checkpoint: {moved:,} of {frames:,} frames moved; log now {human_bytes(self.wal_bytes_after)}"
                    + (" (a reader holds the rest: try again when it is done)" if self.detail.get("busy") else ""))
        name = "VACUUM" if self.kind == "vacuum" else "Incremental vacuum"
        return (f"{name}: {human_bytes(self.file_bytes_before)} → {human_bytes(self.file_bytes_after)}"
                f" ({human_bytes(max(0, self.bytes_returned))} returned); freelist {self.freelist_before:,} →"
                f" {self.freelist_after:,} pages")


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def vacuum_estimate(stats: DbStats) -> dict[str, int]:
    """What VACUUM will roughly return (the freelist; partly empty pages come on top) and the
    temporary space it needs (a copy of the used pages)."""
    used = (stats.page_count - stats.freelist_count) * stats.page_size
    return {"returns_bytes": stats.freelist_bytes, "temporary_bytes": used, "result_bytes": used}


def vacuum(store: "AgentStore", progress: Callable[[float], None] | None = None,
           cancel: Callable[[], bool] | None = None) -> VacuumResult:
    """VACUUM, then a TRUNCATE checkpoint so the file really shrinks (WAL mode writes the new
    copy through the log). `progress(fraction)` is an estimate from SQLite's progress
    handler; `cancel()` returning True aborts VACUUM, which leaves the database unchanged."""
    with store.writer() as writer:
        return _vacuum(writer, writer.connection(), progress, cancel)


def _vacuum(store: "AgentStore", conn: sqlite3.Connection, progress: Callable[[float], None] | None,
            cancel: Callable[[], bool] | None) -> VacuumResult:
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()  # so the file size is the database's
    before_bytes = _size(store.db_path)
    before_free = _raw(conn, "PRAGMA freelist_count")
    used_pages = max(1, _raw(conn, "PRAGMA page_count") - before_free)
    started = time.monotonic()
    ticks = [0]
    # ~ VM steps per used page, measured on demo stores; only shapes the progress bar.
    expected = used_pages * 160
    every = 100  # SQLite counts steps per statement, and VACUUM runs one small one per table

    def handler() -> int:
        ticks[0] += 1
        if progress is not None and ticks[0] % 64 == 0:
            progress(min(0.99, ticks[0] * every / expected))
        return 1 if cancel is not None and cancel() else 0

    if progress is not None or cancel is not None:
        conn.set_progress_handler(handler, every)
    try:
        conn.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        if "interrupt" in str(exc):
            raise MemtuiError("VACUUM cancelled; the database is unchanged") from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    if progress is not None:
        progress(1.0)
    return VacuumResult("vacuum", before_bytes, _size(store.db_path), before_free,
                        _raw(conn, "PRAGMA freelist_count"), _size(Path(f"{store.db_path}-wal")),
                        time.monotonic() - started)


def incremental_vacuum(store: "AgentStore", pages: int | None = None) -> VacuumResult:
    """Give up to `pages` freelist pages (all when None) back to the disk, then checkpoint.
    Only a database created with auto_vacuum=INCREMENTAL can do this."""
    with store.writer() as writer:
        return _incremental_vacuum(writer, writer.connection(), pages)


def _incremental_vacuum(store: "AgentStore", conn: sqlite3.Connection, pages: int | None) -> VacuumResult:
    mode = AUTO_VACUUM.get(_raw(conn, "PRAGMA auto_vacuum"), "?")
    if mode != "incremental":
        raise MemtuiError(f"incremental vacuum needs auto_vacuum=incremental; this database has {mode}"
                          " (run a full VACUUM instead)")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    before_bytes = _size(store.db_path)
    before_free = _raw(conn, "PRAGMA freelist_count")
    started = time.monotonic()
    target = before_free if pages is None else min(before_free, max(0, int(pages)))
    done = 0
    while done < target:
        # Python's sqlite3 steps this pragma once, which frees one page: loop, in short
        # transactions of up to 1,000 pages so a concurrent writer never waits long.
        with store.transaction():
            for _ in range(min(1000, target - done)):
                conn.execute("PRAGMA incremental_vacuum(1)").fetchall()
                done += 1
        if _raw(conn, "PRAGMA freelist_count") >= before_free - done + 1:
            break  # nothing more moves (should not happen): do not spin
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return VacuumResult("incremental", before_bytes, _size(store.db_path), before_free,
                        _raw(conn, "PRAGMA freelist_count"), _size(Path(f"{store.db_path}-wal")),
                        time.monotonic() - started)


def wal_checkpoint(store: "AgentStore", mode: str = "TRUNCATE") -> VacuumResult:
    """Copy the WAL into the database file (and truncate it); reports busy if readers hold it."""
    mode = mode.upper()
    if mode not in ("PASSIVE", "FULL", "RESTART", "TRUNCATE"):
        raise ValueError(f"unknown checkpoint mode {mode!r}")
    with store.writer() as writer:
        return _wal_checkpoint(writer.connection(), store.db_path, mode)


def _wal_checkpoint(conn: sqlite3.Connection, db_path: Path, mode: str) -> VacuumResult:
    before = _size(db_path)
    free = _raw(conn, "PRAGMA freelist_count")
    started = time.monotonic()
    # A TRUNCATE (or RESTART) that succeeds reports 0 frames: it has emptied the log. A passive
    # pass first counts the log's frames and moves what it can, so the result says how many moved.
    busy, log, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    if mode != "PASSIVE":
        busy = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()[0]
        done = log if not busy else done
    return VacuumResult("checkpoint", before, _size(db_path), free, free,
                        _size(Path(f"{db_path}-wal")), time.monotonic() - started,
                        {"busy": bool(busy), "wal_frames": log, "checkpointed_frames": done})
