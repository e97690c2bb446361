"""Rolling back a task of a home whose sessions worked in different folders (Claude Code,
Codex; real transcripts): entry paths stay absolute there, and are restored under the task's
own session folder, or under --root — a path outside that root is refused, naming the path and
the root used, never suggesting the --root just given."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.codex.source import CodexSource

from mixed_homes import (AGTRACE, CODEX_HOGE_TASK, HOGE_TASK, PLAN_TASK, SPOTTER, claude_home, codex_home, cwd_to,
                         moved, spotter_project, written_plan)


@pytest.fixture
def home(tmp_path):
    """The Claude home, spotter-small's project living in tmp/spotter with plan.md as its Write left it."""
    home = claude_home(tmp_path)
    return home, spotter_project(home, tmp_path / "spotter")


def test_the_home_is_mixed_and_keeps_entry_paths_absolute(home):
    home, project = home
    source = ClaudeCodeSource.from_path(home)
    assert source.workspace is None
    paths = [e.path for c in source.checkpoints(PLAN_TASK) for e in source.checkpoint_entries(c.id)]
    assert paths == [f"{project}/plan.md"]


@pytest.mark.parametrize("with_root", [True, False], ids=["--root", "session-cwd"])
def test_a_task_of_a_session_inside_the_project_rolls_back(home, capsys, with_root):
    home, project = home
    argv = ["rollback", str(home), "--task", PLAN_TASK, "--yes"] + (["--root", str(project)] if with_root else [])
    assert main(argv) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert not (project / "plan.md").exists()  # the Write created it: rolled back, it is gone
    assert (project / "keep.txt").read_text() == "untouched\n"
    assert "outside" not in out and f"restored under {project}" in out


def test_the_task_folder_mapped_to_another_copy_with_root(tmp_path, capsys):
    """The session's folder is not on this machine: --root COPY restores its paths there."""
    home = claude_home(tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "plan.md").write_bytes(written_plan(home))
    assert main(["rollback", str(home), "--task", PLAN_TASK, "--yes", "--root", str(copy)]) == 0, capsys.readouterr()
    assert not (copy / "plan.md").exists()
    assert f"recorded under {SPOTTER} are restored under {copy}" in capsys.readouterr().out


def test_a_session_folder_not_on_this_machine_says_to_give_root(tmp_path, capsys):
    home = claude_home(tmp_path)
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)  # one session's folder exists here: rollback is offered
    assert main(["rollback", str(home), "--task", HOGE_TASK, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"worked in {AGTRACE}" in err and "not a folder on this machine" in err and "--root DIR" in err


def test_a_file_outside_the_root_given_is_refused_naming_it_and_the_root(tmp_path, capsys):
    """Only the cwd moved: the file the agent edited stays under the old folder, outside the
    root; nothing is written, and the message does not suggest the --root just given."""
    home = claude_home(tmp_path)
    project = tmp_path / "agent-sample"
    project.mkdir()
    cwd_to(home, AGTRACE, project)
    (project / "myapp").mkdir()
    (project / "myapp" / "hoge.py").write_text("print('hoge')\n")
    assert main(["rollback", str(home), "--task", HOGE_TASK, "--yes", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert f"{AGTRACE}/myapp/hoge.py" in out and f"outside {project}" in out
    assert "--root DIR" not in out and "with --root" not in out  # no advice to give what was given
    assert (project / "myapp" / "hoge.py").read_text() == "print('hoge')\n"


def test_a_path_leading_out_of_the_session_folder_is_still_refused(tmp_path, capsys):
    home = claude_home(tmp_path)
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)
    content = written_plan(home)
    for f in home.rglob("*.jsonl"):  # the Write's path leads out through '..'
        f.write_text(f.read_text(encoding="utf-8").replace(f"{project}/plan.md", f"{project}/../outside.md"))
    (tmp_path / "outside.md").write_bytes(content)
    for argv in ([], ["--root", str(project)]):
        assert main(["rollback", str(home), "--task", PLAN_TASK, "--yes", *argv]) == 1
        out = capsys.readouterr().out
        assert "'..' leads outside" in out and f"lead outside {project}" in out
    assert (tmp_path / "outside.md").read_bytes() == content


def test_a_codex_task_rolls_back_under_its_session_folder(tmp_path, capsys):
    home = codex_home(tmp_path)
    project = tmp_path / "agent-sample"
    (project / "myapp").mkdir(parents=True)
    cwd_to(home, AGTRACE, project)  # Codex's patch paths are relative to the session's cwd
    source = CodexSource.from_path(home)
    assert source.workspace is None  # the localpush rollouts worked elsewhere
    entry = next(e for c in source.checkpoints(CODEX_HOGE_TASK) for e in source.checkpoint_entries(c.id))
    assert entry.path == f"{project}/myapp/hoge.py"
    (project / "myapp" / "hoge.py").write_bytes(source.read_entry(entry.id)[1])
    for argv in (["--root", str(project)], []):
        assert main(["rollback", str(home), "--task", CODEX_HOGE_TASK, "--dry-run", *argv]) == 0, capsys.readouterr()
        out = capsys.readouterr().out
        assert "would-restore  myapp/hoge.py" in out.replace("   ", "  ") and "outside" not in out
    assert main(["rollback", str(home), "--task", CODEX_HOGE_TASK, "--yes"]) == 0
    assert not (project / "myapp" / "hoge.py").exists()


@pytest.mark.parametrize("where", ["home", "filesystem root"])
def test_a_session_begun_in_the_home_or_root_folder_needs_root(tmp_path, capsys, monkeypatch, where):
    """A session started in ~ (or /) would make every file of the user a rollback target:
    without --root the rollback is refused; the folder given with --root is the user's choice."""
    user = tmp_path / "user"
    (user / "myapp").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(user))
    home = claude_home(tmp_path)
    cwd_to(home, AGTRACE, user if where == "home" else Path("/"))
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)
    assert main(["rollback", str(home), "--task", HOGE_TASK, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no project folder" in err and "--root DIR" in err
    if where == "home":
        assert main(["rollback", str(home), "--task", HOGE_TASK, "--dry-run", "--root", str(user)]) in (0, 1)
        assert "no project folder" not in capsys.readouterr().err


def test_the_undo_stays_with_the_task_after_its_session_folder_is_gone(home, capsys):
    """The undo of a rollback under the session folder is kept for that folder: once the
    folder is gone the task still lists it, and undoing it asks for a copy with --root."""
    home, project = home
    assert main(["rollback", str(home), "--task", PLAN_TASK, "--yes"]) == 0, capsys.readouterr()
    capsys.readouterr()
    undo = [c for c in ClaudeCodeSource.from_path(home).checkpoints(PLAN_TASK) if c.label == "rollback"]
    assert len(undo) == 1
    (project.parent / "agent-sample").mkdir()
    cwd_to(home, AGTRACE, project.parent / "agent-sample")  # another session's folder is here: rollback is offered
    project.rename(project.with_name("elsewhere"))
    assert [c.id for c in ClaudeCodeSource.from_path(home).checkpoints(PLAN_TASK) if c.label == "rollback"] == [undo[0].id]
    assert main(["rollback", str(home), "--undo", str(undo[0].id), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"worked in {project}" in err and "not a folder on this machine" in err and "--root DIR" in err


def test_a_session_that_recorded_no_folder_needs_root(tmp_path, capsys):
    home = claude_home(tmp_path)
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)  # the other spotter sessions' folder is here: rollback is offered
    transcript = next(home.rglob(f"{PLAN_TASK.split(':')[0]}.jsonl"))
    transcript.write_text(transcript.read_text(encoding="utf-8").replace(f'"cwd":"{project}"', '"cwd":""')
                          .replace(f'"cwd": "{project}"', '"cwd": ""'), encoding="utf-8")
    assert main(["rollback", str(home), "--task", PLAN_TASK, "--dry-run"]) == 2
    assert "recorded no working directory" in capsys.readouterr().err
