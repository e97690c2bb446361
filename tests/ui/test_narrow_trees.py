"""The GC preview (g) and the cleanup preview (C) on a narrow terminal: every line stays on
screen, a figure is never cut (a cut '1.7 KiB' reads '1.', '282 B' reads '28'), the title
gives way first, and a project's folder keeps the end that tells it apart.

On the demo store and on a real Claude Code home whose sessions worked in two worktrees of one
project (tests/fixtures/real/claude-2.1.39-spotter)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from conftest import screen_text, tree_nodes
from memtui.core.display import human_bytes
from memtui.core.gc import GcSessionRow, GcTaskRow
from memtui.ui.app import make_app
from pilot_support import each_screen, settle
from memtui.ui.widgets.cleanup_tree import CleanupTree
from memtui.ui.widgets.gc_tree import GcTree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import real_home  # noqa: E402

SIZES = [(80, 24), (100, 30), (160, 48)]


def shown_lines(app, tree) -> dict[int, str]:
    """The tree's lines the terminal draws, by tree line number."""
    region = tree.scrollable_content_region
    lines = screen_text(app).splitlines()[region.y:region.bottom]
    top = tree.scroll_offset.y
    return {top + i: line[region.x:region.right].rstrip() for i, line in enumerate(lines)}


async def test_gc_rows_keep_their_figures_whole(demo_path: Path, app_for) -> None:
    """One app start: at each size the terminal is resized on the main screen and the GC
    preview opened afresh (each_screen names every size that failed)."""
    app = app_for(demo_path)
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)

        async def at(size) -> None:
            await pilot.resize_terminal(*size)
            await pilot.press("g")

        async def check(size) -> None:
            assert app.size == size
            tree = app.screen.query_one(GcTree)
            for parent in tree.root.children:
                parent.expand()
            await pilot.pause()
            assert tree.virtual_size.width <= tree.scrollable_content_region.width  # nothing runs off the right
            lines = shown_lines(app, tree)
            tasks = sessions = 0
            for node in tree_nodes(tree):
                line = lines.get(node.line)
                if line is None:
                    continue
                row = node.data
                if isinstance(row, GcTaskRow):
                    tasks += 1
                    assert line.split()[1].startswith(f"#{row.task}"), line
                    if row.bytes:
                        assert line.endswith(f"  {human_bytes(row.bytes)}"), line
                    assert row.state in line, line
                elif isinstance(row, GcSessionRow) and row.reclaimable_bytes:
                    sessions += 1
                    assert line.endswith(f" {human_bytes(row.reclaimable_bytes)}"), line
            assert tasks >= 5 and sessions >= 1

        await each_screen(pilot, SIZES, check, go=at)


@pytest.fixture(scope="module")
def spotter(tmp_path_factory) -> Path:
    return real_home("claude-2.1.39-spotter", tmp_path_factory.mktemp("real"))


async def test_cleanup_projects_stay_apart_with_their_figures(spotter: Path, tmp_path: Path) -> None:
    """One app start: at each size the terminal is resized on the main screen and the cleanup
    preview opened afresh (each_screen names every size that failed)."""
    home = shutil.copytree(spotter, tmp_path / "claude")
    app = make_app(home)
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)

        async def at(size) -> None:
            await pilot.resize_terminal(*size)
            await pilot.press("C")

        async def check(size) -> None:
            assert app.size == size
            tree = app.screen.query_one(CleanupTree)
            assert tree.virtual_size.width <= tree.scrollable_content_region.width  # nothing runs off the right
            lines = shown_lines(app, tree)
            projects = [node for node in tree.root.children]
            shown = [lines[node.line] for node in projects]
            assert len(shown) == 2 and len(set(shown)) == 2, shown
            for node, line in zip(projects, shown):
                row = node.data
                ends = row.project.rsplit("-", 1)[-1]
                path = line[2:].split("  ")[0]
                assert path.endswith(f"spotter-{ends}"), line  # the worktree's own name: -gqc / -4te
                assert f"  {human_bytes(row.going_bytes)} of {human_bytes(row.bytes)} going" in line, line

        await each_screen(pilot, SIZES, check, go=at)
