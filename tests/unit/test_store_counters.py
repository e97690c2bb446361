"""Per-task counters (schema 3): kept exact by every writer, counted once by the upgrade, and
the paged session list built on them."""

from __future__ import annotations

import sqlite3

from gc_fixtures import new_store, task_with_edit
from store_versions import as_schema_2

from memtui.core.demo import build_demo
from memtui.core.gc import apply_gc, plan_gc
from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.core.store import AgentStore
from memtui.core.store.schema import COUNTERS, SCHEMA_VERSION, SUM_CONTENT_SQL, SUM_LEGACY_SQL

RECOUNT = f"""
SELECT t.id,
  (SELECT COUNT(*) FROM step s WHERE s.task_id = t.id),
  (SELECT COALESCE(SUM(payload_bytes), 0) FROM step s WHERE s.task_id = t.id),
  (SELECT COUNT(*) FROM checkpoint c WHERE c.task_id = t.id),
  (SELECT COUNT(*) FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id WHERE c.task_id = t.id),
  (SELECT {SUM_CONTENT_SQL} FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id
    WHERE c.task_id = t.id),
  (SELECT {SUM_LEGACY_SQL} FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id
    WHERE c.task_id = t.id)
FROM task t ORDER BY t.id
"""


def counters(store: AgentStore) -> list[tuple]:
    return store.query(f"SELECT id, {', '.join(COUNTERS)} FROM task ORDER BY id")


def test_every_writer_keeps_the_counters_exact(tmp_path):
    root = build_demo(tmp_path / "demo", scale=300)
    with AgentStore.open(root) as store:
        assert counters(store) == store.query(RECOUNT)  # the recorder
        assert any(c[1] for c in counters(store)) and any(c[4] for c in counters(store))
        result = apply_gc(store, max_tasks=40)  # GC empties the tasks it collects
        assert result.tasks == 40
        assert counters(store) == store.query(RECOUNT)


def test_an_undo_that_drops_unwritten_files_keeps_the_counters(tmp_path):
    store = new_store(tmp_path)
    s = store.start_session("s")
    t = task_with_edit(store, s, "one", path="a.py", before=b"a0\n", after=b"a1\n")
    store.record_checkpoint(t, None, {"b.py": (b"b0\n", b"b1\n"), "c.py": (None, b"c1\n")})
    cp = store.record_checkpoint(t, None, {"a.py": (b"x\n", b"y\n"), "b.py": (b"x\n", b"yy\n")}, label="undo")
    assert store.remove_entries(cp, ["b.py"]) == 1
    assert counters(store) == store.query(RECOUNT)
    root = tmp_path / "ws"
    (root / "a.py").write_bytes(b"a1\n")
    plan = plan_rollback(store, root=root, task=t)
    apply_rollback(store, plan)
    assert counters(store) == store.query(RECOUNT)
    store.close()


def test_a_schema_2_store_reads_the_same_and_upgrades_to_exact_counters(tmp_path):
    root = build_demo(tmp_path / "demo", scale=200)
    with AgentStore.open(root, readonly=True) as now:
        want_sessions = now.sessions()
        want_tasks = [now.tasks(s.id) for s in want_sessions] + [now.tasks(None)]
        want_plan = plan_gc(now).to_json()
        want_counters = counters(now)
    as_schema_2(root / ".agent" / "agent.db")
    with AgentStore.open(root, readonly=True) as old:  # browsed as it is, nothing written
        assert old.needs_upgrade and old.schema_version == 2
        assert old.sessions() == want_sessions
        assert [old.tasks(s.id) for s in want_sessions] + [old.tasks(None)] == want_tasks
        assert plan_gc(old).to_json() == want_plan
    with AgentStore.open(root) as upgraded:
        assert upgraded.query("PRAGMA user_version") == [(SCHEMA_VERSION,)]
        assert counters(upgraded) == want_counters == upgraded.query(RECOUNT)
        assert upgraded.sessions() == want_sessions
        assert upgraded.query("PRAGMA integrity_check") == [("ok",)]


def test_sessions_page_through_every_session_with_current_titles(tmp_path):
    root = build_demo(tmp_path / "demo", scale=300)
    with AgentStore.open(root, readonly=True) as store:
        everything = store.sessions()
        assert store.session_count() == len(everything) > 40
        pages = [store.sessions(offset, 7) for offset in range(0, len(everything), 7)]
        assert [s for page in pages for s in page] == everything
        assert all(len(page) == 7 for page in pages[:-1])
        for s in everything:
            title = store.task(s.current_task_id).title if s.current_task_id is not None else ""
            assert s.current_title == title
            assert store.session(s.id) == s
        for s in everything[:10]:  # step payloads plus raw entry contents of its tasks
            steps = store.query("SELECT COALESCE(SUM(payload_bytes), 0) FROM step WHERE task_id IN"
                                " (SELECT id FROM task WHERE session_id = ?)", (s.id,))[0][0]
            content = store.query(f"SELECT {SUM_CONTENT_SQL} FROM checkpoint_entry e JOIN checkpoint c"
                                  " ON c.id = e.checkpoint_id WHERE c.task_id IN"
                                  " (SELECT id FROM task WHERE session_id = ?)", (s.id,))[0][0]
            assert s.stored_bytes == steps + content


def test_a_schema_1_store_upgrades_with_its_inline_bytes_counted(tmp_path):
    import zlib

    from test_store import V1_DDL

    db = tmp_path / ".agent" / "agent.db"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.executescript(V1_DDL)
    old = zlib.compress(b"old a\n")
    con.execute("INSERT INTO checkpoint_entry VALUES (1, 1, 'a.py', 6, 4, ?, ?)", (old, "new\n"))
    con.commit()
    con.close()
    with AgentStore.open(tmp_path) as store:
        assert counters(store) == store.query(RECOUNT) == [(1, 0, 0, 1, 1, 10, len(old) + 4)]
        assert plan_gc(store).reclaimable[0].payload_bytes == len(old) + 4


def _figures_of(plan) -> dict[str, int]:
    return {"live": len(plan.live), "reclaimable": len(plan.reclaimable), "reclaimable_bytes": plan.reclaimable_bytes}


def test_header_figures_without_a_plan_equal_the_plans(tmp_path):
    from memtui.core.gc import gc_figures

    root = build_demo(tmp_path / "demo", scale=400)
    with AgentStore.open(root) as store:
        assert gc_figures(store) == _figures_of(plan_gc(store))
        assert gc_figures(store)["reclaimable_bytes"] > 0
        apply_gc(store, max_tasks=25)  # some collected, some still reclaimable
        store.execute("DELETE FROM checkpoint_entry WHERE id IN (SELECT id FROM checkpoint_entry LIMIT 30)")
        figures = gc_figures(store)  # entries gone behind the counters' back leave loose blobs
        plan = plan_gc(store)
        assert plan.loose_blobs > 0
        assert figures["live"] == len(plan.live) and figures["reclaimable"] == len(plan.reclaimable)
        assert figures["reclaimable_bytes"] == plan.reclaimable_bytes
    as_schema_2(root / ".agent" / "agent.db")
    with AgentStore.open(root, readonly=True) as old:
        assert gc_figures(old) == _figures_of(plan_gc(old))
