"""Aider and Cline in the app, over what the real CLIs wrote (tests/fixtures/live/aider-0.86.2,
cline-2.18.0): an Aider repository's prompts listed, a commit's files diffed and the prompt
rolled back through the dialog and undone; a Cline home's task listed, an edit diffed, no
rollback, GC, stats or pin offered; neither the repository nor the home written by browsing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from memtui.ui.app import make_app
from memtui.ui.widgets.step_timeline import StepTimeline
from pilot_support import footer_keys, settle
from conftest import screen_text

LIVE = Path(__file__).resolve().parent.parent / "fixtures" / "live"
AIDER = LIVE / "aider-0.86.2" / "resume"
CLINE = LIVE / "cline-2.18.0" / "create-edit" / "home" / ".cline"
pytestmark = pytest.mark.skipif(shutil.which("git") is None or not AIDER.is_dir() or not CLINE.is_dir(),
                                reason="no git, or no Aider / Cline live fixture")


def state(folder: Path) -> dict:
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file()}


async def show_change(app, pilot, task_id) -> None:
    app.screen.show_task(task_id)
    await settle(pilot)
    steps = app.screen.query_one(StepTimeline)
    steps.move_cursor(row=next(i for i, s in enumerate(steps.records) if s.checkpoint_id is not None))
    await settle(pilot)
    await pilot.press("5")
    await settle(pilot)


async def test_an_aider_repository_diffs_a_commit_and_rolls_a_prompt_back(tmp_path, monkeypatch):
    from memtui.ui.screens.rollback import start_rollback

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(AIDER / "workspace.bundle"), str(repo)], check=True)
    for name in (".aider.chat.history.md", ".aider.input.history"):
        shutil.copy2(AIDER / "workspace" / name, repo / name)
    history = state(repo / ".git"), (repo / ".aider.chat.history.md").read_bytes()
    app = make_app(repo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.source.kind == "aider"
        [session] = app.source.sessions()
        first, last = app.source.tasks(session.id)
        await show_change(app, pilot, last.id)
        assert {"v", "r"} <= footer_keys(app)
        text = screen_text(app)
        assert "Diff · done.txt" in text and "+ done" in text and "notes.md" in text  # the commit's two files
        assert (state(repo / ".git"), (repo / ".aider.chat.history.md").read_bytes()) == history
        start_rollback(app, "Roll back the last prompt", task=last.id)
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen"
        await pilot.press("y")
        await settle(pilot)
        assert not (repo / "done.txt").exists()
        assert (repo / "notes.md").read_text() == "# Notes\n\nalpha\nbeta\ngamma\nepsilon\n"
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    assert (repo / "done.txt").read_text() == "done\n"
    assert (repo / "notes.md").read_text() == "# Notes\n\nalpha\nbeta\ngamma\nepsilon\nzeta\n"
    assert state(repo / ".git") == history[0]  # the rollback wrote files, never the repository's history


async def test_a_cline_home_diffs_an_edit_without_offering_rollback(tmp_path, monkeypatch):
    home = shutil.copytree(CLINE, tmp_path / ".cline")
    monkeypatch.setenv("HOME", str(tmp_path))
    before = state(home)
    app = make_app(home / "data")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.source.kind == "cline"
        [session] = app.source.sessions()
        [task] = app.source.tasks(session.id)
        assert "Create greet.py" in screen_text(app)
        await show_change(app, pilot, task.id)
        keys = footer_keys(app)
        assert "v" in keys and not {"r", "R", "u", "g", "s"} & keys
        assert "Diff · " in screen_text(app)
    assert state(home) == before
