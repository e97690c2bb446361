"""Database statistics and the explicit space-returning actions."""

from __future__ import annotations

import sqlite3

import pytest

from gc_fixtures import healthy, new_store, task_with_edit, version
from memtui.core.errors import MemtuiError
from memtui.core.gc import apply_gc
from memtui.core.stats import db_stats
from memtui.core.vacuum import incremental_vacuum, vacuum, vacuum_estimate, wal_checkpoint


@pytest.fixture
def filled(tmp_path):
    """A store of 30 finished tasks, each with one edit (GC would collect all but the newest)."""
    store = new_store(tmp_path)
    s = store.start_session("s")
    for i in range(30):
        t = store.start_task(s, f"t{i}")
        step = store.record_step(t, "edit", {"i": i}, "payload " * 300)
        store.record_checkpoint(t, step, {"a.py": (version(i), version(i + 1)), "same.txt": (None, b"same\n" * 50)})
        store.finish_task(t, "completed")
    yield store
    store.close()


def _pragma(path, name):
    with sqlite3.connect(path) as conn:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]


def test_figures_equal_the_pragmas(filled):
    stats = db_stats(filled)
    assert stats.page_size == _pragma(filled.db_path, "page_size")
    assert stats.page_count == _pragma(filled.db_path, "page_count")
    assert stats.freelist_count == _pragma(filled.db_path, "freelist_count")
    assert stats.freelist_bytes == stats.freelist_count * stats.page_size
    assert stats.auto_vacuum == "incremental" and stats.journal_mode == "wal"
    assert stats.wal_bytes == (filled.db_path.parent / "agent.db-wal").stat().st_size
    assert stats.file_bytes == filled.db_path.stat().st_size


def test_rows_and_bytes_per_table_and_index(filled):
    stats = db_stats(filled)
    assert stats.dbstat
    for table in stats.tables:
        source = "sqlite_master" if table.name == "sqlite_schema" else table.name
        assert table.rows == filled.query(f'SELECT COUNT(*) FROM "{source}"')[0][0], table.name
        assert table.bytes == table.pages * stats.page_size
    names = {i.name: i.table for i in stats.indexes}
    assert names["checkpoint_entry_before_blob"] == "checkpoint_entry"
    used = sum(t.pages for t in stats.tables) + sum(i.pages for i in stats.indexes)
    assert used + stats.freelist_count + stats.overhead_bytes // stats.page_size == stats.page_count
    fallback = db_stats(filled, use_dbstat=False)
    assert not fallback.dbstat
    assert {t.name: t.rows for t in fallback.tables} == {t.name: t.rows for t in stats.tables}
    assert all(t.bytes is None for t in fallback.tables)


def test_content_raw_dedup_and_stored(filled):
    c = db_stats(filled).content
    sizes = filled.query("SELECT SUM(COALESCE(before_size, 0) + COALESCE(after_size, 0)) FROM checkpoint_entry")[0][0]
    assert c.raw_bytes == sizes and c.entries == 60
    assert c.unique_bytes == filled.query("SELECT SUM(size) FROM blob")[0][0]  # no GC yet: every blob is used
    assert c.dedup_saved > 29 * 250  # same.txt stored once, each after is the next before
    assert c.stored_bytes == filled.query("SELECT SUM(stored) FROM blob")[0][0] < c.unique_bytes
    assert 0 < c.ratio < 0.5


def test_stats_of_a_path_never_write_the_database(filled, tmp_path):
    filled.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = filled.db_path
    filled.close()
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    stats = db_stats(tmp_path / "ws")  # read-only: side files may appear, the database is untouched
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert stats.page_count == _pragma(path, "page_count")


def test_gc_fills_the_freelist_and_vacuum_gives_it_back(filled):
    task_with_edit(filled, filled.start_session("live"), "current", finish=None)
    assert db_stats(filled).vacuum_hint is None
    result = apply_gc(filled)
    assert result.freelist_after > result.freelist_before
    stats = db_stats(filled)
    assert stats.freelist_count == result.freelist_after
    estimate = vacuum_estimate(stats)
    assert estimate["returns_bytes"] == stats.freelist_bytes
    fractions = []
    done = vacuum(filled, progress=fractions.append)
    assert done.freelist_after == 0 and done.file_bytes_after < done.file_bytes_before
    assert done.bytes_returned >= stats.freelist_bytes
    assert fractions[-1] == 1.0 and fractions == sorted(fractions)
    assert healthy(filled)


def test_vacuum_hint_when_much_is_free(tmp_path):
    store = new_store(tmp_path)
    s = store.start_session("s")
    for i in range(12):
        t = store.start_task(s, f"t{i}")
        store.record_step(t, "big", {}, "z" * 200_000)
        store.finish_task(t, "completed")
    apply_gc(store)
    hint = db_stats(store).vacuum_hint
    assert hint and "VACUUM" in hint and "incremental" in hint


def test_cancelled_vacuum_changes_nothing(filled):
    task_with_edit(filled, filled.start_session("live"), "current", finish=None)
    apply_gc(filled)
    free = db_stats(filled).freelist_count
    with pytest.raises(MemtuiError, match="cancelled"):
        vacuum(filled, cancel=lambda: True)
    assert db_stats(filled).freelist_count == free and healthy(filled)


def test_incremental_vacuum_and_checkpoint(filled):
    task_with_edit(filled, filled.start_session("live"), "current", finish=None)
    apply_gc(filled)
    free = db_stats(filled).freelist_count
    part = incremental_vacuum(filled, 2)
    assert part.freelist_before == free and part.freelist_after == free - 2
    rest = incremental_vacuum(filled)
    assert rest.freelist_after == 0
    cp = wal_checkpoint(filled)
    assert cp.wal_bytes_after == 0 and not cp.detail["busy"]
    assert healthy(filled)


def test_incremental_vacuum_needs_the_mode(tmp_path):
    store = new_store(tmp_path)
    store.execute("PRAGMA auto_vacuum = NONE")  # as an older store made without it
    store.execute("VACUUM")
    assert db_stats(store).auto_vacuum == "none"
    with pytest.raises(MemtuiError, match="auto_vacuum=incremental"):
        incremental_vacuum(store)


def test_a_truncating_checkpoint_reports_the_frames_it_moved(filled):
    filled.execute("PRAGMA wal_autocheckpoint = 0")
    s = filled.start_session("after")
    for i in range(10):
        filled.start_task(s, f"more {i}")
    cp = wal_checkpoint(filled)
    assert cp.detail["wal_frames"] > 0 and cp.detail["checkpointed_frames"] == cp.detail["wal_frames"]
    assert cp.wal_bytes_after == 0
    frames = cp.detail["wal_frames"]
    assert cp.summary() == f"Checkpoint: {frames:,} of {frames:,} frames moved; log now 0 B"
