"""The gc, pin, stats and vacuum verbs: text, JSON and errors."""

from __future__ import annotations

import json
import sqlite3

import pytest

from gc_fixtures import new_store, task_with_edit
from memtui.cli import main
from memtui.cli._common import dump_json
from memtui.core.gc import plan_gc
from memtui.core.store import AgentStore


@pytest.fixture
def workspace(tmp_path):
    store = new_store(tmp_path)
    s = store.start_session("s")
    old = task_with_edit(store, s, "old")
    cur = task_with_edit(store, s, "current", finish=None)
    gone = store.start_session("deleted")
    orphan = task_with_edit(store, gone, "orphan")
    store.delete_session(gone)
    store.close()
    return tmp_path / "ws", {"old": old, "current": cur, "orphan": orphan}


def _json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_gc_dry_run_json(workspace, capsys):
    path, ids = workspace
    doc = _json(capsys, "gc", str(path), "--dry-run", "--json")
    assert doc["roots"] == [{"task": ids["current"], "kind": "current", "kinds": ["current", "running"]}]
    assert [t["task"] for t in doc["live"]] == [ids["current"]]
    assert doc["live"][0]["reason"] == "root: current task of an open session"
    rec = {t["task"]: t for t in doc["reclaimable"]}
    assert set(rec) == {ids["old"], ids["orphan"]}
    assert rec[ids["orphan"]]["orphan"] and not rec[ids["old"]]["orphan"]
    assert {k: rec[ids["old"]][k] for k in ("steps", "checkpoints", "entries")} == {
        "steps": 2, "checkpoints": 1, "entries": 1}
    assert doc["reclaimable_bytes"] == sum(t["bytes"] for t in doc["reclaimable"]) + doc["loose_bytes"]
    # The preview wrote nothing.
    assert _json(capsys, "gc", str(path), "--json")["reclaimable_bytes"] == doc["reclaimable_bytes"]


def _as_one_document(path) -> str:
    """The preview's JSON as the whole document dumped at once (how --json was written before
    it was streamed row by row)."""
    with AgentStore.open(path, readonly=True) as store:
        return dump_json(plan_gc(store, titles=True).to_json(), indent=None) + "\n"


def test_gc_json_into_a_pipe_is_the_whole_document_with_titles(demo_path, capsys):
    assert main(["gc", str(demo_path), "--dry-run", "--json"]) == 0
    out = capsys.readouterr().out
    assert out == _as_one_document(demo_path)
    doc = json.loads(out)
    shown = {row["task"]: row["title"] for row in (*doc["live"], *doc["reclaimable"])}
    with AgentStore.open(demo_path, readonly=True) as store:
        stored = dict(store.query("SELECT id, title FROM task"))
    assert shown and shown == {task: stored[task] for task in shown}
    assert len(doc["live"]) + len(doc["reclaimable"]) + doc["collected"] == doc["tasks"] == len(stored)


def test_gc_json_keeps_hostile_titles_exact(workspace, capsys, monkeypatch):
    path, ids = workspace
    titles = {"old": 'a "quoted" \\ back\\slash\n\ttab \x01\x1b[31mred[/b]',
              "current": "na\u00efve \u6f22\u5b57 \u202eevil\u202c \U0001f600"}
    db = path / ".agent" / "agent.db"
    with sqlite3.connect(db) as conn:
        for name, title in titles.items():
            conn.execute("UPDATE task SET title = ? WHERE id = ?", (title, ids[name]))
        conn.execute("UPDATE task SET title = CAST(? AS BLOB) WHERE id = ?", (b"bytes \xff title", ids["orphan"]))
    conn.close()
    monkeypatch.setattr("memtui.core.gc.plan_json.ROWS_PER_PIECE", 1)  # every row its own piece
    assert main(["gc", str(path), "--dry-run", "--json"]) == 0
    out = capsys.readouterr().out
    assert out == _as_one_document(path)
    doc = json.loads(out)
    shown = {row["task"]: row["title"] for row in (*doc["live"], *doc["reclaimable"])}
    assert shown == {ids["old"]: titles["old"], ids["current"]: titles["current"],
                     ids["orphan"]: "bytes \ufffd title"}


def test_gc_text_then_apply(workspace, capsys):
    path, ids = workspace
    assert main(["gc", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"#{ids['orphan']}" in text and "orphan" in text and "--apply" in text
    planned = _json(capsys, "gc", str(path), "--json")["reclaimable_bytes"]
    done = _json(capsys, "gc", str(path), "--apply", "--batch", "1", "--json")
    assert done["tasks"] == 2 and done["bytes"] == planned
    assert done["steps"] == 4 and done["checkpoints"] == 2 and done["entries"] == 2
    assert done["freelist_after"] >= done["freelist_before"]
    assert _json(capsys, "gc", str(path), "--json")["reclaimable"] == []
    assert main(["gc", str(path), "--apply"]) == 0
    assert "collected 0 tasks" in capsys.readouterr().out


def test_gc_refuses_both_modes_and_bad_batch(workspace, capsys):
    path, _ = workspace
    with pytest.raises(SystemExit):
        main(["gc", str(path), "--dry-run", "--apply"])
    assert main(["gc", str(path), "--apply", "--batch", "0"]) == 2
    assert "--batch" in capsys.readouterr().err
    assert main(["gc", str(path), "--apply", "--max-tasks", "-1"]) == 2  # not "all but the last"
    assert "--max-tasks" in capsys.readouterr().err


def test_pin_and_unpin(workspace, capsys):
    path, ids = workspace
    assert _json(capsys, "pin", str(path), str(ids["old"]), "--json") == {
        "task": ids["old"], "pinned": True, "collected": False}
    roots = _json(capsys, "gc", str(path), "--json")["roots"]
    assert {"task": ids["old"], "kind": "pinned", "kinds": ["pinned"]} in roots
    assert main(["pin", str(path), str(ids["old"]), "--unpin"]) == 0
    assert "unpinned" in capsys.readouterr().out
    assert main(["pin", str(path), "424242"]) == 2
    assert "no task 424242" in capsys.readouterr().err


def test_stats_json_matches_pragmas(workspace, capsys):
    path, _ = workspace
    doc = _json(capsys, "stats", str(path), "--json")
    db = path / ".agent" / "agent.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        for key in ("page_size", "page_count", "freelist_count"):
            assert doc[key] == conn.execute(f"PRAGMA {key}").fetchone()[0]
    assert doc["auto_vacuum"] == "incremental"
    assert {"name", "bytes", "rows"} <= set(doc["tables"][0])
    assert {"name", "table", "bytes"} <= set(doc["indexes"][0])
    assert doc["content"]["raw_bytes"] >= doc["content"]["stored_bytes"] > 0
    assert doc["file_bytes"] == db.stat().st_size
    assert main(["stats", str(path)]) == 0
    assert "freelist" in capsys.readouterr().out


def test_vacuum_verbs(workspace, capsys):
    path, _ = workspace
    _json(capsys, "gc", str(path), "--apply", "--json")
    inc = _json(capsys, "vacuum", str(path), "--incremental", "1", "--json")
    assert inc["kind"] == "incremental"
    full = _json(capsys, "vacuum", str(path), "--json")
    assert full["kind"] == "vacuum" and full["freelist_after"] == 0
    cp = _json(capsys, "vacuum", str(path), "--checkpoint", "--json")
    assert cp["kind"] == "checkpoint" and cp["wal_bytes_after"] == 0


def test_missing_store_is_one_line(tmp_path, capsys):
    assert main(["gc", str(tmp_path / "nowhere")]) == 2
    assert main(["stats", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("memtui: ") for line in err)


def test_the_preview_screen_and_the_cli_give_a_root_the_same_words(tmp_path, capsys):
    """One wording for a task GC keeps by itself: 'root: pinned' in gc --dry-run, in the
    preview's mark and in its why-sentence (never 'protected' in one and 'root' in another)."""
    from memtui.core.demo import build_demo
    from memtui.core.gc import plan_gc, preview_rows
    from memtui.core.store import AgentStore

    root = build_demo(tmp_path / "demo", seed=1)
    with AgentStore.open(root, readonly=True) as store:
        plan = plan_gc(store)
        rows = {t.task: t for s in preview_rows(store, plan) for t in s.tasks}
    assert rows[12].label == "root: pinned" and rows[12].explanation == "root: pinned"
    assert rows[15].label == "root: running" and rows[15].explanation == "root: running"
    assert {t.state for t in rows.values()} <= {"root", "live", "reclaimable", "collected"}
    assert rows[1].explanation.endswith("would remove 9 steps, 0 checkpoints, 0 entries and 0 stored contents: 2.1 KiB")
    assert not any("protected" in t.label or "protected" in t.explanation for t in rows.values())
    assert main(["gc", str(root)]) == 0
    out = capsys.readouterr().out
    assert next(line for line in out.splitlines() if line.startswith("  #12 ")).endswith("— root: pinned")


def test_one_of_a_kind_is_counted_in_the_singular(tmp_path, capsys):
    store = new_store(tmp_path)
    session = store.start_session("s")
    task_with_edit(store, session, "old")
    task_with_edit(store, session, "current", finish=None)
    store.close()
    assert main(["gc", str(tmp_path / "ws")]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = lines[0]
    assert first.startswith("2 tasks: 1 live (1 root), 1 reclaimable"), first
    # The reclaimable task's row: "2 steps  1 checkpoint   1 entry" (it read "1 checkpoints 1 entries").
    [row] = [line for line in lines if line.startswith("  #1 ")]
    assert " 2 steps " in row and " 1 checkpoint " in row and " 1 entry " in row, row
    assert main(["gc", str(tmp_path / "ws"), "--apply", "--yes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("collected 1 task: 2 steps, 1 checkpoint, 1 entry, 0 blobs"), out
    # right after: what went is "already collected", not "collected earlier"
    assert main(["gc", str(tmp_path / "ws")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "2 tasks: 1 live (1 root), 0 reclaimable, 1 already collected"
