"""Two GC passes and a writer on one team store at once (PostgreSQL, READ COMMITTED): each task
is collected by one pass only (FOR UPDATE SKIP LOCKED), no error reaches the user, a content the
writer took up again while a pass freed it stays, and every entry still reads back."""

from __future__ import annotations

import threading

from gc_fixtures import TickClock, healthy, read_all_entries, task_with_edit, version

from memtui.core.gc import apply_gc, plan_gc
from memtui.core.store.team import TeamStore


def test_two_gcs_and_a_writer_at_once(team_url):
    with TeamStore.open(team_url, clock=TickClock()) as store:
        session = store.start_session("history")
        for i in range(40):
            task_with_edit(store, session, f"old {i}", path=f"src/f{i % 4}.py", after=version(i))
        task_with_edit(store, session, "current", finish=None)
        reclaimable = {t.task for t in plan_gc(store).reclaimable}
        live_session = store.start_session("live")
    assert len(reclaimable) == 40

    errors: list[BaseException] = []
    results = []
    start = threading.Barrier(3)

    def gc() -> None:
        try:
            with TeamStore.open(team_url, clock=TickClock()) as mine:
                start.wait()
                results.append(apply_gc(mine, batch=4, pause=0))
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    def writer() -> None:
        try:
            with TeamStore.open(team_url, clock=TickClock()) as mine:
                start.wait()
                for i in range(40):  # the old tasks' contents again: the blobs the passes free
                    task = mine.start_task(live_session, f"again {i}")
                    mine.record_checkpoint(task, None, {f"src/f{i % 4}.py": (None, version(i))})
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=gc), threading.Thread(target=gc), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert errors == []
    assert sum(r.tasks for r in results) == 40  # each task once, by one pass or the other
    with TeamStore.open(team_url, readonly=True) as store:
        assert healthy(store)
        assert store.query("SELECT COUNT(*) FROM task WHERE collected_at IS NOT NULL") == [(40,)]
        assert read_all_entries(store) == 1 + 40  # the current task's and the writer's, all readable
