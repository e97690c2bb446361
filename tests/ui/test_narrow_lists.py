"""At 100×30 the source switcher and the statistics keep every column they show whole: the
flexible columns share the width, and a list leaves out its least needed column before
cutting one. At 160×48 and 220×60 every column is back."""

from __future__ import annotations

from pathlib import Path

import pytest


def _line_with(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


@pytest.mark.parametrize("size", [(100, 30), (160, 48), (220, 60)])
async def test_the_source_switcher_shows_problems_and_path_whole(demo_path: Path, open_app, settled, shown,
                                                                 size) -> None:
    from memtui.ui.screens.sources import SourcesScreen

    async with open_app(demo_path, size=size) as pilot:
        await pilot.press("S")
        await settled(pilot)
        assert isinstance(pilot.app.screen, SourcesScreen)
        text = shown(pilot.app)
        header = _line_with(text, "Kind")
        assert "Counts" in header and "Problems " in header and "Path" in header
        assert ".agent/agent.db" in _line_with(text, "●  memtui")  # the row's path, whole
        assert "—" in _line_with(text, "Memory files")  # its problems cell


async def test_statistics_keep_the_kind_whole_at_100_columns(demo_path: Path, open_app, settled, shown) -> None:
    async with open_app(demo_path, size=(100, 30)) as pilot:
        await pilot.press("s")
        await settled(pilot)
        text = shown(pilot.app)
        header = _line_with(text, " name ")
        assert "rows" in header and "bytes" in header and "share" in header and " kind " in header
        assert " table" not in header  # left out: an index's name carries its table
        assert "checkpoint_entry " in text and " index " in _line_with(text, "blob_hash")
    for size in [(160, 48), (220, 60)]:
        async with open_app(demo_path, size=size) as pilot:
            await pilot.press("s")
            await settled(pilot)
            text = shown(pilot.app)
            assert " kind " in _line_with(text, " name ") and " table " in _line_with(text, " name ")
            row = _line_with(text, "checkpoint_entry_after_blob ")
            assert " index " in row and " checkpoint_entry " in row
