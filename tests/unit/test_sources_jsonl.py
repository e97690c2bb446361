"""JSONL session stores (DESIGN.md §5): sessions/*.jsonl, memory/history.jsonl and .cursor."""

from __future__ import annotations

import pytest

from memtui.core.memory_source import MemorySource
from memtui.core.discovery import discover
from memtui.core.agents.jsonl.source import JsonlSessionsSource

from sources_support import copy_fixture, tree_state


@pytest.fixture
def root(tmp_path):
    return copy_fixture("jsonl_store", tmp_path / "workspace")


def test_detected_from_the_workspace(root):
    kinds = {s.kind: s for s in discover(root, env={"HOME": str(root / "nohome")})}
    assert set(kinds) == {"memory-files", "jsonl-sessions"}
    assert kinds["jsonl-sessions"].counts() == {"sessions": 2, "messages": 8, "history_entries": 3}
    assert kinds["memory-files"].counts() == {"files": 4}  # memory/MEMORY.md, USER.md, SOUL.md, history.jsonl


def test_detected_from_a_session_file(root):
    [source] = discover(root / "sessions" / "cli_1717000000.jsonl")
    assert source.kind == "jsonl-sessions" and source.path == root


def test_truncated_and_malformed_lines_are_reported_and_skipped(root):
    store = JsonlSessionsSource(root)
    found = [(p.file.rsplit("/", 1)[-1], p.line, p.message.split(" at ")[0].split(" (")[0].split(":")[0]) for p in store.problems()]
    assert found == [
        ("desktop_main.jsonl", 6, "invalid UTF-8"),
        ("desktop_main.jsonl", 9, "truncated last line"),
        ("history.jsonl", 3, "malformed JSON"),
    ]


def test_sessions_turns_and_steps(root):
    store = JsonlSessionsSource(root)
    assert isinstance(store, MemorySource)
    sessions = store.sessions()
    assert [s.id for s in sessions] == ["cli:1717000000", "desktop:main"]  # newest first
    assert sessions[1].title == "前端重构讨论"
    assert sessions[0].title == "pnpm or npm?"  # empty title: the preview
    turns = store.tasks("desktop:main")
    assert [t.title for t in turns] == ["我觉得应该用 Compound Pattern 拆 Tabs 组件", "好的，顺便看看 caf\ufffd.css"]
    steps = store.steps(turns[0].id)
    assert [s.tool for s in steps] == ["read_file", "tool result read_file", "assistant"]
    assert steps[0].args[0]["function"]["name"] == "read_file"
    assert [m.role for m in store.messages(turns[0].id)] == ["user", "assistant", "assistant"]


def test_history_rows_are_memory_items_and_the_cursor_is_checked(root):
    store = JsonlSessionsSource(root)
    assert [(i.id, i.kind) for i in store.memory_items()] == [(1, "history"), (2, "history"), (3, "history")]
    (root / "memory" / ".cursor").write_text("5")
    problems = JsonlSessionsSource(root).problems()
    assert any(p.file.endswith(".cursor") and "history.jsonl ends at 3" in p.message for p in problems)


def test_a_cursor_that_goes_back_is_reported(root):
    with open(root / "memory" / "history.jsonl", "a") as handle:
        handle.write('{"cursor": 2, "content": "again", "at": "2025-05-03T00:00:00Z"}\n')
    problems = JsonlSessionsSource(root).problems()
    assert any("cursor 2 does not increase (previous 3)" in p.message for p in problems)


def test_browsing_changes_no_byte(root):
    before = tree_state(root)
    store = JsonlSessionsSource(root)
    for session in store.sessions():
        for task in store.tasks(session.id):
            store.steps(task.id)
            store.messages(task.id)
    store.memory_items()
    assert tree_state(root) == before


def test_wrong_typed_fields_are_read_safely(root):
    path = root / "sessions" / "desktop_main.jsonl"
    lines = path.read_bytes().splitlines()
    lines[0] = lines[0].replace(b'"key": "desktop:main"', b'"key": "desk#top"')
    lines[2] = lines[2].replace(b'"function": {"name": "read_file", "arguments": "{\\"path\\": \\"src/Tabs.tsx\\"}"}',
                                b'"function": "read_file"')
    lines[4] = lines[4].replace('"content": "计划'.encode(), b'"content": [{"text": ["a"]}, 3, {"text": "plan"}], "x": "')
    path.write_bytes(b"\n".join(lines) + b"\n")
    source = JsonlSessionsSource(root)
    session = next(s for s in source.sessions() if s.id == "desktop_main")  # the file name stands in
    steps = source.steps(source.tasks(session.id)[0].id)
    assert steps[0].tool == "tool"
    assert '["a"]' in steps[2].result and "plan" in steps[2].result and "3" in steps[2].result
    assert any("session key 'desk#top' is not usable text" in p.message for p in source.problems())
