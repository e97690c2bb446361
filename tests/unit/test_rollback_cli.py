"""`memtui rollback`: text and JSON output, exit codes, dry run, force, undo, --root."""

from __future__ import annotations

import json
import shutil

import pytest

from memtui.cli import main
from rollback_world import World


@pytest.fixture
def world(tmp_path):
    w = World(tmp_path)
    w.write("a.txt", b"a0\n")
    w.write("b.txt", b"b0\n")
    w.task_id = w.task()
    w.cp = w.edit(w.task_id, {"a.txt": b"a1\n", "b.txt": b"b1\n", "new.txt": b"n1\n"})
    w.close()  # the CLI opens the store itself
    yield w


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["rollback", *argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_dry_run_shows_every_file_and_writes_nothing(world, capsys):
    before = world.files()
    rc, out = run_json(capsys, str(world.root), "--checkpoint", str(world.cp), "--dry-run")
    assert rc == 0
    assert out["undo_checkpoint"] is None
    assert out["files"] == [
        {"path": "a.txt", "action": "write", "status": "would-restore", "reason": ""},
        {"path": "b.txt", "action": "write", "status": "would-restore", "reason": ""},
        {"path": "new.txt", "action": "delete", "status": "would-restore", "reason": ""},
    ]
    assert world.files() == before


def test_rollback_then_undo(world, capsys):
    rc, out = run_json(capsys, str(world.root), "--checkpoint", str(world.cp))
    assert rc == 0
    assert [f["status"] for f in out["files"]] == ["done"] * 3
    assert world.read("a.txt") == b"a0\n" and world.read("new.txt") is None
    assert out["pinned_task"] == world.task_id

    rc, undone = run_json(capsys, str(world.root), "--undo", str(out["undo_checkpoint"]))
    assert rc == 0
    assert {f["path"]: f["action"] for f in undone["files"]} == {"a.txt": "write", "b.txt": "write",
                                                                 "new.txt": "create"}
    assert world.read("a.txt") == b"a1\n" and world.read("new.txt") == b"n1\n"
    assert undone["undo_checkpoint"] > out["undo_checkpoint"]


def test_text_output_lists_path_action_status_and_reason(world, capsys):
    world.write("a.txt", b"mine\n")
    rc = main(["rollback", str(world.root), "--task", str(world.task_id)])
    text = capsys.readouterr().out
    assert rc == 1  # a conflict was left alone
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["write", "conflict", "a.txt"] and "force to overwrite" in lines[0]
    assert lines[1].split() == ["write", "done", "b.txt"]
    assert lines[2].split() == ["delete", "done", "new.txt"]
    assert "pinned" in text
    assert world.read("a.txt") == b"mine\n"


def test_force_overwrites_conflicts(world, capsys):
    world.write("a.txt", b"mine\n")
    rc, out = run_json(capsys, str(world.root), "--entry", "1", "--force")
    assert rc == 0 and out["files"][0]["status"] == "done"
    assert world.read("a.txt") == b"a0\n"


def test_an_escape_refuses_everything_and_names_the_path(world, capsys):
    store = world.reopen()
    store.execute("INSERT INTO path (path) VALUES ('../../etc/x')")
    store.execute("UPDATE checkpoint_entry SET path_id = (SELECT id FROM path WHERE path = '../../etc/x')"
                  " WHERE path_id = (SELECT id FROM path WHERE path = 'b.txt')")
    store.close()
    before = world.files()
    rc, out = run_json(capsys, str(world.root), "--checkpoint", str(world.cp))
    assert rc == 1
    assert {f["status"] for f in out["files"]} == {"refused"}
    assert any("'../../etc/x'" in n for n in out["notes"])
    assert out["undo_checkpoint"] is None
    assert world.files() == before


def test_unknown_id_is_one_line_and_exit_2(world, capsys):
    rc = main(["rollback", str(world.root), "--checkpoint", "999"])
    err = capsys.readouterr().err
    assert rc == 2 and err.strip() == "memtui: no checkpoint 999"


def test_one_scope_is_required(world, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["rollback", str(world.root)])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(["rollback", str(world.root), "--task", "1", "--entry", "1"])


def test_store_elsewhere_with_root(world, tmp_path, capsys):
    db = tmp_path / "copy.db"
    shutil.copy(world.root / ".agent" / "agent.db", db)
    rc, out = run_json(capsys, str(db), "--task", str(world.task_id), "--root", str(world.root))
    assert rc == 0 and world.read("b.txt") == b"b0\n"


def test_nothing_to_do_exits_0(world, capsys):
    store = world.reopen()
    empty = store.start_task(world.session, "Nothing yet")
    store.close()
    rc = main(["rollback", str(world.root), "--task", str(empty)])
    assert rc == 0 and "nothing to roll back" in capsys.readouterr().out


def test_a_missing_workspace_is_not_created(tmp_path, capsys):
    rc = main(["rollback", str(tmp_path / "nowhere"), "--task", "1"])
    assert rc == 2 and "nowhere" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()
