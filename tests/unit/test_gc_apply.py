"""Lifecycle GC apply: per-task atomicity, blob sweep, retention that tracks live work."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gc_fixtures import counts, healthy, heavy_bytes, new_store, read_all_entries, task_with_edit, version
from memtui.core.gc import apply_gc, plan_gc


class Boom(RuntimeError):
    pass


def _three_old_tasks(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("s")
    old = [task_with_edit(store, s, f"old {i}", after=version(i)) for i in range(3)]
    cur = task_with_edit(store, s, "current", after=version(9), finish=None)
    return store, old, cur


@pytest.mark.parametrize("stage", ["entries", "checkpoints", "steps", "commit"])
def test_failure_inside_one_task_rolls_back_that_task_only(open_new_store, stage):
    store, old, cur = _three_old_tasks(open_new_store)
    before = {t: counts(store, t) for t in old}
    blobs = store.query("SELECT COUNT(*) FROM blob")[0][0]

    def hook(where: str, task: int) -> None:
        if task == old[1] and where == stage:
            raise Boom(f"injected at {where}")

    with pytest.raises(Boom):
        apply_gc(store, hook=hook)
    assert counts(store, old[0]) == (0, 0, 0) and store.task(old[0]).collected
    assert counts(store, old[1]) == before[old[1]] and not store.task(old[1]).collected
    assert counts(store, old[2]) == before[old[2]]
    assert store.query("SELECT COUNT(*) FROM blob")[0][0] == blobs  # the sweep never ran
    assert healthy(store)
    assert read_all_entries(store) > 0
    # The next pass finishes the job.
    result = apply_gc(store)
    assert result.tasks == 2 and healthy(store)
    assert [t.task for t in plan_gc(store).live] == [cur]


def test_task_that_became_live_after_the_preview_is_skipped(open_new_store):
    store, old, cur = _three_old_tasks(open_new_store)
    plan = plan_gc(store)
    store.pin(old[0])
    store.add_reference(old[0], old[1], "handoff")
    result = apply_gc(store, plan)
    assert sorted(result.skipped) == old[:2]
    assert result.tasks == 1 and counts(store, old[0]) != (0, 0, 0) and counts(store, old[1]) != (0, 0, 0)


def test_cancel_between_tasks_and_max_tasks(open_new_store):
    store, old, cur = _three_old_tasks(open_new_store)
    seen = []
    result = apply_gc(store, progress=seen.append, cancel=lambda: len([p for p in seen if p.phase == "tasks"]) >= 1)
    assert result.cancelled and result.tasks == 1
    assert seen[0].tasks_total == 3 and seen[0].tasks_done == 1 and seen[0].bytes_freed > 0
    assert healthy(store) and read_all_entries(store) > 0
    result = apply_gc(store, max_tasks=1)
    assert result.tasks == 1 and len(plan_gc(store).reclaimable) == 1


def test_progress_reports_every_task_and_bytes_grow(open_new_store):
    store, old, cur = _three_old_tasks(open_new_store)
    seen = []
    result = apply_gc(store, progress=seen.append, batch=2)
    tasks = [p for p in seen if p.phase == "tasks"]
    assert [p.tasks_done for p in tasks] == [1, 2, 3]
    freed = [p.bytes_freed for p in seen]
    assert freed == sorted(freed) and freed[-1] == result.bytes
    assert result.freelist_after >= result.freelist_before


def test_hundred_tasks_with_gc_after_each_keep_only_the_live_tasks_data(open_new_store):
    store = new_store(open_new_store)
    s = store.start_session("one long session")
    for i in range(100):
        t = task_with_edit(store, s, f"task {i}", path="src/app.py",
                           before=version(i - 1) if i else None, after=version(i))
        apply_gc(store)
    assert store.query("SELECT COUNT(*) FROM checkpoint")[0][0] == 1
    assert store.query("SELECT COUNT(*) FROM checkpoint_entry")[0][0] == 1
    assert store.query("SELECT COUNT(DISTINCT task_id) FROM step")[0][0] == 1
    assert counts(store, t) == (2, 1, 1)
    # What remains is the live entry's contents and the delta bases they need, nothing else.
    plan = plan_gc(store)
    assert plan.reclaimable == () and plan.loose_blobs == 0 and plan.collected == 99
    depth = store.query("SELECT MAX(depth) FROM blob")[0][0]
    assert store.query("SELECT COUNT(*) FROM blob")[0][0] <= 2 * depth
    assert store.query("SELECT COUNT(*) FROM task")[0][0] == 100  # history rows stay
    assert healthy(store) and read_all_entries(store) == 1


def test_thousand_tasks_with_gc_after_each_the_file_stops_growing(tmp_path):
    store = new_store(tmp_path)
    s = store.start_session("long running agent")
    sizes = []
    for i in range(1000):
        with store.transaction():  # one agent turn: faster to record, same rows
            t = store.start_task(s, f"task {i}")
            step = store.record_step(t, "edit_file", {"path": "big.txt", "n": i}, "ok " * 600)
            store.record_checkpoint(t, step, {f"f{i % 7}.bin": (None, bytes([i % 251]) * 3000 + str(i).encode())})
            store.finish_task(t, "completed")
        apply_gc(store)
        if i % 100 == 99:
            sizes.append(store.query("PRAGMA page_count")[0][0] * store.query("PRAGMA page_size")[0][0])
    # Without GC this would be ~4 MiB per 100 tasks; with it freed pages are reused and only the
    # light rows that history keeps (task, summary, reference) still add up: < 160 KiB over 700.
    assert sizes[-1] - sizes[2] < 160 * 1024, sizes
    assert healthy(store)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["new", "pin", "unpin", "gc", "close"]), st.integers(0, 30)),
                min_size=5, max_size=25))
def test_random_histories_keep_every_live_content_and_free_the_rest(tmp_path_factory, script):
    """Skip-delta chains across tasks, pins and closed sessions: after each GC every remaining
    entry reads back exactly, the plan's bytes are what apply freed, and nothing is left over."""
    store = new_store(tmp_path_factory.mktemp("r"))
    session = store.start_session("s")
    tasks, n, expected = [], 0, {}
    for op, k in script:
        if op == "new" or not tasks:
            if store.query("SELECT status FROM session WHERE id = ?", (session,))[0][0] == "closed":
                session = store.start_session("s")
            n += 1
            t = task_with_edit(store, session, f"t{n}", path=f"f{k % 3}.py", after=version(n * 7 + k))
            tasks.append(t)
            expected[t] = version(n * 7 + k)
        elif op == "pin":
            store.pin(tasks[k % len(tasks)])
        elif op == "unpin":
            store.unpin(tasks[k % len(tasks)])
        elif op == "close":
            store.close_session(session)
        else:
            plan = plan_gc(store)
            before = heavy_bytes(store)
            result = apply_gc(store, plan, batch=1 + k % 4)
            assert result.bytes == plan.reclaimable_bytes == before - heavy_bytes(store)
            assert plan_gc(store).loose_blobs == 0
            assert healthy(store)
            store._cache.clear()
            for t in tasks:
                if not store.task(t).collected:
                    (cp,) = store.checkpoints(t)
                    (entry,) = store.checkpoint_entries(cp.id)
                    assert store.read_entry(entry.id)[1] == expected[t]
    store.close()
