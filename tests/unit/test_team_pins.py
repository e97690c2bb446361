"""A pin set in the team store (memtui pin URL ID) survives a re-push of its session: a session
that grew on its machine is written again, and its tasks pinned in the team store stay pinned
(and one unpinned there stays unpinned). On a real PostgreSQL server."""

from __future__ import annotations

from team_push_support import scratch_env  # noqa: F401  (a fixture)

from memtui.cli import main
from memtui.core.demo import DemoClock
from memtui.core.store import AgentStore
from memtui.core.store.team import TeamStore
from memtui.core.team.push import push


def _team_task(url: str, origin_task: int) -> tuple[int, bool, int]:
    """(id, pinned, steps) in the team store of the task pushed from `origin_task`."""
    with TeamStore.open(url, readonly=True) as team:
        (row,) = team.query("SELECT id, pinned, step_count FROM task WHERE origin_task = ?", (str(origin_task),))
        return row[0], bool(row[1]), row[2]


def test_a_pin_set_in_the_team_store_survives_a_re_push_of_its_grown_session(tmp_path, team_url, scratch_env):
    work = tmp_path / "work"
    with AgentStore.open(work, clock=DemoClock()) as local:
        session = local.start_session("fix the flaky test")
        kept = local.start_task(session, "investigate the flake")
        local.record_step(kept, "read_file", {"path": "io.py"}, "ok")
        other = local.start_task(session, "write the fix")
        local.record_step(other, "edit_file", {"path": "io.py"}, "ok")
    push([work], team_url, machine="laptop", env=scratch_env)
    team_id, pinned, _ = _team_task(team_url, kept)
    assert not pinned
    assert main(["pin", team_url, str(team_id)]) == 0
    other_id = _team_task(team_url, other)[0]
    assert main(["pin", team_url, str(other_id)]) == 0
    assert main(["pin", team_url, str(other_id), "--unpin"]) == 0

    with AgentStore.open(work, clock=DemoClock()) as local:  # the session grows on the laptop
        local.record_step(other, "run_tests", {"cmd": "pytest"}, "passed")
    report = push([work], team_url, machine="laptop", env=scratch_env)
    assert report.written == 1  # the session was written again …

    new_id, pinned, steps = _team_task(team_url, kept)
    assert pinned  # … and the pin set in the team store is still there
    assert _team_task(team_url, other)[1:] == (False, 2)  # the grown task: its new step in, unpinned as left
    with TeamStore.open(team_url, readonly=True) as team:
        (pushed,) = team.sessions()
        assert [t.title for t in team.tasks(pushed.id) if t.pinned] == ["investigate the flake"]


def test_a_pin_from_the_machine_is_pushed_too(tmp_path, team_url, scratch_env):
    work = tmp_path / "work"
    with AgentStore.open(work, clock=DemoClock()) as local:
        task = local.start_task(local.start_session("release"), "tag v2")
        local.pin(task)
    push([work], team_url, machine="laptop", env=scratch_env)
    assert _team_task(team_url, task)[1]
