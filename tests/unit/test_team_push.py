"""`memtui push`: three machines (team_machines) push their Claude Code and Codex homes and memtui
stores into one team store on a real PostgreSQL server; each session is there once per machine,
each content once; a re-push writes nothing; a push killed with SIGKILL at spread-out moments is
finished by the next one, with no session torn or doubled (KILL_TRIALS here; more in
tests/reliability/test_team_push_kill.py)."""

from __future__ import annotations

import json
import os
import signal
import sys

import pytest
from team_machines import build_machines
from team_push_support import MID_PUSH, integrity, kill_on_progress, push_process, sessions
from terminal_support import ESCAPES, Terminal

from memtui.cli import main
from memtui.core.discovery import discover_given
from memtui.core.store import AgentStore
from memtui.core.store.team import TeamStore
from memtui.core.team.push import push

KILL_TRIALS = 3


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    return build_machines(tmp_path_factory.mktemp("machines"))


def _source_sessions(machine) -> dict[tuple[str, str], set[str]]:
    """{(agent, store path): session ids} as memtui reads them on the machine itself."""
    found = {}
    for path in machine.paths:
        for entry in discover_given(path, env=machine.env):
            if entry.kind != "memory-files":
                with entry.open() as source:
                    found[(entry.kind, str(entry.path))] = {str(s.id) for s in source.sessions()} | (
                        {"(orphans)"} if source.tasks(None) else set())
    return found


def test_three_machines_each_session_once_per_machine_each_content_once(machines, team_url):
    reports = [push(m.paths, team_url, machine=m.name, env=m.env) for m in machines]
    assert integrity(team_url) == {}
    pushed = sessions(team_url)
    for machine in machines:
        expected = {(agent, path, key) for (agent, path), keys in _source_sessions(machine).items() for key in keys}
        assert {(a, p, k) for m, a, p, k, *_ in pushed if m == machine.name} == expected
    laptop, devbox, ci = reports
    # devbox's Claude Code sessions are laptop's (copied): written again for devbox, no new content.
    devbox_claude = next(s for s in devbox.sources if s.kind == "claude-code")
    assert devbox_claude.written == devbox_claude.sessions > 0 and devbox_claude.blobs == 0
    ci_codex = next(s for s in ci.sources if s.kind == "codex")  # devbox pushed the same rollouts
    assert ci_codex.written == ci_codex.sessions > 0 and ci_codex.blobs == 0
    with TeamStore.open(team_url, readonly=True) as team:
        orphans = sum(1 for row in pushed if row[3] == "(orphans)")
        assert team.counts()["sessions"] == sum(r.written for r in reports) - orphans == len(pushed) - orphans

    again = [push(m.paths, team_url, machine=m.name, env=m.env) for m in machines]
    assert [r.rows for r in again] == [0, 0, 0]
    assert all(s.unchanged for r in again for s in r.sources)  # not even read: their cursors matched
    assert sessions(team_url) == pushed


def test_contents_read_back_exactly_in_the_team_store(machines, team_url):
    laptop = machines[0]
    push(laptop.paths, team_url, machine=laptop.name, env=laptop.env)
    with AgentStore.open(laptop.home / "work", readonly=True) as local, TeamStore.open(team_url, readonly=True) as team:
        local_entries = local.query("SELECT id FROM checkpoint_entry ORDER BY id")
        team_hashes = {(e.path, e.before_hash, e.after_hash) for (cp,) in team.query("SELECT id FROM checkpoint")
                       for e in team.checkpoint_entries(cp)}
        for (entry_id,) in local_entries[:40]:
            e = local.entry(entry_id)
            assert (e.path, e.before_hash, e.after_hash) in team_hashes
        (cp,) = team.query("SELECT MAX(c.id) FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id")[0]
        for e in team.checkpoint_entries(cp):
            before, after = team.read_entry(e.id)
            assert after is None or __import__("hashlib").sha256(after).hexdigest() == e.after_hash


def test_a_session_that_grew_is_written_again_and_only_it(machines, team_url, tmp_path):
    import shutil

    laptop = machines[0]
    work = tmp_path / "work"
    shutil.copytree(laptop.home / "work", work)
    push([work], team_url, machine="laptop", env=laptop.env)
    with AgentStore.open(work) as store:
        session = store.sessions()[-1]
        task = store.tasks(session.id)[-1].id
        store.record_step(task, "read_file", {"path": "new.py"}, "new result")
    report = push([work], team_url, machine="laptop", env=laptop.env)
    assert report.written == 1 and not report.sources[0].unchanged
    assert integrity(team_url) == {}
    with TeamStore.open(team_url, readonly=True) as team:
        assert team.query("SELECT COUNT(*) FROM step WHERE args LIKE '%new.py%'") == [(1,)]
        assert team.query("SELECT COUNT(*) FROM origin WHERE session_key = ?", (str(session.id),)) == [(1,)]


def test_dry_run_writes_nothing_and_says_what_would_go(machines, team_url):
    laptop = machines[0]
    report = push(laptop.paths, team_url, machine=laptop.name, env=laptop.env, dry_run=True)
    assert report.written == sum(s.sessions for s in report.sources) > 0 and report.rows == 0
    with pytest.raises(Exception, match="no memtui store"):
        TeamStore.open(team_url, readonly=True)


def test_cli_push_prints_json_and_needs_a_team(machines, team_url, capsys, monkeypatch):
    laptop = machines[0]
    for key, value in laptop.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MEMTUI_TEAM_URL", raising=False)
    assert main(["push", str(laptop.home / "work")]) == 2
    assert "--team URL" in capsys.readouterr().err
    monkeypatch.setenv("MEMTUI_TEAM_URL", team_url)
    assert main(["push", str(laptop.home / "work"), "--machine", "laptop", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["machine"] == "laptop" and doc["written"] == doc["sessions"] > 0
    assert main(["push", str(laptop.home / "work"), "--machine", "laptop"]) == 0
    assert "unchanged since the last push" in capsys.readouterr().out


@pytest.fixture(scope="module")
def reference(machines, pg_cluster) -> list[tuple]:
    """The laptop's push, once, uninterrupted, as its own process: what every killed-then-finished
    push must equal."""
    url = pg_cluster.new_database()
    proc = push_process(machines[0], url)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return sessions(url)


@pytest.mark.parametrize("share", [(i + 0.5) / KILL_TRIALS for i in range(KILL_TRIALS)])
def test_a_push_killed_mid_way_is_finished_by_the_next(machines, pg_cluster, reference, share):
    laptop = machines[0]
    expected = reference
    url = pg_cluster.new_database()
    # Killed while it writes a session, after `share` of them are in.
    landed = kill_on_progress(laptop, url, int(share * len(expected)), in_write=True, total=len(expected))
    assert landed in MID_PUSH
    push(laptop.paths, url, machine=laptop.name, env=laptop.env)
    assert integrity(url) == {}
    assert sessions(url) == expected


def test_handoffs_across_sessions_are_kept_whichever_session_goes_first(machines, team_url):
    laptop = machines[0]
    work = laptop.home / "work"
    with AgentStore.open(work, readonly=True) as local:
        expected = {(str(r.from_task), str(r.to_task), r.kind) for r in local.all_references()}
        sessions_of = {t: s for s, t in local.query("SELECT session_id, id FROM task")}
    across = {r for r in expected if sessions_of[int(r[0])] != sessions_of[int(r[1])]}
    assert across  # the demo hands tasks off to sub-agents' sessions
    push([work], team_url, machine="laptop", env=laptop.env)
    with TeamStore.open(team_url, readonly=True) as team:
        got = set(team.query("SELECT a.origin_task, b.origin_task, r.kind FROM task_ref r"
                             " JOIN task a ON a.id = r.from_task JOIN task b ON b.id = r.to_task"))
    assert got == expected


def test_sessions_name_the_machine_and_agent_they_came_from(machines, team_url, capsys):
    for machine in machines[:2]:
        push(machine.paths, team_url, machine=machine.name, env=machine.env)
    with TeamStore.open(team_url, readonly=True) as team:
        origins = {s.origin for s in team.sessions()}
    assert origins == {"laptop · claude-code", "laptop · memtui", "devbox · claude-code", "devbox · codex"}
    assert main(["log", team_url]) == 0
    out = capsys.readouterr().out
    assert "[devbox · codex]" in out and "[laptop · memtui]" in out
    with AgentStore.open(machines[0].home / "work", readonly=True) as local:
        assert {s.origin for s in local.sessions()} == {""}  # a store on this machine names none


def test_push_watch_pushes_what_is_new_until_interrupted(machines, team_url, tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    work = tmp_path / "work"
    shutil.copytree(machines[0].home / "work", work)
    env = {**os.environ, **machines[0].env}
    proc = subprocess.Popen([sys.executable, "-m", "memtui", "push", str(work), "--team", team_url, "--machine", "m",
                             "--watch", "0.2", "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        first = json.loads(proc.stdout.readline())
        assert first["written"] == first["sessions"] > 0
        with AgentStore.open(work) as store:
            store.start_task(store.start_session("new while watching"), "t")
        second = json.loads(proc.stdout.readline())  # the next push that wrote: the new session only
        assert second["written"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130
    with TeamStore.open(team_url, readonly=True) as team:
        assert "new while watching" in {s.title for s in team.sessions()}


def test_a_write_the_server_refuses_ends_the_push_with_its_error_and_no_cursor(machines, pg_cluster, capsys,
                                                                               monkeypatch):
    """The server refusing a session's rows (here its checkpoint entries, sent by COPY) ends the
    push with the server's reason in one line, the sessions before it whole, and no source
    marked as pushed."""
    import os

    laptop = machines[0]
    url = pg_cluster.new_database()
    TeamStore.open(url).close()
    role = f"no_entries_{os.getpid()}"
    pg_cluster.admin(f"CREATE ROLE {role} LOGIN")
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {role}")
        conn.execute(f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {role}")
        conn.execute(f"REVOKE INSERT ON checkpoint_entry FROM {role}")
    for key, value in laptop.env.items():
        monkeypatch.setenv(key, value)
    as_role = url.replace("memtui@", f"{role}@")
    assert main(["push", *map(str, laptop.paths), "--team", as_role, "--machine", "laptop"]) == 2
    err = capsys.readouterr().err
    assert "permission denied for table checkpoint_entry" in err and len(err.strip().splitlines()) == 1
    assert integrity(url) == {}
    with TeamStore.open(url, readonly=True) as team:
        assert team.query("SELECT COUNT(*) FROM push_cursor") == [(0,)]
        assert team.query("SELECT COUNT(*) FROM checkpoint_entry") == [(0,)]


def test_on_a_terminal_push_shows_its_progress_and_clears_it_before_the_summary(machines, team_url, tmp_path):
    """`memtui push` on a terminal: a line per session pushed (source and counts so far), redrawn
    in place and cleared before the summary; in a pipe (the --json runs above) there is none."""
    laptop = machines[0]
    argv = [sys.executable, "-m", "memtui", "push", *map(str, laptop.paths), "--team", team_url,
            "--machine", laptop.name]
    term = Terminal(argv, {**os.environ, **laptop.env}, tmp_path)
    term.wait_for(b"sessions read, wrote", timeout=300)
    assert term.close(timeout=300) == 0
    seen = term.seen
    progress = [line for line in seen.split(b"\r\x1b[K") if b" written" in line and b"sessions read" not in line]
    assert len(progress) >= 2, seen[:400]  # more than one session: the line is redrawn
    assert any(b" 1 sessions, 1 written" in line for line in progress)
    summary = seen.index(b"sessions read, wrote")
    assert seen.rindex(b"\r\x1b[K") < summary  # cleared before the summary
    after = ESCAPES.sub(b"", seen[seen.rindex(b"\r\x1b[K"):]).strip(b"\r")
    assert after.startswith(f"{laptop.name} \u2192 ".encode()) and b" written" not in after
