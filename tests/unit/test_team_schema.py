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
