"""Search across memory documents and the store, with an index that never touches agent.db."""

from __future__ import annotations

import hashlib
import os

import pytest
from memory_workspace import make_store, make_workspace

from memtui.core.memory import SearchIndex, search_workspace
from memtui.core.store import AgentStore


@pytest.fixture
def ws(tmp_path):
    root = make_workspace(tmp_path / "ws")
    make_store(root)
    return root


def test_hits_in_files_carry_file_and_line(tmp_path):
    root = make_workspace(tmp_path / "ws")
    hits = search_workspace(root, "flaky")
    found = {(h.kind, h.file, h.line) for h in hits}
    assert ("file", "PROJECT_MEMORY.md", 7) in found
    assert ("file", "SESSION.jsonl", 1) in found
    assert all(h.task is None for h in hits)
    assert hits[0].to_json().keys() == {"kind", "file", "line", "text"}


def test_hits_in_the_store(ws):
    with AgentStore.open(ws, readonly=True) as store:
        def one(query):
            hits = search_workspace(ws, query, store)
            assert len(hits) == 1, hits
            return hits[0]

        title = one("zebra race")  # task title (HISTORY.jsonl says "zebra project": not both words)
        assert (title.kind, title.task) == ("task", "1")
        assert one("platypus").kind == "task"  # the summary, not again as its message
        step = one("quokka")
        assert (step.kind, step.task, step.line, step.step) == ("step", "1", 1, "1")
        assert step.to_json() == {"kind": "step", "task": 1, "step": 1, "line": 1, "text": step.text}
        message = one("narwhal")
        assert (message.kind, message.task) == ("message", "1")


def test_search_is_case_insensitive_and_matches_substrings_and_short_words(tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert {h.file for h in search_workspace(root, "SQLITE")} >= {"MEMORY.md"}
    assert any(h.file == "SESSION_SUMMARY.md" for h in search_workspace(root, "unfinish"))
    assert any(h.file == "SESSION_SUMMARY.md" for h in search_workspace(root, "io"))  # < 3 chars: scan
    assert any(h.line == 9 for h in search_workspace(root, '"lock around"'))
    assert search_workspace(root, "   ") == []


def test_the_index_lives_beside_the_store_and_agent_db_is_never_written(ws):
    db = ws / ".agent/agent.db"
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    mtime = os.stat(db).st_mtime_ns
    with AgentStore.open(ws, readonly=True) as store:
        with SearchIndex(ws, store) as index:
            index.refresh()
            assert index.path == str(ws / ".agent/.memtui/search.db")
            assert index.search("zebra")
    assert (ws / ".agent/.memtui/search.db").is_file()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest and os.stat(db).st_mtime_ns == mtime


def test_changed_files_are_reindexed(tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert search_workspace(root, "wombat") == []
    (root / "MEMORY.md").write_text("# Memory\nthe wombat rule\n")
    assert [(h.file, h.line) for h in search_workspace(root, "wombat")] == [("MEMORY.md", 2)]
    (root / "MEMORY.md").unlink()
    assert search_workspace(root, "wombat") == []


def test_the_store_part_is_rebuilt_when_the_store_changes(ws):
    with AgentStore.open(ws, readonly=True) as store:
        assert search_workspace(ws, "axolotl", store) == []
    with AgentStore.open(ws) as store:
        store.add_message(2, "user", "what about the axolotl?")
    with AgentStore.open(ws, readonly=True) as store:
        assert [(h.kind, h.task) for h in search_workspace(ws, "axolotl", store)] == [("message", "2")]


def test_unwritable_store_folder_builds_the_index_in_memory(ws, monkeypatch):
    # chmod does not stop root (CI containers), so the permission check itself is faked
    monkeypatch.setattr("memtui.core.memory.search.os.access", lambda path, mode: False)
    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store) as index:
        assert index.path == ":memory:"
        index.refresh()
        assert index.search("quokka")
    assert not (ws / ".agent/.memtui").exists()


def test_damaged_index_is_rebuilt(tmp_path):
    root = make_workspace(tmp_path / "ws")
    index_file = root / ".agent/.memtui/search.db"
    index_file.parent.mkdir(parents=True)
    index_file.write_bytes(b"not a database at all" * 100)
    assert search_workspace(root, "flaky")


def test_cancelled_refresh_stops_early(tmp_path):
    root = make_workspace(tmp_path / "ws")
    with SearchIndex(root, path=":memory:") as index:
        index.refresh(cancelled=lambda: True)
        assert index.search("flaky") == []


def test_only_changed_tasks_are_reindexed(ws):
    with AgentStore.open(ws, readonly=True) as store, SearchIndex(ws, store) as index:
        index.refresh()
    with AgentStore.open(ws) as store:
        store.record_step(2, "bash", {"command": "make lock"}, "capybara ok")
    with AgentStore.open(ws, readonly=True) as store:
        asked = []
        original = store.steps
        store.steps = lambda task_id, *a, **k: asked.append(task_id) or original(task_id, *a, **k)
        with SearchIndex(ws, store) as index:
            index.refresh()
            assert asked == [2]
            assert [(h.kind, h.task, h.line) for h in index.search("capybara")] == [("step", "2", 1)]
            assert [h.task for h in index.search("quokka")] == ["1"]  # untouched task still indexed
