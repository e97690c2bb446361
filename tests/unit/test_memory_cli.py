"""The memory verbs: memory, memory-history, decisions, lint, search (text and --json)."""

from __future__ import annotations

import json

import pytest
from memory_workspace import make_store, make_workspace

from memtui.cli import main


@pytest.fixture
def ws(tmp_path):
    root = make_workspace(tmp_path / "ws")
    make_store(root)
    return root


def run_json(capsys, *argv):
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_memory_lists_documents_by_kind(ws, capsys):
    code, docs = run_json(capsys, "memory", str(ws))
    assert code == 0
    first = docs[0]
    assert set(first) == {"file", "kind", "format", "size", "lines", "mtime"}
    assert [d["kind"] for d in docs][:3] == ["memory", "memory", "memory"]
    assert main(["memory", str(ws)]) == 0
    text = capsys.readouterr().out
    assert "Long-term memory:" in text and "init.d (cold start):" in text


def test_lint_json_and_exit_status(ws, capsys):
    code, findings = run_json(capsys, "lint", str(ws))
    assert code == 1
    assert {"file", "line", "rule", "message"} == set(findings[0])
    rules = {f["rule"] for f in findings}
    # the store has a running task and its newest checkpoint (2026-11-03) is newer than the files
    assert {"decision-missing-why", "possibly-stale", "navigation-missing-path"} <= rules
    # a finding about the whole file names no line (never "line 0")
    assert all(f["line"] is None for f in findings if f["rule"] == "possibly-stale")
    assert all(f["line"] >= 1 for f in findings if f["line"] is not None)
    assert main(["lint", str(ws)]) == 1
    text = capsys.readouterr().out
    assert "SESSION_SUMMARY.md: possibly-stale: " in text and ":0:" not in text


def test_lint_clean_workspace_exits_0(tmp_path, capsys):
    root = make_workspace(tmp_path / "ws", {"MEMORY.md": "# M\n", ".agent/run-init.sh": ""})
    assert main(["lint", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "no findings"


def test_lint_accepts_the_agent_db_path(ws, capsys):
    code, findings = run_json(capsys, "lint", str(ws / ".agent/agent.db"))
    assert code == 1 and findings


def test_search_json(ws, capsys):
    code, hits = run_json(capsys, "search", str(ws), "quokka")
    assert code == 0
    assert hits == [{"kind": "step", "task": 1, "step": 1, "line": 1, "text": hits[0]["text"]}]
    code, hits = run_json(capsys, "search", str(ws), "flaky", "--kind", "file")
    assert code == 0 and {h["kind"] for h in hits} == {"file"}
    assert main(["search", str(ws), "nothing-like-this"]) == 1


def test_memory_history_list_show_restore_undo(ws, capsys):
    from memtui.core.memory import read_document, save_document

    path = ws / "MEMORY.md"
    original = path.read_bytes()
    save_document(ws, path, "edited\n", read_document(path).version)
    code, entries = run_json(capsys, "memory-history", str(ws), "MEMORY.md")
    assert code == 0 and [(e["number"], e["reason"], e["size"]) for e in entries] == [(1, "save", len(original))]
    assert main(["memory-history", str(ws), "MEMORY.md", "--show", "1"]) == 0
    assert capsys.readouterr().out.encode() == original
    code, result = run_json(capsys, "memory-history", str(ws), "MEMORY.md", "--restore", "1")
    assert code == 0 and result["action"] == "restore" and path.read_bytes() == original
    code, result = run_json(capsys, "memory-history", str(ws), "MEMORY.md", "--undo")
    assert path.read_text() == "edited\n"
    assert main(["memory-history", str(ws), "MEMORY.md", "--restore", "42"]) == 2
    assert "no #42" in capsys.readouterr().err


def test_decisions_list_filter_and_add(ws, capsys):
    code, entries = run_json(capsys, "decisions", str(ws))
    assert code == 0 and [e["title"] for e in entries] == ["Use SQLite for the store", "Drop the plugin loader"]
    code, entries = run_json(capsys, "decisions", str(ws), "--missing-why")
    assert [e["line"] for e in entries] == [9]
    code, entries = run_json(capsys, "decisions", str(ws), "--add", "Keep history", "--problem", "lost edits",
                             "--chosen", "history", "--why", "undo", "--date", "2026-11-30")
    assert entries[-1] == {
        "file": ".agent/init.d/04-decision-log.md", "line": 14, "date": "2026-11-30", "title": "Keep history",
        "problem": "lost edits", "options": "…", "chosen": "history", "why": "undo", "missing_why": False}


def test_unknown_document_is_a_one_line_error(ws, capsys):
    assert main(["memory-history", str(ws), "NOPE.md"]) == 2
    assert capsys.readouterr().err.startswith("memtui: no memory document NOPE.md")


def test_decisions_file_outside_the_workspace_is_one_line(ws, capsys):
    assert main(["decisions", str(ws), "--file", "../elsewhere.md", "--add", "Escape"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memtui: ") and "outside the workspace" in err and err.count("\n") == 1
    assert not (ws.parent / "elsewhere.md").exists()
