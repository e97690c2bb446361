"""Lifecycle GC plan: which tasks are roots, which are live and why, what may go."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from gc_fixtures import counts, heavy_bytes, new_store, task_with_edit, version
from memtui.core.gc import apply_gc, live_set, live_set_sql, plan_gc
from memtui.core.store import AgentStore


def _live(plan) -> set[int]:
    return {t.task for t in plan.live}


def _gone(plan) -> set[int]:
    return {t.task for t in plan.reclaimable}


def _root_kinds(plan) -> dict[int, str]:
    return {r.task: r.kind for r in plan.roots}


def test_current_task_of_open_session_is_a_root(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("open")
    old = task_with_edit(store, s, "old")
    cur = task_with_edit(store, s, "current")
    plan = plan_gc(store)
    assert _root_kinds(plan) == {cur: "current"}
    assert plan.live_task(cur).reason == "root: current task of an open session"
    assert _gone(plan) == {old}
    assert "superseded by" in plan.explain(old)


def test_closed_sessions_current_task_is_reclaimable_unless_pinned_or_referenced(open_new_store):
    store = new_store(open_new_store)
    s1 = store.start_session("closed, nothing refers to it")
    plain = task_with_edit(store, s1, "plain")
    store.close_session(s1)
    s2 = store.start_session("closed, pinned")
    pinned = task_with_edit(store, s2, "pinned")
    store.close_session(s2)
    store.pin(pinned)
    s3 = store.start_session("closed, referenced")
    referenced = task_with_edit(store, s3, "referenced")
    store.close_session(s3)
    s4 = store.start_session("open")
    cur = task_with_edit(store, s4, "current", finish=None)
    store.add_reference(cur, referenced, "handoff")

    plan = plan_gc(store)
    assert _gone(plan) == {plain}
    assert "current task of closed session" in plan.explain(plain)
    assert _root_kinds(plan)[pinned] == "pinned"
    assert plan.live_task(referenced).chain == (cur, referenced)
    assert plan.live_task(referenced).via == ("handoff",)
    assert _live(plan) == {pinned, referenced, cur}


def test_running_and_waiting_tasks_are_roots_in_any_session(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("closed with unfinished work")
    running = task_with_edit(store, s, "running", finish=None)
    waiting = task_with_edit(store, s, "waiting", finish=None)
    store.ask(waiting, "Which version?")
    store.close_session(s)
    plan = plan_gc(store)
    assert _root_kinds(plan) == {running: "running", waiting: "waiting"}
    assert plan.live_task(waiting).reason == "root: waiting for the user"
    assert _gone(plan) == set()


def test_answered_question_makes_the_task_running_again(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("s")
    t = task_with_edit(store, s, "asks", finish=None)
    q = store.ask(t, "ok?")
    store.answer(q, "yes")
    store.close_session(s)
    assert _root_kinds(plan_gc(store)) == {t: "running"}


def test_a_root_with_several_reasons_lists_them_all(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("open")
    t = task_with_edit(store, s, "both", finish=None)
    store.pin(t)
    root = plan_gc(store).roots[0]
    assert (root.kind, root.kinds) == ("current", ("current", "running", "pinned"))


def test_handoff_chain_three_deep_through_closed_sessions(open_new_store):
    store = new_store(open_new_store)
    s0 = store.start_session("parent, open")
    parent = task_with_edit(store, s0, "parent", finish=None)
    chain = [parent]
    for depth in range(3):
        sub = store.start_session(f"sub-agent {depth}")
        chain.append(task_with_edit(store, sub, f"child {depth}", parent=chain[-1]))
        store.close_session(sub)
    plan = plan_gc(store)
    assert _gone(plan) == set()
    deepest = plan.live_task(chain[-1])
    assert deepest.chain == tuple(chain)
    assert deepest.via == ("handoff",) * 3
    assert deepest.reason.startswith(f"reachable from #{parent} (current task of an open session)")
    # The handoff runs parent -> child only: a child does not keep its parent alive.
    store.finish_task(parent, "completed")
    store.close_session(s0)
    store.start_session("pin the middle")
    store.pin(chain[2])
    plan = plan_gc(store)
    assert _live(plan) == {chain[2], chain[3]}
    assert _gone(plan) == {parent, chain[1]}


def test_depends_reference_keeps_the_dependency(open_new_store):
    store = new_store(open_new_store)
    s1 = store.start_session("library work")
    lib = task_with_edit(store, s1, "library")
    store.close_session(s1)
    s2 = store.start_session("app work")
    app = task_with_edit(store, s2, "app", finish=None)
    store.add_reference(app, lib, "depends")
    plan = plan_gc(store)
    assert plan.live_task(lib).via == ("depends",)
    assert _gone(plan) == set()


def test_supersedes_does_not_keep_the_old_task(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("s")
    old = task_with_edit(store, s, "old")
    new = task_with_edit(store, s, "new", finish=None)
    assert store.all_references()[0].kind == "supersedes"
    assert _gone(plan_gc(store)) == {old} and new in _live(plan_gc(store))


def test_reference_cycle_terminates(open_new_store):
    store = new_store(open_new_store)
    s1 = store.start_session("cycle reachable from a root")
    a = task_with_edit(store, s1, "a")
    b = task_with_edit(store, s1, "b")
    c = task_with_edit(store, s1, "c", finish=None)
    store.add_reference(a, b, "handoff")
    store.add_reference(b, a, "depends")
    store.add_reference(c, a, "handoff")
    s2 = store.start_session("cycle nothing reaches")
    x = task_with_edit(store, s2, "x")
    y = task_with_edit(store, s2, "y")
    store.close_session(s2)
    store.add_reference(x, y, "handoff")
    store.add_reference(y, x, "handoff")
    plan = plan_gc(store)
    assert {a, b, c} <= _live(plan)
    assert plan.live_task(b).chain == (c, a, b)
    assert _gone(plan) == {x, y}
    assert "referenced only by reclaimable tasks" in plan.explain(x)
    assert _live(plan) == live_set_sql(store)


def test_orphans_running_kept_finished_reclaimed(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("deleted later")
    done = task_with_edit(store, s, "finished")
    running = task_with_edit(store, s, "running", finish=None)
    store.delete_session(s)
    plan = plan_gc(store)
    assert _root_kinds(plan) == {running: "running"}
    (gone,) = plan.reclaimable
    assert gone.task == done and gone.orphan and gone.session is None
    assert "orphan" in plan.explain(gone.task)
    assert plan.to_json()["reclaimable"][0]["orphan"] is True


def test_counts_and_bytes_are_measured_and_match_apply(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("s")
    t1 = store.start_task(s, "two checkpoints")
    for n in range(3):
        step = store.record_step(t1, "edit", {"n": n}, "r" * n)
        if n:
            store.record_checkpoint(t1, step, {"a.py": (version(n - 1), version(n)), "b.txt": (None, b"b" * n * 99)})
    store.finish_task(t1, "completed")
    task_with_edit(store, s, "current", finish=None)
    plan = plan_gc(store)
    (item,) = plan.reclaimable
    assert (item.steps, item.checkpoints, item.entries) == counts(store, t1) == (3, 2, 4)
    before = heavy_bytes(store)
    assert plan.reclaimable_bytes == item.bytes > 0
    result = apply_gc(store, plan)
    assert result.bytes == plan.reclaimable_bytes == before - heavy_bytes(store)
    assert (result.steps, result.checkpoints, result.entries) == (3, 2, 4)


def test_shared_blob_is_not_counted_and_survives(open_new_store):
    store = new_store(open_new_store)
    s1 = store.start_session("old")
    shared = b"shared content\n" * 100
    old = task_with_edit(store, s1, "old", path="a.py", after=shared)
    store.close_session(s1)
    s2 = store.start_session("live")
    live = task_with_edit(store, s2, "live", path="b.py", before=shared, after=b"other\n" * 90, finish=None)
    plan = plan_gc(store)
    item = plan.reclaimable_task(old)
    assert item.blobs == 0 and item.bytes == item.payload_bytes
    apply_gc(store, plan)
    store._cache.clear()
    (entry,) = store.checkpoint_entries(store.checkpoints(live)[0].id)
    assert store.read_entry(entry.id)[0] == shared
    assert counts(store, old) == (0, 0, 0)


def test_blob_shared_by_two_reclaimable_tasks_counts_once(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("s")
    a = task_with_edit(store, s, "a", after=version(1))
    b = task_with_edit(store, s, "b", before=version(1), after=version(2))
    # Of another kind than a.py, so its content is no delta against theirs (which would keep them).
    task_with_edit(store, s, "current", path="c.txt", finish=None)
    plan = plan_gc(store)
    total_blob_bytes = store.query("SELECT SUM(stored) FROM blob WHERE id IN (SELECT after_blob FROM"
                                  " checkpoint_entry WHERE after_blob IS NOT NULL AND path_id = (SELECT id FROM path"
                                  " WHERE path = 'a.py'))")[0][0]
    assert plan.reclaimable_task(a).blob_bytes + plan.reclaimable_task(b).blob_bytes == total_blob_bytes
    assert plan.reclaimable_task(a).blobs == 1  # the oldest task carries the shared content


def test_delta_base_of_a_live_content_is_kept(open_new_store):
    store = new_store(open_new_store)
    s1 = store.start_session("old")
    old = task_with_edit(store, s1, "v0", after=version(0))  # path version 0: a full content
    store.close_session(s1)
    s2 = store.start_session("live")
    live = task_with_edit(store, s2, "v1", before=None, after=version(1), finish=None)
    codec, base = store.query("SELECT codec, base FROM blob WHERE id = (SELECT after_blob FROM checkpoint_entry"
                             " e JOIN checkpoint c ON c.id = e.checkpoint_id WHERE c.task_id = ?)", (live,))[0]
    assert codec == "delta"  # the live content is a delta against the old task's content
    plan = plan_gc(store)
    assert plan.reclaimable_task(old).blobs == 0
    apply_gc(store, plan)
    assert store.query("SELECT COUNT(*) FROM blob WHERE id = ?", (base,))[0][0] == 1
    store._cache.clear()
    (entry,) = store.checkpoint_entries(store.checkpoints(live)[0].id)
    assert store.read_entry(entry.id)[1] == version(1)
    # Once the live task goes too, its delta and the base it kept go with it.
    store.finish_task(live, "completed")
    store.close_session(s2)
    plan = plan_gc(store)
    assert plan.reclaimable_task(live).blobs == 2
    result = apply_gc(store, plan)
    assert result.bytes == plan.reclaimable_bytes
    assert store.query("SELECT COUNT(*) FROM blob")[0][0] == 0


def test_collected_tasks_are_not_listed_again(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("s")
    old = task_with_edit(store, s, "old")
    task_with_edit(store, s, "current", finish=None)
    apply_gc(store)
    plan = plan_gc(store)
    assert plan.reclaimable == () and plan.collected == 1
    assert store.task(old).collected
    assert "collected" in plan.explain(old)
    # History still reads: row, summary message and references stay.
    assert store.messages(old)[0].role == "summary"
    assert store.references(old)


def test_plan_reads_a_read_only_store_without_writing(tmp_path):
    store = new_store(tmp_path)
    s = store.start_session("s")
    task_with_edit(store, s, "old")
    task_with_edit(store, s, "current", finish=None)
    store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = store.db_path
    store.close()
    mtime = path.stat().st_mtime_ns
    with AgentStore.open(path, readonly=True) as ro:
        assert len(plan_gc(ro).reclaimable) == 1
    assert path.stat().st_mtime_ns == mtime


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 14),
    edges=st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13), st.sampled_from(
        ["handoff", "depends", "supersedes"])), max_size=30),
    roots=st.lists(st.tuples(st.integers(0, 13), st.sampled_from(["pin", "run", "wait"])), max_size=4),
)
def test_python_walk_equals_recursive_sql(tmp_path_factory, n, edges, roots):
    store = AgentStore.open(tmp_path_factory.mktemp("h") / "ws")
    s = store.start_session("s")
    ids = [store.start_task(s, f"t{i}") for i in range(n)]
    with store.transaction():
        for t in ids:
            store.finish_task(t, "completed")
        for a, b, kind in edges:
            if a < n and b < n:
                store.add_reference(ids[a], ids[b], kind)
        for i, kind in roots:
            if i < n:
                if kind == "pin":
                    store.pin(ids[i])
                elif kind == "run":
                    store.execute("UPDATE task SET status = 'running' WHERE id = ?", (ids[i],))
                else:
                    store.ask(ids[i], "?")
    if n % 2:
        store.close_session(s)
    live = live_set(store)
    assert set(live) == live_set_sql(store)
    for task in live.values():  # every chain is a real path of live references
        refs = {(r.from_task, r.to_task, r.kind) for r in store.all_references()}
        assert all((a, b, k) in refs for (a, b), k in zip(pairwise(task.chain), task.via, strict=True))
    store.close()
