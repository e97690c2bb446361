"""A whole prompt rolled back as Claude Code's /rewind "restore code" does: from its
file-history checkpoint, through memtui's rollback (conflict check, containment)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.core.sources.base import ContentUnknown
from memtui.core.agents.claude_code.source import ClaudeCodeSource

from sources_support import left_workspace, discovered, fixture_texts

S21 = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"
TEXTS = fixture_texts()


@pytest.fixture
def world(tmp_path):
    """The workspace as the session left it, and the Claude Code source of it."""
    workspace, env = left_workspace(tmp_path)
    return workspace, env, discovered(workspace, env, "claude-code").open()


def test_each_prompt_opens_with_its_file_history_checkpoint(world):
    _workspace, _env, store = world
    first = store.steps(f"{S21}:u1")[0]
    assert (first.tool, first.checkpoint_id) == ("checkpoint", f"{S21}:u1:before")
    checkpoint = store.checkpoint(first.checkpoint_id)
    assert (checkpoint.label, checkpoint.task_id, checkpoint.entry_count) == ("before prompt", f"{S21}:u1", 2)
    entries = {e.path: e for e in store.checkpoint_entries(first.checkpoint_id)}
    assert (entries["tally/cli.py"].kind, entries["tests/test_cli.py"].kind) == ("modified", "added")
    assert store.read_entry(entries["tally/cli.py"].id) == (TEXTS.CLI_V0.encode(), TEXTS.CLI_V3.encode())
    assert store.read_entry(entries["tests/test_cli.py"].id) == (None, TEXTS.TEST_V1.encode())
    # The task's own checkpoints stay its edits: a task rollback is unchanged by it.
    assert all(c.label == "" for c in store.checkpoints(f"{S21}:u1"))


def test_rolling_back_a_prompt_restores_every_file_as_before_it(world):
    workspace, _env, store = world
    plan = plan_rollback(store, checkpoint=f"{S21}:u1:before", root=store.workspace)
    assert {f.path: (f.action, f.status) for f in plan.files} == {
        "tally/cli.py": ("write", "ready"), "tests/test_cli.py": ("delete", "ready")}
    assert any("restored under" in n and str(workspace) in n for n in plan.notes)
    result = apply_rollback(store, plan)
    assert result.ok
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V0
    assert not (workspace / "tests" / "test_cli.py").exists()


def test_a_later_prompt_keeps_what_came_before_it(world):
    workspace, _env, store = world
    plan = plan_rollback(store, checkpoint=f"{S21}:u2:before", root=store.workspace)
    assert {f.path: f.status for f in plan.files} == {"tally/cli.py": "ready", "tests/test_cli.py": "done"}
    apply_rollback(store, plan)
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V1
    assert (workspace / "tests" / "test_cli.py").read_text() == TEXTS.TEST_V1


def test_a_file_changed_since_is_a_conflict_left_alone(world):
    workspace, _env, store = world
    (workspace / "tally" / "cli.py").write_text("edited by hand\n")
    plan = plan_rollback(store, checkpoint=f"{S21}:u1:before", root=store.workspace)
    assert plan.file("tally/cli.py").status == "conflict"
    apply_rollback(store, plan)
    assert (workspace / "tally" / "cli.py").read_text() == "edited by hand\n"
    assert not (workspace / "tests" / "test_cli.py").exists()  # the other file is restored


def test_a_missing_backup_refuses_that_file_never_empties_it(world):
    workspace, env, store = world
    backups = Path(env["CLAUDE_CONFIG_DIR"]) / "file-history" / S21
    for backup in backups.glob("*@v1"):
        backup.unlink()
    # u1's first edit of cli.py recorded the file as it was (originalFile): still exact.
    [entry] = [e for e in store.checkpoint_entries(f"{S21}:u1:before") if e.path == "tally/cli.py"]
    assert store.read_entry(entry.id) == (TEXTS.CLI_V0.encode(), TEXTS.CLI_V3.encode())
    # u2's first edit has no originalFile: with its backup gone, nothing says what it was.
    for backup in backups.glob("*@v2"):
        backup.unlink()
    [entry] = [e for e in store.checkpoint_entries(f"{S21}:u2:before") if e.path == "tally/cli.py"]
    with pytest.raises(ContentUnknown, match="is missing"):
        store.read_entry(entry.id)
    plan = plan_rollback(store, checkpoint=f"{S21}:u2:before", root=store.workspace)
    assert plan.file("tally/cli.py").status == "error"
    apply_rollback(store, plan)
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3


def test_a_tracked_path_outside_the_workspace_refuses_the_whole_rollback(world):
    workspace, env, store = world
    [transcript] = (Path(env["CLAUDE_CONFIG_DIR"]) / "projects").rglob(f"{S21}.jsonl")
    lines = transcript.read_text().splitlines()
    rec = json.loads(lines[1])
    assert rec["type"] == "file-history-snapshot"
    rec["snapshot"]["trackedFileBackups"] = {"../outside.txt": {"backupFileName": None, "version": 1}}
    lines[1] = json.dumps(rec)
    transcript.write_text("\n".join(lines) + "\n")
    store = ClaudeCodeSource([transcript], home=Path(env["CLAUDE_CONFIG_DIR"]))
    plan = plan_rollback(store, checkpoint=f"{S21}:u1:before", root=workspace)
    assert plan.refused and all(f.status == "refused" for f in plan.files)
    apply_rollback(store, plan)
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3


def test_opened_with_root_restores_into_that_copy(world, tmp_path):
    workspace, env, _store = world
    copy = tmp_path / "elsewhere"
    (copy / "tally").mkdir(parents=True)
    (copy / "tally" / "cli.py").write_text(TEXTS.CLI_V3)
    store = ClaudeCodeSource.from_path(Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-tally")
    store = store.with_root(copy)
    plan = plan_rollback(store, checkpoint=f"{S21}:u2:before", root=store.workspace)
    assert any(f"restored under {copy} (--root)" in n for n in plan.notes)
    apply_rollback(store, plan)
    assert (copy / "tally" / "cli.py").read_text() == TEXTS.CLI_V1
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3  # the recorded folder is untouched


def test_a_recorded_folder_not_on_this_machine_says_how_to_roll_back(tmp_path):
    from memtui.core.memory_source import Capability, Unsupported

    store = ClaudeCodeSource.from_path(Path(__file__).resolve().parent.parent / "fixtures" / "claude_home" / "projects" / "-home-dev-tally")
    assert not store.can(Capability.ROLLBACK)  # /home/dev/tally is not here
    with pytest.raises(Unsupported, match=r"--root DIR"):
        store.require(Capability.ROLLBACK)
    store = store.with_root(tmp_path)
    assert store.can(Capability.ROLLBACK) and store.recorded_workspace == Path("/home/dev/tally")


def test_a_prompt_rollback_is_undone_from_memtuis_state_folder(world, tmp_path, monkeypatch):
    workspace, env, store = world
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    claude_home_before = sorted(p.relative_to(env["CLAUDE_CONFIG_DIR"]) for p in Path(env["CLAUDE_CONFIG_DIR"]).rglob("*"))
    result = apply_rollback(store, plan_rollback(store, checkpoint=f"{S21}:u1:before", root=store.workspace))
    assert result.undo_checkpoint is not None and result.pinned_task is None
    assert any("state folder" in n for n in result.notes)
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V0
    # The undo is a rollback checkpoint of the prompt's task, kept outside the agent's home.
    [undo] = [c for c in store.checkpoints(f"{S21}:u1") if c.label == "rollback"]
    assert undo.id == result.undo_checkpoint and list((state / "memtui" / "undo").rglob("*.json"))
    assert sorted(p.relative_to(env["CLAUDE_CONFIG_DIR"]) for p in Path(env["CLAUDE_CONFIG_DIR"]).rglob("*")) == claude_home_before
    back = apply_rollback(store, plan_rollback(store, undo=undo.id, root=store.workspace))
    assert back.ok
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3
    assert (workspace / "tests" / "test_cli.py").read_text() == TEXTS.TEST_V1
    # A task rollback leaves memtui's own rollback checkpoints out of its scope.
    plan = plan_rollback(store, task=f"{S21}:u1", root=store.workspace)
    assert all(not c.startswith("undo-") for c in plan.checkpoints)


def test_the_cli_rolls_back_a_prompt_of_a_claude_code_store_and_says_where(world, capsys):
    from memtui.cli import main

    workspace, env, _store = world
    project = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-tally"
    assert main(["rollback", str(project), "--checkpoint", f"{S21}:u1:before", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {f["path"]: f["status"] for f in out["files"]} == {"tally/cli.py": "would-restore",
                                                              "tests/test_cli.py": "would-restore"}
    assert any(f"restored under {workspace}" in n for n in out["notes"])
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3
    assert main(["rollback", str(project), "--checkpoint", f"{S21}:u1:before"]) == 0
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V0
    capsys.readouterr()
    # The recorded folder is not on this machine: one line saying how (--root), exit 2.
    assert main(["rollback", str(Path(__file__).resolve().parent.parent / "fixtures" / "claude_home" / "projects"
                                  / "-home-dev-tally"), "--task", f"{S21}:u1"]) == 2
    assert "--root DIR" in capsys.readouterr().err
