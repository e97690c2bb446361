"""The command line: version, demo, one-line errors."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from memtui import __version__
from memtui.cli import main
from memtui.core.store import AgentStore


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out.strip() == f"memtui {__version__}"


def test_demo_writes_a_deterministic_workspace(tmp_path, capsys):
    assert main(["demo", str(tmp_path / "a"), "--seed", "3", "--no-open"]) == 0
    assert main(["demo", str(tmp_path / "b"), "--seed", "3", "--no-open"]) == 0
    out = capsys.readouterr().out
    assert f"demo workspace: {tmp_path / 'a'}" in out
    with AgentStore.open(tmp_path / "a", readonly=True) as a, AgentStore.open(tmp_path / "b", readonly=True) as b:
        assert a.sessions() == b.sessions()
        counts = a.counts()
        statuses = {t.status for s in a.sessions() for t in a.tasks(s.id)} | {t.status for t in a.tasks(None)}
        assert statuses == {"running", "waiting_user", "completed", "failed", "cancelled"}
        assert counts["steps"] >= 200 and counts["checkpoints"] >= 20
        assert a.tasks(None), "orphans of a deleted session"
        assert any(t.pinned for s in a.sessions() for t in a.tasks(s.id))
        assert any(t.superseded for s in a.sessions() for t in a.tasks(s.id))


def test_demo_files_on_disk_equal_latest_after_contents(tmp_path):
    main(["demo", str(tmp_path), "--no-open"])
    latest: dict[str, bytes | None] = {}
    with AgentStore.open(tmp_path, readonly=True) as store:
        tasks = [t for s in store.sessions() for t in store.tasks(s.id)] + store.tasks(None)
        for cp in sorted((cp for t in tasks for cp in store.checkpoints(t.id)), key=lambda c: c.id):
            for e in store.checkpoint_entries(cp.id):
                latest[e.path] = store.read_entry(e.id)[1]
    for path, data in latest.items():
        target = tmp_path / path
        assert (target.read_bytes() if target.exists() else None) == data, path
    assert (tmp_path / "MEMORY.md").exists() and (tmp_path / ".agent/init.d/04-decision-log.md").exists()


def test_existing_demo_is_not_overwritten(tmp_path, capsys):
    main(["demo", str(tmp_path), "--no-open"])
    assert main(["demo", str(tmp_path), "--no-open"]) == 2
    assert "holds an earlier memtui demo; pass --force" in capsys.readouterr().err


def test_errors_are_one_line_without_traceback(tmp_path):
    bogus = tmp_path / "agent.db"
    bogus.write_bytes(b"garbage" * 300)
    proc = subprocess.run([sys.executable, "-m", "memtui", "demo", str(tmp_path / "x"), "--scale", "nope"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("memtui: "), err
    return err


@pytest.mark.parametrize("argv", [["pin", "{p}", "1"], ["vacuum", "{p}"], ["gc", "{p}", "--apply"], ["stats", "{p}"],
                                  ["gc", "{p}"], ["rollback", "{p}", "--entry", "1"]])
def test_store_verbs_on_an_empty_folder_fail_and_create_nothing(tmp_path, capsys, argv):
    assert main([a.format(p=tmp_path) for a in argv]) == 2
    assert "no memtui store" in _one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [["pin", "{p}", "1"], ["vacuum", "{p}"], ["stats", "{p}"], ["gc", "{p}"]])
def test_a_file_that_is_not_sqlite_is_one_line(tmp_path, capsys, argv):
    bogus = tmp_path / "agent.db"
    bogus.write_bytes(b"garbage" * 300)
    assert main([a.format(p=bogus) for a in argv]) == 2
    assert "is not a SQLite database" in _one_line_error(capsys)


def test_a_write_verb_leaves_another_programs_database_as_it_was(tmp_path, capsys):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (a)")
    before = other.read_bytes()
    assert main(["pin", str(other), "1"]) == 2
    assert "not a memtui store" in _one_line_error(capsys)
    assert other.read_bytes() == before  # still journal_mode=delete, not switched to WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_pin_of_a_session_id_outside_an_agent_home_is_one_line(tmp_path, capsys):
    assert main(["pin", str(tmp_path), "abc"]) == 2
    assert "not a task number" in _one_line_error(capsys)


@pytest.mark.parametrize("argv", [["gc"], ["pin", "."], ["rollback", "."], ["gc", ".", "--apply", "--dry-run"]])
def test_usage_errors_are_one_line(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"memtui {argv[0]}: ") and err.endswith(f"(see memtui {argv[0]} --help)\n")
