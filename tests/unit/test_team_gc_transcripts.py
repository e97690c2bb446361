"""GC of a team store keeps what machines pushed from agents' homes: a transcript records no
session status ("unknown"), and memtui cannot tell such a session finished, so its current
task is a root as an open session's is — a GC never empties every pushed session. On a real
PostgreSQL server, with the real Claude Code and Codex transcripts of tests/fixtures/real."""

from __future__ import annotations

from memtui.core.gc import apply_gc, plan_gc
from memtui.core.store.team import TeamStore
from memtui.core.team.push import push

from team_machines import transcript_machines


def test_gc_keeps_the_current_task_of_every_pushed_transcript_session(tmp_path, team_url):
    for machine in transcript_machines(tmp_path)[:2]:  # laptop (Claude Code), devbox (Claude Code, Codex)
        push(machine.paths, team_url, machine=machine.name, env=machine.env)
    with TeamStore.open(team_url, readonly=True) as team:
        sessions = team.sessions()
        current = {s.current_task_id for s in sessions}
        plan = plan_gc(team)
    assert sessions and {s.status for s in sessions} == {"unknown"}
    assert None not in current
    assert current <= {t.task for t in plan.live}
    assert {r.task for r in plan.roots if r.kind == "current"} == current

    with TeamStore.open(team_url) as team:
        apply_gc(team, hold=0, pause=0)
        for session in team.sessions():
            [kept] = [t for t in team.tasks(session.id) if t.id == session.current_task_id]
            assert not kept.collected and kept.step_count > 0, session.title
