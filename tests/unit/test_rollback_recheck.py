"""Rollback re-checks each file just before it writes or deletes it: a write by the agent
after the rollback read the disk (while the undo was being recorded) is kept, reported as a
conflict, and left out of the undo."""

from __future__ import annotations

import pytest

from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.core.store import AgentStore
from rollback_world import World


@pytest.fixture
def world(tmp_path):
    w = World(tmp_path)
    yield w
    w.close()


def _agent_writes_while_the_undo_is_recorded(monkeypatch, world: World, writes: dict[str, bytes | None]) -> None:
    """The agent writes `writes` at the moment memtui records the undo (after its disk read,
    before its writes): the window a busy store's lock wait opens."""
    real = AgentStore.record_checkpoint

    def record_checkpoint(self, *args, **kwargs):
        if kwargs.get("label") in ("rollback", "undo"):
            for rel, data in writes.items():
                world.write(rel, data)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(AgentStore, "record_checkpoint", record_checkpoint)


@pytest.mark.parametrize("force", [False, True])
def test_a_file_the_agent_writes_meanwhile_is_kept_and_not_in_the_undo(world, monkeypatch, force):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "b.txt": b"b1\n"})
    plan = plan_rollback(world.store, checkpoint=cp, force=force)
    _agent_writes_while_the_undo_is_recorded(monkeypatch, world, {"a.txt": b"agent's newer work\n"})

    result = apply_rollback(world.store, plan)

    assert world.read("a.txt") == b"agent's newer work\n"
    assert world.read("b.txt") == b"b0\n"
    assert {f.path: f.status for f in result.files} == {"a.txt": "conflict", "b.txt": "done"}
    assert "changed on disk while rolling back" in result.files[0].reason
    assert not result.ok
    undo = {e.path for e in world.store.checkpoint_entries(result.undo_checkpoint)}
    assert undo == {"b.txt"}


def test_a_file_to_delete_the_agent_rewrites_meanwhile_is_kept(world, monkeypatch):
    t = world.task()
    cp = world.edit(t, {"new.txt": b"created\n"})
    plan = plan_rollback(world.store, checkpoint=cp)
    assert plan.file("new.txt").action == "delete"
    _agent_writes_while_the_undo_is_recorded(monkeypatch, world, {"new.txt": b"rewritten\n"})

    result = apply_rollback(world.store, plan)

    assert world.read("new.txt") == b"rewritten\n"
    assert [(f.path, f.status) for f in result.files] == [("new.txt", "conflict")]
    assert world.store.checkpoint_entries(result.undo_checkpoint) == []


def test_a_file_to_recreate_the_agent_creates_meanwhile_is_kept(world, monkeypatch):
    world.write("gone.txt", b"g0\n")
    t = world.task()
    cp = world.edit(t, {"gone.txt": None})
    plan = plan_rollback(world.store, checkpoint=cp)
    _agent_writes_while_the_undo_is_recorded(monkeypatch, world, {"gone.txt": b"the agent's own\n"})

    result = apply_rollback(world.store, plan)

    assert world.read("gone.txt") == b"the agent's own\n"
    assert [(f.path, f.status) for f in result.files] == [("gone.txt", "conflict")]


def test_the_reviewers_task_rollback(tmp_path, monkeypatch):
    """A finished task; the agent writes the file again while the undo is recorded."""
    root = tmp_path / "ws"
    root.mkdir()
    f = root / "a.txt"
    s = AgentStore.open(root / ".agent" / "agent.db")
    try:
        t = s.start_task(s.start_session("s"), "t")
        s.record_checkpoint(t, None, {"a.txt": (b"v1\n", b"v2\n")})
        s.finish_task(t)
        f.write_bytes(b"v2\n")
        plan = plan_rollback(s, task=t)
        real = AgentStore.record_checkpoint

        def agent_first(self, *args, **kwargs):
            f.write_bytes(b"agent's newer work\n")
            return real(self, *args, **kwargs)

        with monkeypatch.context() as patched:
            patched.setattr(AgentStore, "record_checkpoint", agent_first)
            result = apply_rollback(s, plan)

        assert f.read_bytes() == b"agent's newer work\n"
        assert [fr.status for fr in result.files] == ["conflict"]
        # Undoing this rollback cannot bring back anything older over the agent's work.
        assert s.checkpoint_entries(result.undo_checkpoint) == []
    finally:
        s.close()


def test_an_agents_transcript_store_has_the_same_check(tmp_path, monkeypatch):
    """Claude Code's rollback (its undo kept in memtui's state folder, as every transcript
    store's is): the agent's write while the undo is recorded is kept and not in the undo."""
    from memtui.core.sources.transcript_undo import UndoRecorder
    from sources_support import agent_homes, discovered, fixture_texts

    texts = fixture_texts()
    s21 = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"
    workspace, env = agent_homes(tmp_path)
    (workspace / "tally").mkdir()
    (workspace / "tests").mkdir()
    (workspace / "tally" / "cli.py").write_text(texts.CLI_V3)
    (workspace / "tests" / "test_cli.py").write_text(texts.TEST_V1)
    store = discovered(workspace, env, "claude-code").open()
    plan = plan_rollback(store, checkpoint=f"{s21}:u1:before", root=store.workspace)
    real = UndoRecorder.record_checkpoint

    def agent_first(self, *args, **kwargs):
        (workspace / "tally" / "cli.py").write_text("the agent's newer work\n")
        return real(self, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(UndoRecorder, "record_checkpoint", agent_first)
        result = apply_rollback(store, plan)

    assert (workspace / "tally" / "cli.py").read_text() == "the agent's newer work\n"
    assert not (workspace / "tests" / "test_cli.py").exists()
    assert {f.path: f.status for f in result.files} == {"tally/cli.py": "conflict", "tests/test_cli.py": "done"}
    assert [e.path for e in store.checkpoint_entries(result.undo_checkpoint)] == ["tests/test_cli.py"]
