"""Rollback engine: scopes, conflicts, containment, bad content, atomic writes, undo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core import rollback as rb
from memtui.core.rollback import RollbackError, apply_rollback, plan_rollback, preview_rollback
from rollback_world import World


@pytest.fixture
def world(tmp_path):
    w = World(tmp_path)
    yield w
    w.close()


def statuses(result) -> dict[str, str]:
    return {f.path: f.status for f in result.files}


def roll(world: World, **kw):
    plan = plan_rollback(world.store, **kw)
    return plan, apply_rollback(world.store, plan)


# ------------------------------------------------------------------------- scopes
def test_single_entry_restores_only_that_file(world):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "b.txt": b"b1\n"})

    plan, result = roll(world, entry=world.entry_id(cp, "a.txt"))

    assert [(f.path, f.action, f.status) for f in result.files] == [("a.txt", "write", "done")]
    assert world.read("a.txt") == b"a0\n"
    assert world.read("b.txt") == b"b1\n"
    assert result.ok and plan.task_id == t


def test_checkpoint_restores_its_files_and_not_earlier_ones(world):
    world.write("a.txt", b"v0\n")
    t = world.task()
    world.edit(t, {"a.txt": b"v1\n"})
    cp2 = world.edit(t, {"a.txt": b"v2\n", "new.txt": b"created\n"})

    _, result = roll(world, checkpoint=cp2)

    assert statuses(result) == {"a.txt": "done", "new.txt": "done"}
    assert {f.path: f.action for f in result.files} == {"a.txt": "write", "new.txt": "delete"}
    assert world.read("a.txt") == b"v1\n"
    assert world.read("new.txt") is None


def test_task_returns_each_file_to_the_before_of_its_earliest_entry(world):
    world.write("src/app.py", b"v0\n")
    world.write("old.txt", b"doomed\n")
    t = world.task()
    world.edit(t, {"src/app.py": b"v1\n"})
    world.edit(t, {"src/app.py": b"v2\n", "docs/new.md": b"# new\n", "old.txt": None})
    world.edit(t, {"src/app.py": b"v3\n", "docs/new.md": b"# newer\n"})

    plan, result = roll(world, task=t)

    assert result.ok
    assert {f.path: f.action for f in result.files} == {
        "src/app.py": "write", "docs/new.md": "delete", "old.txt": "create"}
    assert world.read("src/app.py") == b"v0\n"
    assert world.read("docs/new.md") is None  # created by the task: deleted
    assert world.read("old.txt") == b"doomed\n"  # deleted by the task: recreated
    assert len(plan.checkpoints) == 3


def test_task_includes_sub_agents_two_levels_deep_from_closed_sessions(world):
    store = world.store
    for name in ("p.txt", "c.txt", "g.txt", "shared.txt"):
        world.write(name, f"{name} 0\n".encode())
    parent = world.task("Parent")
    world.edit(parent, {"p.txt": b"p1\n"})
    s2 = store.start_session("Sub-agent")
    child = world.task("Child", session=s2, parent=parent)
    world.edit(child, {"c.txt": b"c1\n", "shared.txt": b"by child\n"})
    s3 = store.start_session("Sub-sub-agent")
    grandchild = world.task("Grandchild", session=s3, parent=child)
    world.edit(grandchild, {"g.txt": b"g1\n", "shared.txt": b"by grandchild\n"})
    world.edit(parent, {"p.txt": b"p2\n"})  # the parent carries on after the hand-offs
    for tid in (grandchild, child):
        store.finish_task(tid, "completed", summary="done")
    store.close_session(s3)
    store.close_session(s2)
    store.add_reference(grandchild, parent, "handoff")  # a cycle must not loop

    plan, result = roll(world, task=parent)

    assert plan.tasks == (parent, child, grandchild)
    assert any("sub-agent" in n for n in plan.notes)
    assert result.ok
    for name in ("p.txt", "c.txt", "g.txt", "shared.txt"):
        assert world.read(name) == f"{name} 0\n".encode()


def test_rolling_back_a_child_leaves_the_parent_alone(world):
    world.write("p.txt", b"p0\n")
    world.write("c.txt", b"c0\n")
    parent = world.task("Parent")
    world.edit(parent, {"p.txt": b"p1\n"})
    child = world.task("Child", parent=parent)
    world.edit(child, {"c.txt": b"c1\n"})

    _, result = roll(world, task=child)

    assert result.ok
    assert world.read("c.txt") == b"c0\n"
    assert world.read("p.txt") == b"p1\n"


def test_exactly_one_scope_and_unknown_ids(world):
    with pytest.raises(RollbackError):
        plan_rollback(world.store)
    with pytest.raises(RollbackError):
        plan_rollback(world.store, entry=1, task=1)
    with pytest.raises(RollbackError, match="no checkpoint 99"):
        plan_rollback(world.store, checkpoint=99)
    with pytest.raises(RollbackError, match="no entry 99"):
        plan_rollback(world.store, entry=99)


def test_a_task_without_checkpoints_is_nothing_to_do(world):
    t = world.task()
    plan, result = roll(world, task=t)
    assert plan.files == () and result.ok and result.undo_checkpoint is None
    assert "nothing to roll back" in result.notes


# ----------------------------------------------------------------------- conflicts
def test_conflict_is_left_alone_and_force_overwrites(world):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "b.txt": b"b1\n"})
    world.write("a.txt", b"edited by a person\n")

    plan = plan_rollback(world.store, checkpoint=cp)
    assert plan.file("a.txt").status == "conflict" and plan.file("a.txt").conflict
    assert not plan.ok
    result = apply_rollback(world.store, plan)
    assert statuses(result) == {"a.txt": "conflict", "b.txt": "done"}
    assert "changed on disk" in result.files[0].reason
    assert world.read("a.txt") == b"edited by a person\n"
    assert world.read("b.txt") == b"b0\n"
    assert not result.ok

    forced = apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp, force=True))
    assert statuses(forced) == {"a.txt": "done", "b.txt": "done"}
    assert "forced" in forced.files[0].reason
    assert world.read("a.txt") == b"a0\n"
    assert forced.ok


def test_missing_file_and_unexpected_file_are_conflicts(world):
    world.write("kept.txt", b"k0\n")
    world.write("gone.txt", b"g0\n")
    t = world.task()
    cp = world.edit(t, {"kept.txt": b"k1\n", "gone.txt": None})
    world.write("kept.txt", None)  # removed by someone after the agent edited it
    world.write("gone.txt", b"recreated by a person\n")

    plan = plan_rollback(world.store, checkpoint=cp)

    assert plan.file("kept.txt").status == "conflict"
    assert "missing" in plan.file("kept.txt").reason
    assert plan.file("gone.txt").status == "conflict"
    assert "expected it deleted" in plan.file("gone.txt").reason
    apply_rollback(world.store, plan)
    assert world.read("kept.txt") is None
    assert world.read("gone.txt") == b"recreated by a person\n"


def test_plan_is_rechecked_against_the_disk_when_applied(world):
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n"})
    plan = plan_rollback(world.store, checkpoint=cp)
    assert plan.ok
    world.write("a.txt", b"changed while the dialog was open\n")

    result = apply_rollback(world.store, plan)

    assert statuses(result) == {"a.txt": "conflict"}
    assert world.read("a.txt") == b"changed while the dialog was open\n"
    assert result.undo_checkpoint is None


def test_with_force_toggles_conflicts(world):
    world.write("a.txt", b"a0\n")
    cp = world.edit(world.task(), {"a.txt": b"a1\n"})
    world.write("a.txt", b"mine\n")
    plan = plan_rollback(world.store, checkpoint=cp)
    assert plan.with_force(True).file("a.txt").status == "ready"
    assert plan.with_force(True).with_force(False).file("a.txt").status == "conflict"


# --------------------------------------------------------------------- containment
def _poison(world: World, entry_id: int, path: str) -> None:
    world.sql("INSERT OR IGNORE INTO path (path) VALUES (?)", (path,))
    world.sql("UPDATE checkpoint_entry SET path_id = (SELECT id FROM path WHERE path = ?) WHERE id = ?",
              (path, entry_id))


@pytest.mark.parametrize("bad", ["../outside.txt", "sub/../../outside.txt", "/tmp/memtui-abs.txt"])
def test_lexical_escapes_refuse_the_whole_rollback(world, tmp_path, bad):
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "victim.txt": b"v1\n"})
    _poison(world, world.entry_id(cp, "victim.txt"), bad)
    before = world.files()

    plan = plan_rollback(world.store, checkpoint=cp)
    result = apply_rollback(world.store, plan)

    assert plan.refused and plan.escapes == (bad,)
    assert statuses(result) == {"a.txt": "refused", bad: "refused"}
    assert any(bad in n for n in result.notes)
    assert world.files() == before  # a.txt was not rolled back either
    assert not (tmp_path / "outside.txt").exists()
    assert result.undo_checkpoint is None
    assert world.store.checkpoints(t)[-1].label == ""  # no undo recorded


def test_symlinked_file_leading_out_is_refused(world, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret\n")
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "link.txt": b"x\n"})
    world.path("link.txt").unlink()
    world.path("link.txt").symlink_to(outside / "secret.txt")

    result = apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp))

    assert statuses(result) == {"a.txt": "refused", "link.txt": "refused"}
    assert "symlink" in result.files[1].reason
    assert (outside / "secret.txt").read_bytes() == b"secret\n"
    assert world.read("a.txt") == b"a1\n"


def test_symlinked_parent_directory_leading_out_is_refused(world, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_bytes(b"outside\n")
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "docs/deep/f.txt": b"f1\n"})
    # Replace the real `docs` with a link out: the entry's path now leads outside.
    for p in sorted(world.path("docs").rglob("*"), reverse=True):
        p.unlink() if p.is_file() else p.rmdir()
    world.path("docs").rmdir()
    (outside / "deep").mkdir()
    (outside / "deep" / "f.txt").write_bytes(b"outside deep\n")
    world.path("docs").symlink_to(outside, target_is_directory=True)

    plan = plan_rollback(world.store, checkpoint=cp)
    result = apply_rollback(world.store, plan)

    assert plan.escapes == ("docs/deep/f.txt",)
    assert "parent directory 'docs'" in plan.file("docs/deep/f.txt").reason
    assert set(statuses(result).values()) == {"refused"}
    assert (outside / "deep" / "f.txt").read_bytes() == b"outside deep\n"
    assert world.read("a.txt") == b"a1\n"


def test_symlink_inside_the_root_is_followed(world):
    world.write("real.txt", b"r0\n")
    world.path("alias.txt").symlink_to("real.txt")
    t = world.task()
    cp = world.edit(t, {"alias.txt": b"r1\n"})
    assert world.read("real.txt") == b"r1\n"

    _, result = roll(world, checkpoint=cp)

    assert result.ok
    assert world.path("alias.txt").is_symlink()
    assert world.read("real.txt") == b"r0\n"


def test_nothing_under_agent_dir_is_written(world):
    world.write(".agent/plan/PLAN.md", b"plan 0\n")
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {".agent/plan/PLAN.md": b"plan 1\n", "a.txt": b"a1\n"})

    result = apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp))

    assert statuses(result) == {".agent/plan/PLAN.md": "refused", "a.txt": "done"}
    assert result.files[0].action == "write"
    assert ".agent/" in result.files[0].reason
    assert world.read(".agent/plan/PLAN.md") == b"plan 1\n"
    assert world.read("a.txt") == b"a0\n"
    assert not result.ok  # not every file was restored


def test_a_link_into_agent_dir_is_refused(world):
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"db-alias": b"x\n"})
    world.path("db-alias").unlink()
    world.path("db-alias").symlink_to(world.root / ".agent" / "agent.db")
    plan = plan_rollback(world.store, checkpoint=cp)
    assert plan.file("db-alias").status == "refused"
    apply_rollback(world.store, plan)
    assert world.path("db-alias").is_symlink()


def test_check_path_names_the_reason(tmp_path):
    root = tmp_path.resolve()
    assert rb.check_path(root, "a/b.txt").resolved == root / "a" / "b.txt"
    assert rb.check_path(root, "../x").escapes
    assert rb.check_path(root, "/etc/passwd").escapes
    assert rb.check_path(root, "C:/x").escapes
    assert rb.check_path(root, "a\\..\\..\\x").escapes
    assert rb.check_path(root, "a\x00b").escapes
    assert rb.check_path(root, ".").escapes
    refused = rb.check_path(root, ".agent/agent.db")
    assert refused.refusal and not refused.escapes


# -------------------------------------------------------------------- bad content
def test_a_corrupt_blob_stops_that_file_only(world):
    world.write("a.txt", b"precious original content\n" * 20)
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"edited\n", "b.txt": b"b1\n"})
    before_blob = world.sql("SELECT before_blob FROM checkpoint_entry WHERE id = ?",
                            (world.entry_id(cp, "a.txt"),))[0][0]
    _flip_byte(world, before_blob)
    store = world.reopen()  # no cached copy of the good content

    plan = plan_rollback(store, checkpoint=cp)
    result = apply_rollback(store, plan)

    assert statuses(result) == {"a.txt": "error", "b.txt": "done"}
    assert "cannot be trusted" in result.files[0].reason
    assert world.read("a.txt") == b"edited\n"  # never emptied or half-written
    assert world.read("b.txt") == b"b0\n"
    undo = store.checkpoint_entries(result.undo_checkpoint)
    assert [e.path for e in undo] == ["b.txt"]


def _flip_byte(world: World, blob_id: int) -> None:
    data = bytearray(world.sql("SELECT data FROM blob WHERE id = ?", (blob_id,))[0][0])
    data[len(data) // 2] ^= 0x01
    world.sql("UPDATE blob SET data = ? WHERE id = ?", (bytes(data), blob_id))


def test_a_flipped_byte_in_a_compressed_blob_is_an_error(world):
    original = b"".join(b"line %d of a long file\n" % i for i in range(400))
    world.write("big.txt", original)
    t = world.task()
    cp = world.edit(t, {"big.txt": b"small\n"})
    h = world.sql("SELECT before_blob FROM checkpoint_entry WHERE id = ?", (world.entry_id(cp, "big.txt"),))[0][0]
    assert world.sql("SELECT codec FROM blob WHERE id = ?", (h,))[0][0] != "raw"
    _flip_byte(world, h)
    store = world.reopen()

    result = apply_rollback(store, plan_rollback(store, checkpoint=cp))

    assert statuses(result) == {"big.txt": "error"}
    assert world.read("big.txt") == b"small\n"
    assert result.undo_checkpoint is None


# ------------------------------------------------------------------ atomic writes
def test_file_mode_is_kept(world):
    world.write("run.sh", b"#!/bin/sh\necho 0\n")
    os.chmod(world.path("run.sh"), 0o751)
    cp = world.edit(world.task(), {"run.sh": b"#!/bin/sh\necho 1\n"})
    roll(world, checkpoint=cp)
    assert world.read("run.sh") == b"#!/bin/sh\necho 0\n"
    assert (os.stat(world.path("run.sh")).st_mode & 0o777) == 0o751


def test_recreated_file_and_its_directory_come_back(world):
    world.write("pkg/mod/x.py", b"x = 0\n")
    cp = world.edit(world.task(), {"pkg/mod/x.py": None})
    world.path("pkg/mod").rmdir()
    _, result = roll(world, checkpoint=cp)
    assert result.ok and world.read("pkg/mod/x.py") == b"x = 0\n"


class Crash(BaseException):
    """Stands in for the process dying: nothing catches it."""


def _crash_on_second_replace(monkeypatch):
    real = os.replace
    calls = {"n": 0}

    def flaky(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise Crash("power cut")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    return calls


def test_a_crash_between_two_files_leaves_each_old_or_new_and_a_rerun_completes(world, monkeypatch):
    for name in ("a.txt", "b.txt", "c.txt"):
        world.write(name, f"{name} old\n".encode())
    t = world.task()
    cp = world.edit(t, {name: f"{name} new\n".encode() for name in ("a.txt", "b.txt", "c.txt")})
    _crash_on_second_replace(monkeypatch)

    with pytest.raises(Crash):
        apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp))

    contents = [world.read(n) for n in ("a.txt", "b.txt", "c.txt")]
    assert contents == [b"a.txt old\n", b"b.txt new\n", b"c.txt new\n"]  # each file old or new
    assert not list(world.root.glob(".*memtui-tmp"))  # no temp file left behind
    monkeypatch.undo()

    again = apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp))

    assert [(f.status, f.reason) for f in again.files] == [
        ("done", "already restored"), ("done", ""), ("done", "")]
    assert [world.read(n) for n in ("a.txt", "b.txt", "c.txt")] == [b"a.txt old\n", b"b.txt old\n", b"c.txt old\n"]
    # The crashed run had already recorded its undo: undoing it finishes the picture too.
    crashed_undo = [c for c in world.store.checkpoints(t) if c.label == "rollback"][0]
    apply_rollback(world.store, plan_rollback(world.store, undo=crashed_undo.id))
    assert [world.read(n) for n in ("a.txt", "b.txt", "c.txt")] == [b"a.txt new\n", b"b.txt new\n", b"c.txt new\n"]


@pytest.mark.parametrize("readonly", [False, True])
def test_a_write_error_stops_that_file_and_is_not_in_the_undo(world, monkeypatch, readonly):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    cp = world.edit(world.task(), {"a.txt": b"a1\n", "b.txt": b"b1\n"})
    store = world.reopen(readonly=readonly)
    real = os.replace

    def full_disk(src, dst):
        if str(dst).endswith("b.txt"):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", full_disk)
    result = apply_rollback(store, plan_rollback(store, checkpoint=cp))

    assert statuses(result) == {"a.txt": "done", "b.txt": "error"}
    assert "No space left" in result.files[1].reason
    assert world.read("b.txt") == b"b1\n"
    assert not list(world.root.glob(".*memtui-tmp"))
    store = world.reopen()
    assert [e.path for e in store.checkpoint_entries(result.undo_checkpoint)] == ["a.txt"]


def test_a_fifo_in_the_way_is_an_error_not_a_hang(world):
    cp = world.edit(world.task(), {"pipe": b"x\n"})
    world.path("pipe").unlink()
    os.mkfifo(world.path("pipe"))
    plan = plan_rollback(world.store, checkpoint=cp)
    assert plan.file("pipe").status == "error" and "regular file" in plan.file("pipe").reason


# ---------------------------------------------------------------------------- undo
def test_rollback_records_an_undo_and_pins_the_task(world):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "b.txt": b"b1\n"})
    world.write("b.txt", b"b1\n")
    assert not world.store.task(t).pinned

    _, result = roll(world, checkpoint=cp)

    undo = world.store.checkpoint(result.undo_checkpoint)
    assert undo.label == "rollback" and undo.task_id == t
    assert world.store.task(t).pinned and result.pinned_task == t
    assert any("pinned" in n for n in result.notes)
    entries = world.store.checkpoint_entries(undo.id)
    assert {e.path: world.store.read_entry(e.id) for e in entries} == {
        "a.txt": (b"a1\n", b"a0\n"), "b.txt": (b"b1\n", b"b0\n")}


def test_undo_records_only_files_actually_changed(world):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "b.txt": b"b1\n"})
    world.write("b.txt", b"b0\n")  # already back by hand
    _, result = roll(world, checkpoint=cp)
    assert statuses(result) == {"a.txt": "done", "b.txt": "done"}
    assert [e.path for e in world.store.checkpoint_entries(result.undo_checkpoint)] == ["a.txt"]


def test_undo_of_a_rollback_and_undo_of_the_undo(world):
    world.write("a.txt", b"a0\n")
    world.write("gone.txt", b"g0\n")
    t = world.task()
    world.edit(t, {"a.txt": b"a1\n", "gone.txt": None, "made.txt": b"m1\n"})
    _, first = roll(world, task=t)
    assert world.read("a.txt") == b"a0\n" and world.read("made.txt") is None

    plan, undone = roll(world, undo=first.undo_checkpoint)

    assert plan.label == "undo" and undone.ok
    assert world.read("a.txt") == b"a1\n"
    assert world.read("gone.txt") is None
    assert world.read("made.txt") == b"m1\n"
    assert world.store.checkpoint(undone.undo_checkpoint).label == "undo"

    _, redone = roll(world, undo=undone.undo_checkpoint)
    assert redone.ok and world.read("a.txt") == b"a0\n" and world.read("made.txt") is None


def test_undo_has_the_same_conflict_check(world):
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n"})
    _, first = roll(world, checkpoint=cp)
    world.write("a.txt", b"changed after the rollback\n")
    _, undone = roll(world, undo=first.undo_checkpoint)
    assert statuses(undone) == {"a.txt": "conflict"}
    assert world.read("a.txt") == b"changed after the rollback\n"


def test_undo_only_takes_checkpoints_a_rollback_recorded(world):
    world.write("a.txt", b"a0\n")
    cp = world.edit(world.task(), {"a.txt": b"a1\n"})
    with pytest.raises(RollbackError, match="not recorded by a rollback"):
        plan_rollback(world.store, undo=cp)


def test_rolling_back_a_task_twice_is_already_restored(world):
    world.write("a.txt", b"a0\n")
    t = world.task()
    world.edit(t, {"a.txt": b"a1\n"})
    roll(world, task=t)
    # The task now also holds the rollback checkpoint: its after is the restored content.
    _, again = roll(world, task=t)
    assert [(f.status, f.reason) for f in again.files] == [("done", "already restored")]
    assert again.undo_checkpoint is None


def test_undo_survives_gc_of_unpinned_tasks(world):
    """Delete every unpinned task's heavy data by hand (harsher than GC, which keeps live
    tasks too) and check the rollback's undo still works."""
    store = world.store
    world.write("a.txt", b"a0\n")
    t = world.task("Rolled back")
    world.edit(t, {"a.txt": b"a1\n"})
    store.finish_task(t, "completed")
    other = world.task("Later work")  # supersedes t; t is no longer a root
    world.write("b.txt", b"b0\n")
    world.edit(other, {"b.txt": b"b1\n"})
    store.finish_task(other, "completed")
    store.close_session(world.session)
    _, result = roll(world, task=t)

    for (tid,) in world.sql("SELECT id FROM task WHERE pinned = 0"):
        world.sql("DELETE FROM checkpoint_entry WHERE checkpoint_id IN"
                  " (SELECT id FROM checkpoint WHERE task_id = ?)", (tid,))
        world.sql("DELETE FROM checkpoint WHERE task_id = ?", (tid,))
        world.sql("DELETE FROM step WHERE task_id = ?", (tid,))
    assert store.checkpoints(other) == []

    _, undone = roll(world, undo=result.undo_checkpoint)
    assert undone.ok and world.read("a.txt") == b"a1\n"


# ------------------------------------------------------------- stores and dry runs
def test_dry_run_writes_nothing_and_says_what_would_happen(world):
    world.write("a.txt", b"a0\n")
    world.write("b.txt", b"b0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n", "b.txt": b"b1\n", "c.txt": b"c1\n"})
    world.write("b.txt", b"mine\n")
    before = world.files()
    checkpoints = len(world.store.checkpoints(t))

    result = preview_rollback(plan_rollback(world.store, checkpoint=cp))

    assert [(f.path, f.action, f.status) for f in result.files] == [
        ("a.txt", "write", "would-restore"), ("b.txt", "write", "conflict"), ("c.txt", "delete", "would-restore")]
    assert result.dry_run and result.undo_checkpoint is None and not result.ok
    assert world.files() == before
    assert len(world.store.checkpoints(t)) == checkpoints


def test_a_read_only_store_gets_a_write_connection_for_the_undo(world):
    world.write("a.txt", b"a0\n")
    t = world.task()
    cp = world.edit(t, {"a.txt": b"a1\n"})
    store = world.reopen(readonly=True)

    result = apply_rollback(store, plan_rollback(store, checkpoint=cp))

    assert result.ok and world.read("a.txt") == b"a0\n"
    fresh = world.reopen()
    assert fresh.checkpoint(result.undo_checkpoint).label == "rollback"
    assert fresh.task(t).pinned


def test_explicit_root_for_a_store_elsewhere(world, tmp_path):
    elsewhere = tmp_path / "checkout"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_bytes(b"a1\n")
    t = world.task()
    cp = world.store.record_checkpoint(t, None, {"a.txt": (b"a0\n", b"a1\n")})

    result = apply_rollback(world.store, plan_rollback(world.store, checkpoint=cp, root=elsewhere))

    assert result.ok and (elsewhere / "a.txt").read_bytes() == b"a0\n"
    with pytest.raises(RollbackError, match="not a directory"):
        plan_rollback(world.store, checkpoint=cp, root=tmp_path / "missing")


def test_plans_from_a_foreign_read_model(tmp_path):
    """Any MemorySource can be rolled back against an explicit root."""
    from memtui.core.model import CheckpointInfo, EntryInfo, Reference, TaskInfo
    from memtui.core.sources.base import SourceAdapter

    class Foreign(SourceAdapter):
        def task(self, task_id):
            return TaskInfo(task_id, None, f"task {task_id}", "completed")

        def checkpoints(self, task_id):
            return [CheckpointInfo("c1", "t1", None, None, 1)] if task_id == "t1" else []

        def checkpoint_entries(self, checkpoint_id):
            return [EntryInfo("e1", "c1", "notes.md", "modified", 3, 3)]

        def read_entry(self, entry_id):
            return b"old", b"new"

        def references(self, task_id):
            return [Reference("t1", "t2", "handoff")] if task_id == "t1" else []

    (tmp_path / "notes.md").write_bytes(b"new")
    source = Foreign(tmp_path)
    plan = plan_rollback(source, task="t1", root=tmp_path)
    result = apply_rollback(source, plan)
    assert plan.tasks == ("t1", "t2")
    assert result.ok and (tmp_path / "notes.md").read_bytes() == b"old"
    assert result.undo_checkpoint is None and any("no undo" in n for n in result.notes)


def test_spellings_of_one_path_are_one_file(tmp_path):
    """A foreign store may record "a.txt" and "./a.txt": one file, earliest before, latest after."""
    from memtui.core.model import EntryInfo
    from memtui.core.sources.base import SourceAdapter

    class Foreign(SourceAdapter):
        contents = {1: (b"v0", b"v1"), 2: (b"v1", b"v2")}

        def read_entry(self, entry_id):
            return self.contents[entry_id]

    (tmp_path / "a.txt").write_bytes(b"v2")
    entries = [EntryInfo(1, 1, "a.txt", "modified", 2, 2), EntryInfo(2, 2, "./a.txt", "modified", 2, 2)]
    plan = rb.plan_entries(Foreign(tmp_path), entries, root=tmp_path)
    assert [(f.path, f.entry_ids, f.status) for f in plan.files] == [("a.txt", (1, 2), "ready")]
    apply_rollback(Foreign(tmp_path), plan)
    assert (tmp_path / "a.txt").read_bytes() == b"v0"


def test_core_rollback_does_not_import_the_ui():
    src = Path(rb.__file__).read_text()
    assert "textual" not in src and "import rich" not in src and "from rich" not in src


def test_undo_survives_a_real_gc(world):
    """With the GC engine: the task a rollback pinned keeps its undo; unpinned history goes."""
    from memtui.core import gc
    store = world.store
    world.write("a.txt", b"".join(b"line %d\n" % i for i in range(300)))
    original = world.read("a.txt")
    t = world.task("Rolled back")
    for n in range(3):  # several versions of one path: delta chains across the entries
        world.edit(t, {"a.txt": world.read("a.txt") + b"edit %d\n" % n})
    edited = world.read("a.txt")
    store.finish_task(t, "completed")
    later = world.task("Later work")  # supersedes t
    world.edit(later, {"b.txt": b"b\n"})
    store.finish_task(later, "completed")
    world.task("Current")  # supersedes `later`
    store.close_session(world.session)  # no open session: the only root is what is pinned
    _, result = roll(world, task=t)
    assert result.ok and world.read("a.txt") == original and store.task(t).pinned

    plan = gc.plan_gc(store)
    assert plan.reclaimable_task(later) is not None and plan.reclaimable_task(t) is None
    gc.apply_gc(store, plan)
    store = world.reopen()  # nothing cached: every content is read back from what GC left
    assert store.checkpoints(later) == [] and store.task(later).collected

    _, undone = roll(world, undo=result.undo_checkpoint)
    assert undone.ok and world.read("a.txt") == edited


# ------------------------------------------------------------------- properties
_names = st.sampled_from(["a.txt", "b.txt", "d/c.txt", "d/e/f.bin"])
_content = st.one_of(st.none(), st.binary(max_size=40))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=st.dictionaries(_names, _content),
       edits=st.lists(st.dictionaries(_names, _content, min_size=1), min_size=1, max_size=5))
def test_task_rollback_restores_the_start_and_undo_restores_the_end(tmp_path_factory, initial, edits):
    world = World(tmp_path_factory.mktemp("prop"))
    try:
        for rel, data in initial.items():
            world.write(rel, data)
        names = sorted({n for e in edits for n in e})
        start = {n: world.read(n) for n in names}
        t = world.task()
        for change in edits:
            world.edit(t, change)
        end = {n: world.read(n) for n in names}

        _, result = roll(world, task=t)
        assert result.ok and {n: world.read(n) for n in names} == start

        _, undone = roll(world, undo=result.undo_checkpoint) if result.undo_checkpoint else (None, result)
        assert undone.ok and {n: world.read(n) for n in names} == end
    finally:
        world.close()


def test_undo_recorded_from_a_read_only_store_uses_its_clock(tmp_path):
    """The undo checkpoint is stamped by the browsing store's clock, not the wall clock."""
    from datetime import datetime, timezone

    from memtui.core.store import AgentStore

    fixed = datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    with AgentStore.open(tmp_path) as store:
        task = store.start_task(store.start_session("s"), "t")
        store.record_checkpoint(task, None, {"a.txt": (b"old\n", b"new\n")})
    (tmp_path / "a.txt").write_bytes(b"new\n")
    with AgentStore.open(tmp_path, readonly=True, clock=lambda: fixed) as browsing:
        result = apply_rollback(browsing, plan_rollback(browsing, task=task))
    assert (tmp_path / "a.txt").read_bytes() == b"old\n"
    with AgentStore.open(tmp_path, readonly=True) as store:
        assert store.checkpoint(result.undo_checkpoint).created_at == fixed


def test_an_interrupted_task_rollback_finishes_on_rerun_without_force(world, monkeypatch):
    # The crashed run recorded its undo on the task before writing; a task-scope re-run must
    # not read that record as the task's own edit (the unwritten files would be conflicts).
    for name in ("a.txt", "b.txt", "c.txt"):
        world.write(name, f"{name} old\n".encode())
    t = world.task()
    world.edit(t, {name: f"{name} new\n".encode() for name in ("a.txt", "b.txt", "c.txt")})
    _crash_on_second_replace(monkeypatch)
    with pytest.raises(Crash):
        apply_rollback(world.store, plan_rollback(world.store, task=t))
    monkeypatch.undo()

    plan = plan_rollback(world.store, task=t)
    assert plan.ok, [(f.path, f.status, f.reason) for f in plan.files]
    again = apply_rollback(world.store, plan)

    assert again.ok and statuses(again) == {"a.txt": "done", "b.txt": "done", "c.txt": "done"}
    assert [world.read(n) for n in ("a.txt", "b.txt", "c.txt")] == [b"a.txt old\n", b"b.txt old\n", b"c.txt old\n"]
    # Re-running once more is "already restored" for every file, still without force.
    assert {f.reason for f in apply_rollback(world.store, plan_rollback(world.store, task=t)).files} == {
        "already restored"}
