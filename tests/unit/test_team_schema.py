"""The team store's schema version and its upgrades, on a real PostgreSQL server: a store of the
previous team schema is read as it is and upgraded by a writer, in one transaction; a newer one
is refused (tests/unit/test_store_team.py)."""

from __future__ import annotations

import pytest

from memtui.core.memory import SearchIndex
from memtui.core.store import team_migrate
from memtui.core.store.models import build_models
from memtui.core.store.team import TeamStore, connect
from memtui.core.store.team_migrate import FIRST_TEAM_SCHEMA, TEAM_SCHEMA_VERSION, create_team


def _empty_root(tmp_path):
    """A workspace without memory documents: only the store's records are searched."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


def _previous_store(url: str) -> None:
    """A team store of schema 8, as memtui made it before search moved to the server, holding a
    session, a task with a step and a message (rows written through the models, as then)."""
    db = connect(url, readonly=False)
    m = build_models(db)
    try:
        with db.atomic():
            create_team(db, m, up_to=FIRST_TEAM_SCHEMA)
            session = m.Session.create(title="older session", created_at=1.0, updated_at=1.0)
            task = m.Task.create(session=session, title="the lemur task", created_at=1.0, updated_at=2.0, step_count=1)
            m.Step.create(task=task, seq=1, tool="bash", args='{"command": "grep lemur"}', result='"no lemur here"',
                          created_at=2.0)
            m.Message.create(task=task, role="user", content="where is the lemur?", created_at=1.5)
    finally:
        db.close()


def _search(store, root, query):
    with SearchIndex(root, store) as index:
        index.refresh()
        return [(h.kind, h.task) for h in index.search(query)]


def _functions(store) -> set[str]:
    return {name for (name,) in store.query("SELECT proname FROM pg_proc WHERE proname LIKE 'memtui_%'")}


EXPECTED = [("task", "1"), ("message", "1"), ("step", "1")]


def test_a_store_of_the_previous_schema_is_read_as_it_is_then_upgraded_by_a_writer(team_url, tmp_path):
    _previous_store(team_url)
    root = _empty_root(tmp_path)
    with TeamStore.open(team_url, readonly=True) as reader:
        assert reader.team_schema == FIRST_TEAM_SCHEMA and reader.searched_on_server() is None
        assert _functions(reader) == set()
        assert [s.title for s in reader.sessions()] == ["older session"]
        assert _search(reader, root, "lemur") == EXPECTED  # through an index on this machine, as before
    with TeamStore.open(team_url) as writer:
        assert writer.team_schema == TEAM_SCHEMA_VERSION
    with TeamStore.open(team_url, readonly=True) as reader:
        assert reader.query("SELECT version FROM memtui_schema") == [(TEAM_SCHEMA_VERSION,)]
        assert reader.team_schema == TEAM_SCHEMA_VERSION and reader.search_by == "trigrams"
        assert {"memtui_step_text", "memtui_task_text", "memtui_message_text", "memtui_json_text"} <= _functions(reader)
        indexes = {name for (name,) in reader.query("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%_search_%'")}
        assert indexes == {"task_search_trgm", "message_search_trgm", "step_search_trgm"}
        assert [s.title for s in reader.sessions()] == ["older session"]  # its rows kept
        assert reader.searched_on_server() is reader
        assert _search(reader, root, "lemur") == EXPECTED  # the same hits, found by the server


def test_an_upgrade_that_fails_part_way_leaves_the_previous_schema_whole(team_url, monkeypatch):
    _previous_store(team_url)

    def half_done(execute, trigrams):
        team_migrate.install_search(execute, trigrams)  # functions and indexes made…
        execute("SELECT 1 / 0")  # …then the step fails before its end

    monkeypatch.setitem(team_migrate.UPGRADES, FIRST_TEAM_SCHEMA, half_done)
    with pytest.raises(Exception, match="division by zero"):
        TeamStore.open(team_url)
    monkeypatch.undo()
    with TeamStore.open(team_url, readonly=True) as reader:
        assert reader.team_schema == FIRST_TEAM_SCHEMA and _functions(reader) == set()
        assert reader.query("SELECT COUNT(*) FROM pg_indexes WHERE indexname LIKE '%_search_%'") == [(0,)]
    with TeamStore.open(team_url) as writer:  # the next writer upgrades it
        assert writer.team_schema == TEAM_SCHEMA_VERSION


def test_a_writer_that_may_not_change_the_tables_writes_at_the_previous_schema(team_url, pg_cluster, tmp_path):
    """A role that owns no table (it may write rows, not add indexes) leaves the upgrade to the
    owner: the store stays at schema 8, is written as before, and is searched as before."""
    import os

    _previous_store(team_url)
    role = f"pusher_{os.getpid()}"
    pg_cluster.admin(f"CREATE ROLE {role} LOGIN")
    import psycopg

    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(f"GRANT USAGE, CREATE ON SCHEMA public TO {role}")
        conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
        conn.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    as_role = team_url.replace("memtui@", f"{role}@")
    with TeamStore.open(as_role) as writer:
        assert writer.team_schema == FIRST_TEAM_SCHEMA
        writer.start_task(writer.start_session("newer session"), "a second lemur")
    with TeamStore.open(as_role, readonly=True) as reader:
        assert reader.query("SELECT version FROM memtui_schema") == [(FIRST_TEAM_SCHEMA,)]
        assert _search(reader, _empty_root(tmp_path), "lemur")[:2] == [("task", "2"), ("task", "1")]


# ----------------------------------------------------------------- 9 → 10: steps' models and tokens by kind
def _usage_json(capsys, argv: list[str]) -> dict:
    import json

    from memtui.cli import main

    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _task_ids(url: str) -> dict[tuple[str, str], int]:
    with TeamStore.open(url, readonly=True) as store:
        return {(session, task): tid for session, task, tid in store.query(
            "SELECT o.session_key, t.origin_task, t.id FROM task t JOIN origin o ON o.id = t.origin_id")}


def test_a_store_of_schema_9_gains_step_models_and_the_next_push_fills_them(team_url, tmp_path, capsys, monkeypatch):
    """Pushed before 10, a step kept in/out tokens and a cost priced at push, no model: the cost is
    right, the model unknown. A writer upgrades the store; the next push sends every session
    again (their tasks keep their ids) and the report by model is the machine's own."""
    from team_machines import transcript_machines

    from memtui.core.store import team as team_module
    from memtui.core.team.push import push

    devbox = transcript_machines(tmp_path / "machines")[1]
    for key, value in devbox.env.items():
        monkeypatch.setenv(key, value)
    with monkeypatch.context() as older:
        older.setattr(team_module, "TEAM_SCHEMA_VERSION", 9)  # the memtui of team schema 9
        push(devbox.paths, team_url, machine=devbox.name, env=devbox.env)
    local = _usage_json(capsys, ["usage", str(devbox.home), "--by", "model"])
    assert len(local["rows"]) == 5
    ids = _task_ids(team_url)

    with TeamStore.open(team_url, readonly=True) as reader:  # read as it is
        assert reader.team_schema == 9
    at_9 = _usage_json(capsys, ["usage", "--team", team_url, "--by", "model"])
    assert [row["key"] for row in at_9["rows"]] == ["(no model recorded)"]
    assert at_9["total"]["cost"] == pytest.approx(local["total"]["cost"], rel=1e-6)  # priced at push

    with TeamStore.open(team_url) as writer:
        assert writer.team_schema == TEAM_SCHEMA_VERSION == 10
        assert writer.query("SELECT COUNT(*) FROM origin WHERE fingerprint != ''") == [(0,)]
        assert writer.query("SELECT COUNT(*) FROM push_cursor") == [(0,)]
    report = push(devbox.paths, team_url, machine=devbox.name, env=devbox.env)
    assert report.written == sum(s.sessions for s in report.sources) > 0
    assert _task_ids(team_url) == ids
    at_10 = _usage_json(capsys, ["usage", "--team", team_url, "--by", "model"])
    assert {row["key"]: (row["cost"], row["cache_read"], row["replies"]) for row in at_10["rows"]} == {
        row["key"]: (row["cost"], row["cache_read"], row["replies"]) for row in local["rows"]}


_KILLED_UPGRADE = """
import sys, time
from pathlib import Path
from memtui.core.store import team_migrate
from memtui.core.store.team import TeamStore

real = team_migrate.UPGRADES[9]

def slow(execute, trigrams):
    real(execute, trigrams)  # the columns added, fingerprints and cursors cleared …
    Path(sys.argv[2]).write_text("in")  # … and killed here, before the commit
    time.sleep(60)

team_migrate.UPGRADES[9] = slow
TeamStore.open(sys.argv[1])
"""


def test_an_upgrade_to_10_killed_mid_way_leaves_schema_9_whole(team_url, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    db = connect(team_url, readonly=False)
    m = build_models(db)
    try:
        with db.atomic():
            create_team(db, m, up_to=9)
            db.execute_sql("INSERT INTO origin (machine, user_name, agent, session_key, store_path, fingerprint,"
                           " pushed_at) VALUES ('laptop', 'ana', 'codex', 's1', '/home/ana/.codex', 'f1', 1)")
            db.execute_sql("INSERT INTO push_cursor VALUES ('laptop', '/home/ana/.codex', 1, 2, 3, 4)")
    finally:
        db.close()
    marker = tmp_path / "upgrading"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_UPGRADE, team_url, str(marker)])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with TeamStore.open(team_url, readonly=True) as reader:
        assert reader.team_schema == 9
        assert reader.query("SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 'step'"
                            " AND column_name = 'model'") == [(0,)]
        assert reader.query("SELECT fingerprint FROM origin") == [("f1",)]
        assert reader.query("SELECT COUNT(*) FROM push_cursor") == [(1,)]
    with TeamStore.open(team_url) as writer:  # the next writer upgrades it
        assert writer.team_schema == TEAM_SCHEMA_VERSION
        assert writer.query("SELECT fingerprint FROM origin") == [("",)]
