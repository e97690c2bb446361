"""A re-push keeps what was done in the team store: a session that grew on its machine is written
again over its earlier rows, its tasks keep their ids there (matched by their ids on the
machine), a task GC collected in the team store stays collected (its steps and checkpoints do
not come back) and a pin set there stays. On a real PostgreSQL server."""

from __future__ import annotations

from team_push_support import integrity, scratch_env  # noqa: F401  (scratch_env: a fixture)

from memtui.cli import main
from memtui.core.demo import DemoClock
from memtui.core.gc import apply_gc
from memtui.core.store import AgentStore
from memtui.core.store.team import TeamStore
from memtui.core.team.push import push


def _tasks(url: str) -> dict[str, tuple[int, bool, bool, int, int]]:
    """{task id on the machine: (id in the team store, pinned, collected, steps, checkpoints)}."""
    with TeamStore.open(url, readonly=True) as team:
        return {origin: (task, bool(pinned), collected is not None, steps, checkpoints)
                for origin, task, pinned, collected, steps, checkpoints in team.query(
                    "SELECT t.origin_task, t.id, t.pinned, t.collected_at,"
                    " (SELECT COUNT(*) FROM step s WHERE s.task_id = t.id),"
                    " (SELECT COUNT(*) FROM checkpoint c WHERE c.task_id = t.id) FROM task t")}


def test_a_re_push_keeps_task_ids_gc_collections_and_pins(tmp_path, team_url, scratch_env, capsys):
    work = tmp_path / "work"
    with AgentStore.open(work, clock=DemoClock()) as local:
        session = local.start_session("refactor the parser")
        finished = []
        for n in range(3):
            task = local.start_task(session, f"rewrite part {n}")
            step = local.record_step(task, "edit_file", {"path": f"part{n}.py"}, "ok")
            local.record_checkpoint(task, step, {f"part{n}.py": (b"old %d\n" % n, b"new %d\n" % n)})
            local.finish_task(task)
            finished.append(str(task))
        current = local.start_task(session, "wire the parts together")
        local.record_step(current, "read_file", {"path": "main.py"}, "ok")
    push([work], team_url, machine="laptop", env=scratch_env)
    first = _tasks(team_url)
    assert {k: v[1:] for k, v in first.items()} == {**{t: (False, False, 1, 1) for t in finished},
                                                    str(current): (False, False, 1, 0)}

    kept = first[finished[0]][0]
    assert main(["pin", team_url, str(kept)]) == 0
    with TeamStore.open(team_url) as team:
        apply_gc(team, hold=0, pause=0)
    collected = _tasks(team_url)
    assert {t for t, v in collected.items() if v[2]} == set(finished[1:])  # the pinned one and the current stay

    with AgentStore.open(work, clock=DemoClock()) as local:  # the session grows on the laptop
        local.record_step(current, "run_tests", {"cmd": "pytest"}, "passed")
    report = push([work], team_url, machine="laptop", env=scratch_env)
    assert report.written == 1
    assert integrity(team_url) == {}

    again = _tasks(team_url)
    assert {t: v[0] for t, v in again.items()} == {t: v[0] for t, v in first.items()}  # the same ids
    assert again[finished[0]][1:] == (True, False, 1, 1)  # still pinned, its rows whole
    for task in finished[1:]:
        assert again[task][1:] == (False, True, 0, 0)  # still collected: nothing came back
    assert again[str(current)][1:] == (False, False, 2, 0)  # the new step is in
    assert main(["log", team_url]) == 0
    assert "refactor the parser" in capsys.readouterr().out
    with TeamStore.open(team_url, readonly=True) as team:
        (pushed,) = team.sessions()
        assert [t.title for t in team.tasks(pushed.id) if t.collected] == ["rewrite part 1", "rewrite part 2"]
        assert pushed.current_task_id == again[str(current)][0]


def test_a_task_the_machine_deleted_goes_and_the_others_keep_their_ids(tmp_path, team_url, scratch_env):
    work = tmp_path / "work"
    with AgentStore.open(work, clock=DemoClock()) as local:
        session = local.start_session("spike")
        tasks = [str(local.start_task(session, f"try {n}")) for n in range(3)]
    push([work], team_url, machine="laptop", env=scratch_env)
    first = _tasks(team_url)
    with AgentStore.open(work, clock=DemoClock()) as local:
        local.execute("DELETE FROM task WHERE id = ?", (int(tasks[1]),))
        local.start_task(session, "try 3")
    push([work], team_url, machine="laptop", env=scratch_env)
    again = _tasks(team_url)
    assert tasks[1] not in again and len(again) == 3
    assert again[tasks[0]][0] == first[tasks[0]][0] and again[tasks[2]][0] == first[tasks[2]][0]
