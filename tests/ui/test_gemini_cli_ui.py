"""A Gemini CLI home in the app (the real chats of tests/fixtures/live/gemini-cli-0.61.0): its
session and prompts listed, a write_file/replace step's change diffed, no GC, stats or pin
offered, rollback only with a project folder to restore under (rolled back and undone through
the dialog), and no byte of the home written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.ui.app import make_app
from memtui.ui.widgets.step_timeline import StepTimeline
from pilot_support import footer_keys, settle
from conftest import screen_text

HOME = Path(__file__).resolve().parent.parent / "fixtures" / "live" / "gemini-cli-0.61.0" / "resume" / "home" / ".gemini"
pytestmark = pytest.mark.skipif(not HOME.is_dir(), reason="no Gemini CLI live fixture")


async def test_a_gemini_home_lists_its_prompts_and_diffs_a_change_without_offering_rollback(tmp_path):
    home = shutil.copytree(HOME, tmp_path / ".gemini")
    for root in home.glob("tmp/*/.project_root"):  # the project folder the sessions worked in is gone
        root.write_text(str(tmp_path / "moved-away"))
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in home.rglob("*") if p.is_file()}
    app = make_app(home)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.source.kind == "gemini-cli"
        [session] = app.source.sessions()
        tasks = app.source.tasks(session.id)
        assert "Second prompt, resumed" in screen_text(app) or "First prompt" in screen_text(app)
        app.screen.show_task(tasks[1].id)
        await settle(pilot)
        steps = app.screen.query_one(StepTimeline)
        steps.move_cursor(row=next(i for i, s in enumerate(steps.records) if s.checkpoint_id is not None))
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        keys = footer_keys(app)
        assert "v" in keys and not {"r", "R", "u", "g", "s"} & keys
        text = screen_text(app)
        assert "Diff · " in text and "notes.md" in text and "+ zeta" in text  # the replace's change, line by line
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in home.rglob("*") if p.is_file()} == before


async def test_a_prompt_rolls_back_into_a_copy_of_the_project_and_is_undone(tmp_path):
    from memtui.ui.screens.rollback import start_rollback

    home = shutil.copytree(HOME, tmp_path / ".gemini")
    truth = json.loads((HOME.parent.parent / "truth.json").read_text())
    project = tmp_path / "project"
    project.mkdir()
    for rel, text in truth["files_after"].items():
        (project / rel).write_text(text)
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    app = make_app(home, root=project)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        [session] = app.source.sessions()
        last = app.source.tasks(session.id)[-1]
        start_rollback(app, "Roll back the last prompt", task=last.id)
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen"
        await pilot.press("y")
        await settle(pilot)
        assert not (project / "done.txt").exists()
        assert (project / "notes.md").read_text() == "# Notes\n\nalpha\nbeta\ngamma\nepsilon\n"
        await pilot.press("u")
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen"
        await pilot.press("y")
        await settle(pilot)
    assert {rel: (project / rel).read_text() for rel in truth["files_after"]} == truth["files_after"]
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before
