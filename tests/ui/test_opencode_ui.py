"""An OpenCode data folder in the app (the real OpenCode 1.18 running a sub-agent,
tests/fixtures/live/opencode-1.18.33/subagent): one session, the sub-agent's prompt nested under
the prompt that handed it the work, its write diffed — and no byte of the folder written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import screen_text
from memtui.ui.app import make_app
from pilot_support import settle

DATA = (Path(__file__).resolve().parent.parent / "fixtures" / "live" / "opencode-1.18.33" / "subagent" / "home"
        / ".local" / "share" / "opencode")
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="no OpenCode sub-agent live fixture")


async def test_a_sub_agent_is_nested_under_the_prompt_that_started_it(tmp_path):
    data = shutil.copytree(DATA, tmp_path / "opencode")
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in data.rglob("*") if p.is_file()}
    app = make_app(data)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        [session] = app.source.sessions()
        assert session.task_count == 2
        text = screen_text(app)
        assert '▼ ✓ "Ask a helper to write todo.md, then report."' in text
        assert "└─ ✓ Helper task: write todo.md listing two chores." in text
        assert "◀ current" in text.split("Helper task")[0]  # the prompt is current, not its sub-agent
        helper = app.source.tasks(session.id)[1]
        app.screen.show_task(helper.id)
        await settle(pilot)
        text = screen_text(app)
        assert "Diff · todo.md" in text and "+ - water plants" in text, text
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in data.rglob("*") if p.is_file()} == before


async def test_a_prompt_rolls_back_into_a_copy_of_the_project_and_is_undone(tmp_path):
    """The rollback dialog on OpenCode's store opened with --root: the prompt's sub-agent wrote
    todo.md, so rolling the prompt back removes it; `u` puts it back byte for byte."""
    import json

    from memtui.ui.screens.rollback import start_rollback

    data = shutil.copytree(DATA, tmp_path / "opencode")
    truth = json.loads((DATA.parents[3] / "truth.json").read_text())
    project = tmp_path / "project"
    project.mkdir()
    for rel, text in truth["files_after"].items():
        (project / rel).write_text(text)
    before = {p: p.read_bytes() for p in data.rglob("*") if p.is_file()}
    app = make_app(data, root=project)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        [session] = app.source.sessions()
        prompt = app.source.tasks(session.id)[0]
        start_rollback(app, "Roll back the prompt", task=prompt.id)
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen"
        await pilot.press("y")
        await settle(pilot)
        assert not (project / "todo.md").exists()
        await pilot.press("u")
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen"
        await pilot.press("y")
        await settle(pilot)
    assert {rel: (project / rel).read_text() for rel in truth["files_after"]} == truth["files_after"]
    assert {p: p.read_bytes() for p in data.rglob("*") if p.is_file()} == before
