"""`c Cancel` is in the footer while a collection runs, not before it (pressing it then did nothing)."""

from __future__ import annotations

from pathlib import Path

from memtui.ui.screens.gc import GcScreen
from pilot_support import settle


async def test_gc_preview_offers_cancel_only_while_collecting(demo_path: Path, open_app, shown) -> None:
    async with open_app(demo_path) as pilot:
        await pilot.press("g")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, GcScreen)
        footer = shown(pilot.app).splitlines()[-1]
        assert "Apply" in footer and "Cancel" not in footer, footer
        screen.applying = True  # as while a collection runs
        await pilot.pause()
        assert "c Cancel" in shown(pilot.app).splitlines()[-1]
        screen.applying = False
