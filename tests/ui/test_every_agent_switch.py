"""`memtui ~` lists every agent's sessions with an Agent column; the source switcher (S) moves
to one agent's store — without the Agent column, now empty on every row — and back to every
agent's sessions (the switcher offers the merged list too, first)."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.widgets import DataTable

from memtui.ui.app import make_app
from memtui.ui.screens.sources import SourcesScreen
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import user_home  # noqa: E402


def sessions_header(shown: str) -> str:
    return next(line for line in shown.splitlines() if "Session" in line and "Status" in line)


async def choose(pilot, kind: str) -> None:
    await pilot.press("S")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SourcesScreen)
    kinds = [row.source.kind for row in screen.rows]
    screen.query_one(DataTable).move_cursor(row=kinds.index(kind))
    await pilot.press("enter")
    await settle(pilot)
    assert pilot.app.source.kind == kind


async def test_the_switcher_leaves_every_agent_for_one_and_comes_back(tmp_path, monkeypatch, shown) -> None:
    home = user_home(tmp_path, monkeypatch)
    app = make_app(home)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.source.kind == "every-agent"
        assert "Agent" in sessions_header(shown(app))
        await pilot.press("S")
        await settle(pilot)
        rows = app.screen.rows
        assert [r.source.kind for r in rows][:1] == ["every-agent"], [r.source.kind for r in rows]
        assert rows[0].counts == {"sessions": 3}  # 2 Claude Code + 1 Codex: sessions, nothing else summed
        assert app.screen.query_one(DataTable).cursor_row == 0  # the list shown now is marked
        await pilot.press("escape")
        await settle(pilot)

        await choose(pilot, "claude-code")
        screen = shown(app)
        assert "Agent" not in sessions_header(screen), screen
        assert "Implement spotter-gqc" in screen

        await choose(pilot, "every-agent")
        screen = shown(app)
        assert "Agent" in sessions_header(screen), screen
        assert "Codex" in screen and "Claude Code" in screen
