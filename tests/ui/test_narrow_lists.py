"""At 100×30 the source switcher and the statistics keep every column they show whole: the
flexible columns share the width, and a list leaves out its least needed column before
cutting one. At 160×48 and 220×60 every column is back.

Each test starts the app once and walks its sizes: the terminal is resized on the main screen
and the screen under test opened afresh at that size (pilot_support.each_screen, which names
every size whose check failed)."""

from __future__ import annotations

import re
from pathlib import Path

from pilot_support import each_screen


def _line_with(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


def resized_then(pilot, *keys: str):
    """each_screen's `go`: resize the terminal to the visit's size, then press `keys`."""
    async def go(size: tuple[int, int]) -> None:
        await pilot.resize_terminal(*size)
        await pilot.press(*keys)
    return go


async def test_the_source_switcher_shows_problems_and_path_whole(demo_path: Path, open_app, shown) -> None:
    from memtui.ui.screens.sources import SourcesScreen

    async with open_app(demo_path, size=(100, 30)) as pilot:
        async def check(size):
            assert pilot.app.size == size
            assert isinstance(pilot.app.screen, SourcesScreen)
            text = shown(pilot.app)
            header = _line_with(text, "Kind")
            assert "Counts" in header and "Problems " in header and "Path" in header
            assert ".agent/agent.db" in _line_with(text, "●  memtui")  # the row's path, whole
            assert "—" in _line_with(text, "Memory files")  # its problems cell
            # The counts leave out whole counts where the room is short: at 160 columns the row
            # read "sessions 10 · tasks 18 · steps 255 · checkpoints 26 · entries…".
            counts = re.search(r"memtui\s+(sessions .*?)\s{2,}", _line_with(text, "●  memtui")).group(1)
            assert counts.startswith("sessions 10 · tasks 18") and "…" not in counts, counts
            assert all(re.fullmatch(r"[a-z ]+ \d+", part) for part in counts.split(" · ")), counts

        await each_screen(pilot, [(100, 30), (160, 48), (220, 60)], check, go=resized_then(pilot, "S"))


async def test_statistics_keep_the_kind_whole_at_100_columns(demo_path: Path, open_app, shown) -> None:
    async with open_app(demo_path, size=(100, 30)) as pilot:
        async def check(size):
            assert pilot.app.size == size
            text = shown(pilot.app)
            if size == (100, 30):
                header = _line_with(text, " name ")
                assert "rows" in header and "bytes" in header and "share" in header and " kind " in header
                assert " table" not in header  # left out: an index's name carries its table
                assert "checkpoint_entry " in text and " index " in _line_with(text, "blob_hash")
            else:
                assert " kind " in _line_with(text, " name ") and " table " in _line_with(text, " name ")
                row = _line_with(text, "checkpoint_entry_after_blob ")
                assert " index " in row and " checkpoint_entry " in row

        await each_screen(pilot, [(100, 30), (160, 48), (220, 60)], check, go=resized_then(pilot, "s"))


async def test_the_source_switcher_keeps_the_end_of_a_long_path(tmp_path: Path, monkeypatch, open_app,
                                                                shown) -> None:
    """A Claude Code home outside the user's home folder is shown by its absolute path; when
    that is wider than the Path column, its start gives way and the end stays readable."""
    import shutil

    from sources_support import FIXTURES, copy_fixture

    workspace = shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "tally")
    config = tmp_path / "a-folder-with-a-long-name-for-agent-configurations" / "of-the-whole-team" / "ann-claude"
    copy_fixture("claude_home", config, workspace)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    async with open_app(workspace, shown_path=None, size=(100, 30)) as pilot:
        async def check(size):
            assert pilot.app.size == size
            row = next(part for part in _line_with(shown(pilot.app), "Claude Code").split("│")
                       if "Claude Code" in part)
            path = row.strip().split("  ")[-1]
            assert path.startswith("…") and path.endswith("/ann-claude/projects")
            assert str(config / "projects").endswith(path[1:])

        await each_screen(pilot, [(100, 30), (160, 48)], check, go=resized_then(pilot, "S"))


async def test_the_orphans_row_is_named_whole_at_every_width(demo_path, open_app, shown) -> None:
    """At 120 columns the row read "Orphans (tasks without a se": a label cut mid-word. A
    narrower title column shows a shorter form of it, whole."""
    async with open_app(demo_path, size=(80, 40)) as pilot:
        async def check(size):
            assert pilot.app.size == size
            row = next(line for line in shown(pilot.app).splitlines() if "Orphans" in line)
            label = re.split(r"\s{2,}", row.split("│")[1].strip())[0]
            assert label in ("Orphans (tasks without a session)", "Orphans (no session)", "Orphans"), row

        await each_screen(pilot, [(80, 40), (120, 40), (160, 40)], check, go=resized_then(pilot, "1", "end"))
