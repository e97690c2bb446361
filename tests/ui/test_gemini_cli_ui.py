"""A Gemini CLI home in the app (the real chats of tests/fixtures/live/gemini-cli-0.61.0): its
session and prompts listed, a write_file/replace step's change diffed, no rollback, GC, stats or
pin offered, and no byte of the home written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtui.ui.app import make_app
from memtui.ui.widgets.step_timeline import StepTimeline
from pilot_support import settle
from conftest import screen_text

HOME = Path(__file__).resolve().parent.parent / "fixtures" / "live" / "gemini-cli-0.61.0" / "resume" / "home" / ".gemini"
pytestmark = pytest.mark.skipif(not HOME.is_dir(), reason="no Gemini CLI live fixture")


def footer_keys(app) -> set[str]:
    return {binding.key for _node, binding, enabled, _tip in app.screen.active_bindings.values()
            if binding.show and enabled}


async def test_a_gemini_home_lists_its_prompts_and_diffs_a_change_without_offering_rollback(tmp_path):
    home = shutil.copytree(HOME, tmp_path / ".gemini")
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
        assert "Diff · notes.md" in text and "+ zeta" in text  # the replace's change, line by line
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in home.rglob("*") if p.is_file()} == before
