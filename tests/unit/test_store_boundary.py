"""The store's boundary: public reads (`query`, `snapshot`), the one way to write
(`writer()`), never creating a store from a file that is not one, and read-only use that
leaves no side files."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo
from memtui.core.errors import NotAStore, ReadOnlyStore, StoreNotFound
from memtui.core.gc import plan_gc, preview_rows
from memtui.core.stats import db_stats
from memtui.core.store import AgentStore

FIXED = datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def _side_files(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name != db.name and p.name.startswith(db.name))


def _store(tmp_path: Path) -> Path:
    with AgentStore.open(tmp_path) as store:
        task = store.start_task(store.start_session("s"), "t")
        store.record_checkpoint(task, None, {"a.txt": (b"old\n", b"new\n")})
        store.finish_task(task, "completed")
    db = tmp_path / ".agent" / "agent.db"
    assert _side_files(db) == []  # closing the last connection folds the log into the file
    return db


# ------------------------------------------------------------------------ writer()
def test_a_read_only_store_writes_through_its_writer_with_its_clock(tmp_path):
    _store(tmp_path)
    with AgentStore.open(tmp_path, readonly=True, clock=lambda: FIXED, content_limit=1234) as ro:
        with pytest.raises(ReadOnlyStore, match="writer"):
            ro.pin(1)
        assert not ro.task(1).pinned  # the read connection is open while the writer writes
        with ro.writer() as w:
            assert w is not ro and not w.readonly and w.content_limit == 1234
            w.pin(1)
            session = w.start_session("stamped")
        assert ro.task(1).pinned  # the reader sees the write at once
        assert ro.session(session).created_at == FIXED


def test_a_writable_store_is_its_own_writer(tmp_path):
    _store(tmp_path)
    with AgentStore.open(tmp_path) as store, store.writer() as w:
        assert w is store


def test_the_writer_never_creates_a_store(tmp_path):
    db = _store(tmp_path)
    with AgentStore.open(tmp_path, readonly=True) as ro:
        ro.sessions()
        db.unlink()
        with pytest.raises(StoreNotFound):
            with ro.writer():
                pass
    assert not db.exists()


def test_query_is_read_only_even_on_a_writer(tmp_path):
    _store(tmp_path)
    with AgentStore.open(tmp_path) as store:
        assert store.query("SELECT COUNT(*) FROM task") == [(1,)]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.query("DELETE FROM task")
        store.pin(1)  # and writing still works afterwards
        assert store.task(1).pinned and store.query("SELECT COUNT(*) FROM task") == [(1,)]


def test_snapshot_reads_one_state(tmp_path):
    _store(tmp_path)
    with AgentStore.open(tmp_path, readonly=True) as ro, AgentStore.open(tmp_path) as rw:
        with ro.snapshot():
            before = ro.query("SELECT COUNT(*) FROM session")
            rw.start_session("meanwhile")
            assert ro.query("SELECT COUNT(*) FROM session") == before
        assert ro.query("SELECT COUNT(*) FROM session") != before


# --------------------------------------------------------- never create from a non-store
@pytest.mark.parametrize("argv", [["pin", "{p}", "1"], ["vacuum", "{p}"], ["vacuum", "{p}", "--checkpoint"],
                                  ["gc", "{p}", "--apply"], ["gc", "{p}"], ["rollback", "{p}", "--task", "1"]])
def test_an_empty_agent_db_is_refused_by_every_verb(tmp_path, capsys, argv):
    db = tmp_path / ".agent" / "agent.db"
    db.parent.mkdir()
    db.touch()
    assert main([a.format(p=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("memtui: ") and "no memtui store" in err, err
    assert db.stat().st_size == 0 and _side_files(db) == []


def test_the_recorder_does_not_turn_an_empty_file_into_a_store(tmp_path):
    db = tmp_path / ".agent" / "agent.db"
    db.parent.mkdir()
    db.touch()
    with pytest.raises(NotAStore, match="no memtui store"):
        AgentStore.open(tmp_path)
    with pytest.raises(NotAStore):
        AgentStore.open(db)
    assert db.stat().st_size == 0 and _side_files(db) == []


def test_a_new_store_appears_whole(tmp_path):
    with AgentStore.open(tmp_path) as store:
        assert store.counts()["sessions"] == 0
    names = sorted(p.name for p in (tmp_path / ".agent").iterdir())
    assert names == ["agent.db"]  # no temp file left from building it


# ------------------------------------------------------------ read-only: no side files
def test_read_only_use_creates_no_side_files(tmp_path, capsys):
    root = build_demo(tmp_path / "demo")
    db = root / ".agent" / "agent.db"
    assert _side_files(db) == []
    with AgentStore.open(root, readonly=True) as store:
        with store.reading():
            for s in store.sessions():
                for t in store.tasks(s.id):
                    for cp in store.checkpoints(t.id):
                        for e in store.checkpoint_entries(cp.id):
                            store.read_entry(e.id)
        preview_rows(store, plan_gc(store))
        db_stats(store)
        assert _side_files(db) == []
    for argv in (["gc", str(root)], ["stats", str(root)], ["sources", str(root)], ["search", str(root), "test"]):
        assert main(argv) == 0, argv
        assert [n for n in _side_files(db)] == [], argv
    capsys.readouterr()


def test_read_only_reads_a_live_log_and_creates_nothing_beside_it(tmp_path):
    db = _store(tmp_path)
    with AgentStore.open(tmp_path) as writer:
        writer.start_session("live")  # a running agent: the row is in agent.db-wal
        live = _side_files(db)
        assert live == ["agent.db-shm", "agent.db-wal"]
        with AgentStore.open(tmp_path, readonly=True) as reader:
            assert "live" in {s.title for s in reader.sessions()}
        assert _side_files(db) == live
