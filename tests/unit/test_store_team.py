"""The team store on a real PostgreSQL server: what differs from agent.db (capabilities, where rows
came from, how contents are kept, read-only connections) and how a URL is opened.

The read model and recorder themselves are tested over both engines by the store's own tests
(the `any_store` fixture)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from browser_support import free_port
from memtui.cli import main
from memtui.core.demo import DemoClock
from memtui.core.errors import MemtuiError, ReadOnlyStore, SchemaTooNew, StoreNotFound
from memtui.core.memory_source import Capability, Unsupported
from memtui.core.resolve import resolve, team_url
from memtui.core.store import AgentStore
from memtui.core.store.team import TeamStore, shown_url
from memtui.core.store.team_migrate import TEAM_SCHEMA_VERSION


def _recorded(url: str) -> tuple[int, int]:
    with TeamStore.open(url, clock=DemoClock()) as store:
        session = store.start_session("fix the flaky test")
        task = store.start_task(session, "investigate")
        step = store.record_step(task, "edit_file", {"path": "io.py"}, "ok")
        cp = store.record_checkpoint(task, step, {"io.py": (b"old\n" * 300, b"new\n" * 300)})
        return task, cp


def test_a_team_store_is_made_on_first_write_with_its_schema_and_origin_tables(team_url):
    _recorded(team_url)
    with TeamStore.open(team_url, readonly=True) as store:
        assert store.query("SELECT version FROM memtui_schema") == [(TEAM_SCHEMA_VERSION,)]
        columns = {(t, c) for t, c in store.query(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()")}
        assert {("session", "origin_id"), ("task", "origin_id"), ("origin", "machine"), ("origin", "user_name"),
                ("origin", "agent"), ("origin", "session_key"), ("origin", "store_path")} <= columns
        # Times keep their sub-second part (double precision, not PostgreSQL's 4-byte REAL).
        assert store.query("SELECT data_type FROM information_schema.columns WHERE table_name = 'step'"
                           " AND column_name = 'created_at'") == [("double precision",)]


def test_contents_are_bytea_kept_out_of_line_uncompressed(team_url):
    _recorded(team_url)
    with TeamStore.open(team_url, readonly=True) as store:
        storage = dict(store.query(
            "SELECT c.relname, a.attstorage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
            " WHERE a.attname = 'data' AND c.relname IN ('blob', 'pack')"))
        assert storage == {"blob": "e", "pack": "e"}  # e: EXTERNAL


def test_contents_read_back_exactly_from_a_reader(team_url):
    task, cp = _recorded(team_url)
    with TeamStore.open(team_url, readonly=True) as store:
        entry = store.checkpoint_entries(cp)[0]
        assert store.read_entry(entry.id) == (b"old\n" * 300, b"new\n" * 300)
        assert store.read_blob(entry.after_hash) == b"new\n" * 300


def test_a_reader_cannot_write_and_query_refuses_writes_even_on_a_writer(team_url):
    _recorded(team_url)
    with TeamStore.open(team_url, readonly=True) as reader:
        with pytest.raises(ReadOnlyStore):
            reader.start_session("nope")
    with TeamStore.open(team_url) as writer:
        with pytest.raises(Exception, match="read-only transaction"):
            writer.query("DELETE FROM step")
        assert writer.counts()["steps"] == 1


def test_the_reader_writes_through_its_writer(team_url):
    task, _ = _recorded(team_url)
    with TeamStore.open(team_url, readonly=True) as reader:
        with reader.writer() as w:
            w.pin(task)
        assert reader.task(task).pinned


def test_a_team_store_offers_no_rollback_vacuum_freelist_or_watch_and_says_why(team_url):
    _recorded(team_url)
    with TeamStore.open(team_url, readonly=True) as store:
        assert store.can(Capability.GC) and store.can(Capability.PIN) and store.can(Capability.SEARCH)
        for missing in (Capability.ROLLBACK, Capability.VACUUM, Capability.STATS, Capability.LIVE):
            assert not store.can(missing)
        with pytest.raises(Unsupported, match="rolled back only on the machine that owns them"):
            store.require(Capability.ROLLBACK)
        with pytest.raises(Unsupported, match="no file to count free pages"):
            store.require(Capability.STATS)


def test_rollback_names_the_machine_that_owns_the_files(team_url):
    task, cp = _recorded(team_url)
    with TeamStore.open(team_url) as store:
        assert "names no machine" in store.rollback_command(cp)
        origin = store.query("SELECT 1") and store._run(
            "INSERT INTO origin (machine, user_name, agent, session_key, store_path, pushed_at)"
            " VALUES ('laptop-7', 'ana', 'memtui', '12', '/home/ana/proj', 0) RETURNING id").fetchall()[0][0]
        store.execute("UPDATE task SET origin_id = ? WHERE id = ?", (origin, task))
        assert store.rollback_command(cp).startswith("on laptop-7: memtui rollback /home/ana/proj")


def test_a_url_resolves_to_the_team_store_read_only(team_url):
    _recorded(team_url)
    with resolve(team_url) as resolved:
        assert isinstance(resolved.source, TeamStore) and resolved.source.readonly
        assert [s.title for s in resolved.source.sessions()] == ["fix the flaky test"]
    with pytest.raises(Unsupported, match="roll files back"):
        resolve(team_url, Capability.ROLLBACK)


def test_team_url_comes_from_the_option_else_the_environment():
    assert team_url("postgresql://a/b", env={"MEMTUI_TEAM_URL": "postgresql://c/d"}) == "postgresql://a/b"
    assert team_url(None, env={"MEMTUI_TEAM_URL": "postgresql://c/d"}) == "postgresql://c/d"
    assert team_url(None, env={}) is None


def test_an_empty_database_is_no_store_for_a_reader(team_url):
    with pytest.raises(StoreNotFound, match="no memtui store at"):
        TeamStore.open(team_url, readonly=True)


def test_an_unreachable_server_is_one_line_without_the_password(tmp_path):
    url = f"postgresql://ana:s3cret@/nothing?host={tmp_path}"
    with pytest.raises(StoreNotFound) as err:
        TeamStore.open(url, readonly=True)
    assert "s3cret" not in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith(f"cannot open the team store at {shown_url(url)}")


def test_a_newer_schema_is_refused(team_url, capsys):
    _recorded(team_url)
    with TeamStore.open(team_url) as store:
        store.execute("UPDATE memtui_schema SET version = ?", (TEAM_SCHEMA_VERSION + 1,))
    for readonly in (True, False):  # a writer does not "upgrade" it either
        with pytest.raises(SchemaTooNew, match=f"newer memtui \\(team schema {TEAM_SCHEMA_VERSION + 1}, this one reads"
                                               f" up to {TEAM_SCHEMA_VERSION}\\); upgrade memtui"):
            TeamStore.open(team_url, readonly=readonly)
    assert main(["log", team_url]) == 2
    err = capsys.readouterr().err.strip()
    assert "upgrade memtui" in err and "\n" not in err and "Traceback" not in err


def test_two_writers_creating_the_store_at_once_make_it_once(team_url):
    errors: list[BaseException] = []

    def create() -> None:
        try:
            TeamStore.open(team_url).close()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with TeamStore.open(team_url, readonly=True) as store:
        assert store.query("SELECT COUNT(*) FROM memtui_schema") == [(1,)]


def test_cli_log_reads_a_team_store_by_its_url(team_url, capsys):
    _recorded(team_url)
    assert main(["log", team_url, "--json"]) == 0
    out = capsys.readouterr().out
    assert "fix the flaky test" in out or "investigate" in out


def test_a_foreign_table_named_as_memtuis_is_refused(team_url, pg_cluster):
    import psycopg

    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE session (id int)")
    with pytest.raises(MemtuiError, match="no memtui store"):
        TeamStore.open(team_url)


def _readme_grants(database: str, suffix: str) -> list[str]:
    """The README's GRANT statements (Team store), for this database and roles of this test."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = text.split("### Team store", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    block = block.replace("'…'", "'x'").replace("memtui_reader", f"reader_{suffix}").replace(
        "memtui_writer", f"writer_{suffix}").replace("DATABASE memtui ", f'DATABASE "{database}" ')
    lines = [line.split("--")[0].strip() for line in block.splitlines()]
    return [s.strip() for s in " ".join(lines).split(";") if s.strip()]


def test_the_readmes_grants_let_the_writer_push_and_the_reader_only_read(pg_cluster, tmp_path):
    import os

    from memtui.core.team.push import push

    url = pg_cluster.new_database()
    database = url.split("/")[3].split("?")[0]
    suffix = str(os.getpid())
    statements = _readme_grants(database, suffix)
    # The role statements first (cluster-wide), then the grants inside the database.
    for sql in statements:
        if sql.startswith("CREATE ROLE") or "ON DATABASE" in sql:
            pg_cluster.admin(sql)
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for sql in statements:
            if not (sql.startswith("CREATE ROLE") or "ON DATABASE" in sql):
                conn.execute(sql)
    as_writer = url.replace("memtui@", f"writer_{suffix}@")
    as_reader = url.replace("memtui@", f"reader_{suffix}@")
    workspace = tmp_path / "ws"
    with AgentStore.open(workspace) as local:
        session = local.start_session("pushed by the writer role")
        local.start_task(session, "t")
    report = push([workspace], as_writer, machine="m1")
    assert report.written == 1
    with TeamStore.open(as_reader, readonly=True) as reader:
        assert [s.title for s in reader.sessions()] == ["pushed by the writer role"]
        assert reader.search_by == "trigrams"  # pg_trgm, created as the README says: substrings on the server
        with reader.writer() as w, pytest.raises(Exception, match="permission denied"):
            w.start_session("a reader may not write")


def test_stats_of_a_team_store_come_from_the_server(team_url, capsys):
    from gc_fixtures import TickClock, task_with_edit, version

    from memtui.core.gc import apply_gc

    with TeamStore.open(team_url, clock=TickClock()) as store:
        session = store.start_session("s")
        for i in range(6):
            task_with_edit(store, session, f"old {i}", after=version(i) * 20)
        task_with_edit(store, session, "current", finish=None)
        assert apply_gc(store).tasks == 6
        store.query("SELECT pg_stat_force_next_flush()")  # this connection's counts, now
    assert main(["stats", team_url, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    tables = {t["name"]: t for t in doc["tables"]}
    assert tables["step"]["dead_rows"] >= 12  # two steps of each collected task, until VACUUM
    assert tables["blob"]["bytes"] > 0 and doc["database_bytes"] > sum(t["bytes"] for t in doc["tables"]) / 2
    assert doc["content"]["entries"] == 1 and doc["content"]["blobs"] >= 1
    assert main(["stats", team_url]) == 0
    assert "no freelist on a server" in capsys.readouterr().out


def test_serve_shows_a_team_store_read_only_without_its_password(team_url, tmp_path):
    _recorded(team_url)
    with_password = team_url.replace("memtui@", "memtui:s3cret@")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "MEMTUI_TEAM_URL": ""}
    # A real server on every address: a team store is served read-only, so it is warned about, not refused.
    server = subprocess.Popen([sys.executable, "-m", "memtui", "serve", "--team", with_password, "--host", "0.0.0.0",
                               "--port", str(free_port())], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              text=True, env=env)
    try:
        assert server.stderr is not None
        lines = [server.stderr.readline().rstrip("\n") for _ in range(2)]
    finally:
        server.kill()
        server.wait()
    assert lines[0].startswith("memtui: serving postgresql://memtui@") and "/?token=" in lines[0]
    assert "can browse the agent memory" in lines[1] and "change" not in lines[1]
    assert not any("s3cret" in line for line in lines)
    from memtui.cli.serve import app_command

    import shlex

    assert shlex.split(app_command(team_url, None, read_only=True))[-3:] == ["open", "--team", "--read-only"]
