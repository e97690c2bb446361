"""The shared machinery of foreign sources: streaming JSONL, read-only SQLite, hunks,
discovery, the `memtui sources` verb, and the core/UI wall."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.errors import MemtuiError
from memtui.core.model import Problem
from memtui.core.discovery import discover
from memtui.core.sources.jsonl import iter_records
from memtui.core.agents.claude_code.patches import PatchMismatch, apply_hunks
from memtui.core.sqlite_readonly import connect_readonly

from sources_support import agent_homes, tree_state


def read_all(path: Path) -> tuple[list[tuple[int, dict]], list[Problem]]:
    problems: list[Problem] = []
    return [(n, r) for n, _o, r in iter_records(path, problems)], problems


def test_jsonl_reports_malformed_truncated_and_non_utf8_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": \n\n[1]\n{"t": "caf\xe9"}\n{"a": 2}\n{"a": 3, "cut')
    records, problems = read_all(path)
    assert [n for n, _ in records] == [1, 5, 6]
    assert records[1][1]["t"] == "caf\ufffd"
    assert [(p.line, p.message.split(":")[0].split(" (")[0]) for p in problems] == [
        (2, "malformed JSON"),
        (4, "not a JSON object, skipped"),
        (5, "invalid UTF-8 at byte 10"),
        (7, "truncated last line"),
    ]
    assert all(p.file == str(path) for p in problems)


def test_jsonl_last_line_without_newline_that_parses_is_kept(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}')
    records, problems = read_all(path)
    assert [r["a"] for _, r in records] == [1, 2] and problems == []


def test_jsonl_streams_a_huge_line(tmp_path):
    path = tmp_path / "big.jsonl"
    blob = "x" * (24 * 1024 * 1024)
    path.write_text(json.dumps({"n": 1}) + "\n" + json.dumps({"n": 2, "blob": blob}) + "\n" + json.dumps({"n": 3}) + "\n")
    records, problems = read_all(path)
    assert [r["n"] for _, r in records] == [1, 2, 3] and problems == []
    assert len(records[1][1]["blob"]) == len(blob)


def test_readonly_sqlite_leaves_a_wal_database_untouched(tmp_path):
    db = tmp_path / "pk.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=wal")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    conn.close()
    before = tree_state(tmp_path)
    ro = connect_readonly(db)
    assert [tuple(r) for r in ro.execute("SELECT x FROM t")] == [(1,)]
    with pytest.raises(sqlite3.OperationalError):
        ro.execute("INSERT INTO t VALUES (2)")
    ro.close()
    assert tree_state(tmp_path) == before  # no -wal / -shm created, no byte changed


def test_readonly_sqlite_sees_rows_still_in_the_write_ahead_log(tmp_path):
    db = tmp_path / "pk.db"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=wal")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (x)")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()  # the agent is still running: the row lives only in pk.db-wal
    try:
        main_bytes = db.read_bytes()
        ro = connect_readonly(db)
        assert [tuple(r) for r in ro.execute("SELECT x FROM t")] == [(1,)]
        ro.close()
        assert db.read_bytes() == main_bytes
    finally:
        writer.close()


def test_hunks_rebuild_the_after_text_or_refuse():
    before = "a\nb\nc\nd\n"
    hunks = [{"oldStart": 2, "oldLines": 2, "newStart": 2, "newLines": 3, "lines": [" b", "-c", "+C", "+C2", " d"]}]
    assert apply_hunks(before, hunks) == "a\nb\nC\nC2\nd\n"
    with pytest.raises(PatchMismatch):
        apply_hunks("a\nX\nc\nd\n", hunks)


def test_discover_finds_nothing_in_an_empty_folder(tmp_path):
    assert discover(tmp_path, env={"HOME": str(tmp_path / "nohome")}) == []


def test_discover_refuses_a_missing_path(tmp_path):
    with pytest.raises(MemtuiError):
        discover(tmp_path / "missing")


def test_sources_verb_prints_an_empty_list_and_exits_0(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert main(["sources", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"path": str(tmp_path.resolve()), "sources": []}


def test_sources_verb_lists_every_store_of_a_workspace(tmp_path, capsys, monkeypatch):
    workspace, env = agent_homes(tmp_path)
    (workspace / "CLAUDE.md").write_text("# Project rules\n")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["sources", str(workspace), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["path"] == str(workspace.resolve())
    assert [s["kind"] for s in report["sources"]] == ["memory-files", "claude-code", "codex"]
    for source in report["sources"]:
        assert set(source) == {"kind", "path", "counts", "capabilities", "problems"}
        for problem in source["problems"]:
            assert set(problem) == {"file", "line", "message"}
    assert report["sources"][0]["counts"] == {"files": 1}


def test_sources_verb_text_output(tmp_path, capsys, monkeypatch):
    workspace, env = agent_homes(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["sources", str(workspace)]) == 0
    out = capsys.readouterr().out
    assert "claude-code" in out and "prompts 5" in out and "truncated last line" in out


def test_a_workspace_folder_named_projects_is_not_a_claude_home(tmp_path):
    (tmp_path / "projects" / "p").mkdir(parents=True)
    (tmp_path / "projects" / "p" / "data.jsonl").write_text('{"row": 1}\n')
    assert discover(tmp_path, env={"HOME": str(tmp_path / "nohome")}) == []
