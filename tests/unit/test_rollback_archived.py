"""Rolling back a task of a session `memtui cleanup` archived, on a Claude Code home whose
sessions worked in different folders (real transcripts, tests/unit/mixed_homes.py).

The archived session's task is read from memtui's archive; its files are restored under the
folder that session worked in — never under the folder the sessions still in the home share —
and its undo is recorded and listed like any other, through the library and the CLI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.memory_source import Capability
from memtui.core.rollback import apply_rollback, plan_rollback
from memtui import open as memtui_open
from memtui.core.discovery import discover

from mixed_homes import AGTRACE, CODEX_HOGE_TASK, HOGE_TASK, PLAN_TASK, claude_home, codex_home, moved, spotter_project

HOGE = b"print(1+1)\n"  # what the agtrace task's Write created in myapp/hoge.py
AGTRACE_SESSION = HOGE_TASK.split(":")[0]
PLAN_SESSION = PLAN_TASK.split(":")[0]


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A Claude Code home with spotter-small's sessions (in tmp/spotter) and the agtrace
    sample's (in tmp/agent-sample), every session archived by `memtui cleanup --archive`.
    Both projects hold a myapp/hoge.py as the agtrace task wrote it."""
    monkeypatch.setenv("HOME", str(tmp_path))
    home = claude_home(tmp_path)
    spotter = spotter_project(home, tmp_path / "spotter")
    agtrace = tmp_path / "agent-sample"
    agtrace.mkdir()
    moved(home, AGTRACE, agtrace)
    for project in (spotter, agtrace):
        (project / "myapp").mkdir()
        (project / "myapp" / "hoge.py").write_bytes(HOGE)
    for f in home.rglob("*"):
        os.utime(f, (1_600_000_000, 1_600_000_000))  # idle for years: cleanup archives them
    assert main(["cleanup", str(home), "--archive", "--keep-days", "0", "--keep-last", "0", "--yes"]) == 0
    assert not list(home.rglob("*.jsonl"))
    return home, spotter, agtrace


def restore_all_but(session: str, home: Path) -> None:
    for manifest in (Path(os.environ["XDG_DATA_HOME"]) / "memtui" / "archive" / "claude-code").glob("*.json"):
        if manifest.stem != session:
            assert main(["restore", "--session", manifest.stem]) == 0


def test_an_archived_task_rolls_back_under_its_own_folder_not_the_homes(home, capsys):
    """The sessions left in the home all worked in spotter/; the archived one in agent-sample/:
    its rollback deletes agent-sample/myapp/hoge.py, and spotter's file of the same name stays."""
    home, spotter, agtrace = home
    restore_all_but(AGTRACE_SESSION, home)
    capsys.readouterr()
    assert main(["rollback", str(home), "--task", HOGE_TASK, "--yes", "--json"]) == 0, capsys.readouterr()
    result = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["status"]) for f in result["files"]] == [("myapp/hoge.py", "done")]
    assert not (agtrace / "myapp" / "hoge.py").exists()
    assert (spotter / "myapp" / "hoge.py").read_bytes() == HOGE
    assert main(["rollback", str(home), "--undo", result["undo_checkpoint"], "--yes"]) == 0, capsys.readouterr()
    assert (agtrace / "myapp" / "hoge.py").read_bytes() == HOGE


def test_through_the_library_the_rollback_and_its_undo_are_listed(home):
    """The sessions left in the home worked in different folders; the archived one's task rolls
    back, its undo checkpoint is listed on the task and among the store's rollbacks, and undoes."""
    home, spotter, _agtrace = home
    restore_all_but(PLAN_SESSION, home)
    (source,) = [s.open() for s in discover(home)]
    assert source.can(Capability.ROLLBACK)
    result = apply_rollback(source, plan_rollback(source, task=PLAN_TASK))
    assert result.ok and result.undo_checkpoint, result
    assert not (spotter / "plan.md").exists()
    assert result.undo_checkpoint in [c.id for c in source.rollback_checkpoints()]
    assert result.undo_checkpoint in [c.id for c in source.checkpoints(PLAN_TASK)]
    assert source.checkpoint(result.undo_checkpoint).task_id == PLAN_TASK
    undone = apply_rollback(source, plan_rollback(source, undo=result.undo_checkpoint))
    assert undone.ok and (spotter / "plan.md").exists()


@pytest.mark.parametrize("with_root", [False, True], ids=["session-cwd", "--root"])
def test_with_every_session_archived_a_task_still_rolls_back(home, capsys, with_root):
    home, spotter, _agtrace = home
    argv = ["rollback", str(home), "--task", PLAN_TASK, "--yes"] + (["--root", str(spotter)] if with_root else [])
    assert main(argv) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert not (spotter / "plan.md").exists() and (spotter / "keep.txt").read_text() == "untouched\n"
    assert "undo recorded as checkpoint undo-" in out and f"restored under {spotter}" in out


def test_a_codex_task_of_an_archived_rollout_rolls_back_with_its_undo(tmp_path, monkeypatch, capsys):
    """Codex: the agtrace rollout (worked in agent-sample/) archived beside localpush's; its
    apply_patch that added myapp/hoge.py rolls back from the CLI, and --undo brings it back."""
    monkeypatch.setenv("HOME", str(tmp_path))
    home = codex_home(tmp_path)
    project = tmp_path / "agent-sample"
    (project / "myapp").mkdir(parents=True)
    moved(home, AGTRACE, project)
    with memtui_open(home) as codex:
        added = next(e for c in codex.checkpoints(CODEX_HOGE_TASK) for e in codex.checkpoint_entries(c.id))
        (project / "myapp" / "hoge.py").write_bytes(codex.read_entry(added.id)[1])
    for f in home.rglob("*"):
        os.utime(f, (1_600_000_000, 1_600_000_000))
    assert main(["cleanup", str(home), "--archive", "--keep-days", "0", "--keep-last", "0", "--yes"]) == 0
    assert not list(home.rglob("*.jsonl"))
    capsys.readouterr()
    assert main(["rollback", str(home), "--task", CODEX_HOGE_TASK, "--yes", "--json"]) == 0, capsys.readouterr()
    result = json.loads(capsys.readouterr().out)
    assert [f["status"] for f in result["files"]] == ["done"] and not (project / "myapp" / "hoge.py").exists()
    assert main(["rollback", str(home), "--undo", result["undo_checkpoint"], "--yes"]) == 0, capsys.readouterr()
    assert (project / "myapp" / "hoge.py").exists()
