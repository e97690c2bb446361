"""Long paths keep the end that tells them apart. A real Claude Code home whose sessions
worked in two worktrees of one project (tests/fixtures/real/claude-2.1.39-spotter) lists
its changed files by absolute path, and its cleanup preview the two worktrees: cut at the
end, every file read "/home/USER/pr…" and both worktrees ".../spotter-worktrees/s…"."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from conftest import screen_text
from memtui.ui.app import make_app
from pilot_support import each_screen, settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import real_home  # noqa: E402

SIZES = [(100, 30), (160, 48)]


def _pane_lines(app, selector: str) -> list[str]:
    """The lines a widget shows, as the terminal draws them."""
    widget = app.screen.query_one(selector)
    region = widget.content_region
    return [line[region.x:region.right] for line in screen_text(app).splitlines()[region.y:region.bottom]]


@pytest.fixture(scope="module")
def spotter(tmp_path_factory) -> Path:
    return real_home("claude-2.1.39-spotter", tmp_path_factory.mktemp("real"))


async def test_changed_files_keep_their_names(spotter: Path) -> None:
    """At each size (one app start, resized: each_screen names every size that failed)."""
    app = make_app(spotter)
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)

        async def check(size) -> None:
            assert app.size == size
            rows = [line.strip() for line in _pane_lines(app, "#files")[1:] if line.strip()]
            assert len(rows) >= 8
            paths = [row[1:].strip().split("  ")[0] for row in rows]
            assert len(set(paths)) == len(paths), paths  # every row tells its file apart
            assert any(p.endswith("README.md") for p in paths) and all(p.startswith("…") for p in paths), paths

        await each_screen(pilot, SIZES, check, go=lambda size: pilot.resize_terminal(*size))


async def test_the_cleanup_preview_tells_the_worktrees_apart(spotter: Path, tmp_path: Path) -> None:
    """At each size the terminal is resized on the main screen and the cleanup preview opened
    afresh (one app start: each_screen names every size that failed)."""
    home = shutil.copytree(spotter, tmp_path / "a-claude-home-kept-in-a-folder-with-a-long-name" / "claude")
    app = make_app(home)
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)

        async def at(size) -> None:
            await pilot.resize_terminal(*size)
            await pilot.press("C")

        async def check(size) -> None:
            assert app.size == size
            assert type(app.screen).__name__ == "CleanupScreen"
            title = _pane_lines(app, "#cleanup-title")[0]
            assert title.startswith("Clean up …") and title.rstrip().endswith(
                "/claude — nothing changes until you archive (a) or delete (x)")
            tree = "\n".join(_pane_lines(app, "#cleanup-tree"))
            assert "worktrees/spotter-gqc  " in tree and "worktrees/spotter-4te  " in tree  # then the figures

        await each_screen(pilot, SIZES, check, go=at)


async def test_the_header_keeps_the_end_of_a_long_workspace_path(demo_master: Path, tmp_path: Path) -> None:
    workspace = shutil.copytree(demo_master, tmp_path / "clients" / "a-long-customer-name" / "their-service")
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        shown = _pane_lines(app, "#ws-path")[0].strip()
        assert shown.startswith("…") and shown.endswith("-service"), shown  # the folder's own name
