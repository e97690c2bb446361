"""The native store: recorder semantics, read-only browsing, schema versions, clear errors."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from memtui import AgentStore
from memtui.core.demo import DemoClock, build_demo
from memtui.core.errors import NotAStore, ReadOnlyStore, SchemaTooNew, StoreLocked, StoreNotFound
from memtui.core.store import schema


def test_new_store_settings(store):
    assert store.db_path.name == "agent.db" and store.db_path.parent.name == ".agent"
    assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    assert store.query("PRAGMA foreign_keys")[0][0] == 1
    assert store.query("PRAGMA auto_vacuum")[0][0] == 2  # incremental, never full
    assert store.query("PRAGMA busy_timeout")[0][0] >= 1000
    assert store.query("PRAGMA user_version")[0][0] == schema.SCHEMA_VERSION
    # Small pages: each commit logs every page it dirtied, whole (tests/bench/recorder.py).
    assert store.query("PRAGMA page_size")[0][0] == schema.PAGE_SIZE == 1024
    assert store.query("PRAGMA wal_autocheckpoint")[0][0] == schema.WAL_AUTOCHECKPOINT


def test_start_task_supersedes_only_a_finished_previous_task(any_store):
    store = any_store  # SQLite and PostgreSQL alike
    sid = store.start_session("s")
    t1 = store.start_task(sid, "one")
    t2 = store.start_task(sid, "two")  # t1 still running: not superseded
    assert store.task(t1).status == "running" and not store.task(t1).superseded
    store.finish_task(t2, "failed", "broke")
    t3 = store.start_task(sid, "three")
    assert store.task(t2).superseded and store.task(t2).status == "failed"
    assert {(r.from_task, r.to_task, r.kind) for r in store.references(t2)} == {(t3, t2, "supersedes")}
    assert store.sessions()[0].current_task_id == t3


def test_handoff_across_sessions_and_orphans(any_store):
    store = any_store  # SQLite and PostgreSQL alike
    s1, s2 = store.start_session("parent"), store.start_session("child")
    parent = store.start_task(s1, "p")
    child = store.start_task(s2, "c", parent_task_id=parent)
    store.close_session(s2)
    assert (parent, child, "handoff") in {(r.from_task, r.to_task, r.kind) for r in store.references(parent)}
    store.delete_session(s1)
    assert [t.id for t in store.tasks(None)] == [parent]
    assert store.task(parent).session_id is None


def test_questions_move_the_task_between_waiting_and_running(any_store):
    store = any_store  # SQLite and PostgreSQL alike
    t = store.start_task(store.start_session("s"), "t")
    q = store.ask(t, "0.3 or 1.0?")
    assert store.task(t).status == "waiting_user"
    store.answer(q, "0.3")
    assert store.task(t).status == "running"
    assert store.questions(t)[0].answer == "0.3"


def test_steps_keep_json_values_and_totals(any_store):
    store = any_store  # SQLite and PostgreSQL alike
    t = store.start_task(store.start_session("s"), "t")
    store.record_step(t, "search", {"q": "x", "n": [1, 2]}, {"hits": []}, tokens_in=10, tokens_out=5, cost=0.5)
    sid = store.record_step(t, "run", "cmd", None, status="error", error="boom", duration_ms=7)
    steps = store.steps(t)
    assert [s.seq for s in steps] == [1, 2]
    assert steps[0].args == {"q": "x", "n": [1, 2]} and steps[1].error == "boom"
    cp = store.record_checkpoint(t, sid, {"a.txt": (None, b"x")})
    assert store.steps(t, offset=1)[0].checkpoint_id == cp
    assert store.step_totals(t) == {"steps": 2, "tokens_in": 10, "tokens_out": 5, "cost": 0.5, "duration_ms": 7}


@pytest.mark.parametrize("bad", ["/etc/passwd", "../outside.txt", "a/../../b", "C:/x", "", "./"])
def test_escaping_paths_are_refused(any_store, bad):
    store = any_store  # SQLite and PostgreSQL alike
    t = store.start_task(store.start_session("s"), "t")
    with pytest.raises(ValueError):
        store.record_checkpoint(t, None, {bad: (None, b"x")})
    assert store.counts()["checkpoints"] == 0


def test_paths_are_normalised(any_store):
    store = any_store  # SQLite and PostgreSQL alike
    t = store.start_task(store.start_session("s"), "t")
    cp = store.record_checkpoint(t, None, {"./src//a.py": (None, b"x"), "src\\b.py": (b"y", None)})
    assert [(e.path, e.kind) for e in store.checkpoint_entries(cp)] == [("src/a.py", "added"), ("src/b.py", "deleted")]


def test_clock_makes_timestamps_deterministic(tmp_path):
    fixed = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with AgentStore.open(tmp_path, clock=lambda: fixed) as s:
        s.start_session("x")
        assert s.sessions()[0].created_at == fixed


def _fingerprint(path):
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def _browse_everything(store):
    for s in store.sessions():
        for t in store.tasks(s.id):
            store.references(t.id), store.steps(t.id), store.messages(t.id), store.questions(t.id)
            for cp in store.checkpoints(t.id):
                for e in store.checkpoint_entries(cp.id):
                    store.read_entry(e.id)
    store.tasks(None)
    store.counts()


def test_read_only_browsing_never_modifies_the_file(tmp_path):
    root = build_demo(tmp_path / "demo")
    db = root / ".agent" / "agent.db"
    assert not (root / ".agent" / "agent.db-wal").exists()
    before = _fingerprint(db)
    with AgentStore.open(root, readonly=True) as store:
        _browse_everything(store)
        with pytest.raises(ReadOnlyStore):
            store.start_session("nope")
    assert _fingerprint(db) == before


def test_read_only_store_sees_what_a_live_writer_commits(tmp_path):
    with AgentStore.open(tmp_path) as writer:
        writer.start_session("first")
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        with AgentStore.open(tmp_path, readonly=True) as reader:
            assert [s.title for s in reader.sessions()] == ["first"]
            writer.start_session("second")
            assert sorted(s.title for s in reader.sessions()) == ["first", "second"]


def test_read_only_with_a_live_wal(tmp_path):
    with AgentStore.open(tmp_path) as writer:
        writer.start_session("live")
        with AgentStore.open(tmp_path, readonly=True) as reader:
            assert [s.title for s in reader.sessions()] == ["live"]


def test_missing_store_in_read_only_mode_is_a_clear_error(tmp_path):
    with pytest.raises(StoreNotFound, match="memtui demo"):
        AgentStore.open(tmp_path, readonly=True)
    assert not (tmp_path / ".agent").exists()


def test_not_a_sqlite_file(tmp_path):
    bogus = tmp_path / "agent.db"
    bogus.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(NotAStore):
        AgentStore.open(bogus, readonly=True)


def test_other_sqlite_database_is_not_a_store(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(NotAStore, match="not a memtui store"):
        AgentStore.open(other, readonly=True)


def test_newer_schema_is_refused(tmp_path):
    with AgentStore.open(tmp_path) as s:
        s.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="newer memtui"):
        AgentStore.open(tmp_path)


def test_locked_database_is_a_clear_error(tmp_path, monkeypatch):
    with AgentStore.open(tmp_path) as s:
        s.start_session("x")
    monkeypatch.setattr(schema, "BUSY_TIMEOUT_MS", 50)
    holder = sqlite3.connect(tmp_path / ".agent" / "agent.db")
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreLocked):
            AgentStore.open(tmp_path)
    finally:
        holder.rollback()
        holder.close()


V1_DDL = """
CREATE TABLE session (id INTEGER PRIMARY KEY, title TEXT, status TEXT, current_task_id INTEGER,
  created_at REAL, updated_at REAL, closed_at REAL);
CREATE TABLE task (id INTEGER PRIMARY KEY, session_id INTEGER REFERENCES session(id) ON DELETE SET NULL,
  title TEXT, status TEXT, pinned INTEGER DEFAULT 0, summary TEXT DEFAULT '', created_at REAL,
  updated_at REAL, finished_at REAL, collected_at REAL);
CREATE TABLE task_ref (id INTEGER PRIMARY KEY, from_task INTEGER REFERENCES task(id) ON DELETE CASCADE,
  to_task INTEGER REFERENCES task(id) ON DELETE CASCADE, kind TEXT);
CREATE TABLE step (id INTEGER PRIMARY KEY, task_id INTEGER REFERENCES task(id) ON DELETE CASCADE, seq INTEGER,
  tool TEXT, status TEXT, tokens_in INTEGER, tokens_out INTEGER, cost REAL, duration_ms INTEGER,
  payload_bytes INTEGER, created_at REAL, error TEXT, args TEXT, result TEXT);
CREATE TABLE checkpoint (id INTEGER PRIMARY KEY, task_id INTEGER REFERENCES task(id) ON DELETE CASCADE,
  step_id INTEGER REFERENCES step(id) ON DELETE SET NULL, label TEXT DEFAULT '', created_at REAL);
CREATE TABLE checkpoint_entry (id INTEGER PRIMARY KEY,
  checkpoint_id INTEGER REFERENCES checkpoint(id) ON DELETE CASCADE, path TEXT, before_size INTEGER,
  after_size INTEGER, before_legacy, after_legacy);
CREATE TABLE message (id INTEGER PRIMARY KEY, task_id INTEGER, role TEXT, content TEXT, created_at REAL);
CREATE TABLE question (id INTEGER PRIMARY KEY, task_id INTEGER, question TEXT, answer TEXT, created_at REAL,
  answered_at REAL);
INSERT INTO session VALUES (1, 'old session', 'closed', 1, 1.0e9, 1.0e9, 1.0e9);
INSERT INTO task VALUES (1, 1, 'old task', 'completed', 0, 'done', 1.0e9, 1.0e9, 1.0e9, NULL);
INSERT INTO checkpoint VALUES (1, 1, NULL, '', 1.0e9);
PRAGMA user_version = 1;
"""


def test_older_schema_is_browsed_read_only_then_upgraded_for_writing(tmp_path):
    import zlib

    db = tmp_path / ".agent" / "agent.db"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.executescript(V1_DDL)
    con.execute("INSERT INTO checkpoint_entry VALUES (1, 1, 'a.py', 6, 4, ?, ?)",
                (zlib.compress(b"old a\n"), "new\n"))
    con.commit()
    con.close()
    before = _fingerprint(db)
    with AgentStore.open(tmp_path, readonly=True) as ro:
        assert ro.needs_upgrade
        (entry,) = ro.checkpoint_entries(1)
        assert entry.kind == "modified"
        assert ro.read_entry(1) == (b"old a\n", b"new\n")
    assert _fingerprint(db) == before
    with AgentStore.open(tmp_path) as rw:
        assert not rw.needs_upgrade
        assert rw.query("PRAGMA user_version")[0][0] == schema.SCHEMA_VERSION
        assert rw.read_entry(1) == (b"old a\n", b"new\n")
        t = rw.start_task(rw.start_session("new"), "new task")
        cp = rw.record_checkpoint(t, None, {"a.py": (b"new\n", b"newer\n")})
        assert rw.read_entry(rw.checkpoint_entries(cp)[0].id) == (b"new\n", b"newer\n")


def test_core_imports_no_ui_libraries():
    code = (
        "import sys, memtui.core.store, memtui.core.content, memtui.core.demo, memtui.cli\n"
        "import pkgutil, importlib, memtui.core\n"
        "for m in pkgutil.walk_packages(memtui.core.__path__, 'memtui.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
