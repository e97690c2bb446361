"""Every agent's store is named on screen by the label its package declares: the workspace bar
says "memtui · Gemini CLI", not the source kind "gemini-cli" (the homes are the real CLIs' own,
tests/fixtures/live)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtui.core.agents import agent_of_kind
from memtui.ui.app import make_app
from pilot_support import settle
from conftest import screen_text

LIVE = Path(__file__).resolve().parent.parent / "fixtures" / "live"
HOMES = {
    "gemini-cli": ("gemini-cli-0.61.0/resume/home", ".gemini"),
    "opencode": ("opencode-1.18.33/create-edit/home", ".local/share/opencode"),
}


@pytest.mark.parametrize("kind", sorted(HOMES))
async def test_the_workspace_bar_names_the_agent_by_its_label(kind, tmp_path):
    fixture, store = HOMES[kind]
    home = shutil.copytree(LIVE / fixture, tmp_path / "home")
    app = make_app(home / store)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.source is not None and app.source.kind == kind
        label = agent_of_kind(kind).label
        assert f"memtui · {label}" in screen_text(app)
