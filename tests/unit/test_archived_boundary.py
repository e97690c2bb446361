"""A Claude Code or Codex store found by discovery is wrapped with its archived sessions
(memtui.core.sources.archived.WithArchived). The wrapper answers the MemorySource protocol
and nothing more: it offers exactly what the bare adapter offers through that protocol, plus
the archived sessions, and what an adapter keeps beyond the protocol is not reachable.

The fixtures are the Claude Code and Codex homes of tests/fixtures, their recorded working
directory pointed at a temporary workspace (sources_support.agent_homes).
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from memtui.core.errors import ContentUnknown
from memtui.core.memory_source import PARTS, MemorySource
from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.core.sources.archived import WithArchived

from sources_support import agent_homes, discovered

def protocol(source: MemorySource) -> list[str]:
    """Every public name of the protocol and of the optional parts `source` has (reads,
    capabilities, the rollback hooks and writer, what to watch, the resume command …)."""
    kinds = [MemorySource, *(kind for capability, kind in PARTS.items() if source.has_part(capability))]
    return sorted({name for kind in kinds for name in (*dir(kind), *kind.__annotations__) if not name.startswith("_")})


@pytest.fixture(params=["claude-code", "codex"])
def pair(request, tmp_path):
    """(the discovered source, opened — a WithArchived — and the bare adapter it wraps)."""
    workspace, env = agent_homes(tmp_path)
    wrapped = discovered(workspace, env, request.param).open()
    assert isinstance(wrapped, WithArchived)
    return wrapped, wrapped.live


def _answer(source: MemorySource, name: str) -> object:
    """What `name` gives: a value, or the answer of a method that takes no argument."""
    value = getattr(source, name)
    if not callable(value):
        return value
    params = [p for p in inspect.signature(value).parameters.values() if p.default is inspect.Parameter.empty]
    if params or name in ("writer", "reading", "close", "reload"):
        return "takes arguments"
    return value()


def test_the_wrapper_answers_every_name_of_the_protocol_as_the_bare_store_does(pair):
    wrapped, bare = pair
    assert [c for c in PARTS if wrapped.has_part(c)] == [c for c in PARTS if bare.has_part(c)]
    for name in protocol(bare):
        assert hasattr(wrapped, name), name
        got, expected = _answer(wrapped, name), _answer(bare, name)
        if name == "counts":
            assert got == {**expected, "archived_sessions": 0}
        elif name == "searched_stores":  # each names itself: the wrapper searches its archived sessions too
            assert [(label, store is wrapped) for label, store in got] == [
                (label, store is bare) for label, store in expected], name
        elif name not in ("sessions", "session_page", "problems"):  # fresh lists of equal records below
            assert got == expected, name
    assert list(wrapped.sessions()) == sorted(bare.sessions(), key=lambda s: s.updated_at, reverse=True)
    assert wrapped.problems() == bare.problems()
    for session in bare.sessions():
        for task in bare.tasks(session.id):
            assert wrapped.workspace_root(task.id) == bare.workspace_root(task.id)
            assert wrapped.steps(task.id) == bare.steps(task.id)
            assert wrapped.checkpoints(task.id) == bare.checkpoints(task.id)
        assert wrapped.token_usage(session.id) == bare.token_usage(session.id)
        assert wrapped.resume_command(session.id) == bare.resume_command(session.id)


def test_what_an_adapter_keeps_beyond_the_protocol_is_not_reachable(pair):
    wrapped, bare = pair
    beyond = sorted(name for name in dir(bare) if not name.startswith("_") and name not in protocol(bare))
    assert beyond  # the adapters do keep more (their files, the undo log, the recorded folder)
    assert [name for name in beyond if hasattr(wrapped, name)] == []


def _readable(source: MemorySource, entry_id: object) -> bool:
    """Both sides of the file change are recorded (a rollback can write it)."""
    try:
        source.read_entry(entry_id)
    except ContentUnknown:
        return False
    return True


def test_a_rollback_through_the_wrapper_records_its_undo_as_the_bare_store_does(pair, tmp_path):
    wrapped, bare = pair
    assert wrapped.undo_kept_in == bare.undo_kept_in == "state"
    task, entry = next((t, e) for s in bare.sessions() for t in bare.tasks(s.id) for c in bare.checkpoints(t.id)
                       for e in bare.checkpoint_entries(c.id) if _readable(bare, e.id))
    after = wrapped.read_entry(entry.id)[1]
    if after is not None:  # the file as the edit left it
        target = Path(wrapped.workspace) / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(after)
    result = apply_rollback(wrapped, plan_rollback(wrapped, entry=entry.id, root=wrapped.workspace))
    assert result.ok and result.undo_checkpoint is not None and result.pinned_task is None
    assert any("state folder" in note for note in result.notes)
    [newest] = wrapped.rollback_checkpoints(1)
    assert newest.id == result.undo_checkpoint and bare.rollback_checkpoints(1) == [newest]
    assert newest in wrapped.checkpoints(task.id)


def test_the_writer_drops_the_files_a_rollback_could_not_write_from_its_undo(pair):
    """apply_rollback removes from the undo checkpoint the files it failed to write: the
    writer of a transcript store (memtui's state folder) does that as memtui's own store does."""
    wrapped, _bare = pair
    task = next(t for s in wrapped.sessions() for t in wrapped.tasks(s.id))
    with wrapped.writer() as writer, writer.transaction():
        undo = writer.record_checkpoint(task.id, None, {"a.txt": (b"disk\n", b"old\n"), "b.txt": (None, b"new\n")})
        writer.pin(task.id)
    assert writer.remove_entries(undo, ["b.txt"]) == 1
    assert [e.path for e in wrapped.checkpoint_entries(undo)] == ["a.txt"]
    assert wrapped.read_entry(wrapped.checkpoint_entries(undo)[0].id) == (b"disk\n", b"old\n")
