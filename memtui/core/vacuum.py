"""The explicit space-returning actions over a store: VACUUM, incremental vacuum and a WAL checkpoint.

After a GC the freed pages sit on the freelist (memtui.core.stats shows them) and are reused by
new writes; `vacuum` (rewrites the whole file, needs about twice the space meanwhile) and
`incremental_vacuum` (gives back freelist pages from the end of the file, auto_vacuum=INCREMENTAL
only) return them to the disk; `wal_checkpoint` copies the write-ahead log into the file. None of
these ever runs implicitly; each goes through the store's one writer.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from memtui.core.display import human_bytes
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability
from memtui.core.stats import AUTO_VACUUM, DbStats

if TYPE_CHECKING:
    from memtui.core.store import AgentStore

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


def _raw(conn: sqlite3.Connection, sql: str) -> int:
    return conn.execute(sql).fetchone()[0]


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
    store.require_declared(Capability.VACUUM)
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
    store.require_declared(Capability.VACUUM)
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
    store.require_declared(Capability.VACUUM)
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
