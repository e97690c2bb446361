"""Snapshots of the memory pane, its lint badges, the decision log, and the conflict dialog.

Deterministic: the fixture workspace has fixed contents and mtimes, the terminal is
120×40, and the cursor blink is off. Each runs the real app (make_app) on the workspace
and pushes the screen, as the keys `m` and `D` do.
"""

from __future__ import annotations

from memory_workspace import make_workspace
from textual.widgets import TextArea

from memtui.ui.screens.decisions import DecisionsScreen
from memtui.ui.screens.memory import MemoryScreen
from pilot_support import settle

SIZE = (120, 40)


def _still(app) -> None:
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


def shot(snap_compare, app_for, root, make_screen, then=None) -> bool:
    """The app on `root` with `make_screen()` pushed, settled, then `then(pilot)`."""

    async def run(pilot):
        await settle(pilot)
        pilot.app.push_screen(make_screen())
        await settle(pilot)
        if then is not None:
            await then(pilot)

    return snap_compare(app_for(root), terminal_size=SIZE, run_before=run)


def test_memory_pane_markdown_with_contents(snap_compare, app_for, tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert shot(snap_compare, app_for, root, lambda: MemoryScreen(root, select="SESSION_SUMMARY.md"))


def test_memory_pane_lint_badges_and_findings(snap_compare, app_for, tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert shot(snap_compare, app_for, root, lambda: MemoryScreen(root, select=".agent/init.d/04-decision-log.md"))


def test_memory_pane_jsonl_with_a_malformed_line(snap_compare, app_for, tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert shot(snap_compare, app_for, root, lambda: MemoryScreen(root, select="SESSION.jsonl"))


def test_memory_pane_editing(snap_compare, app_for, tmp_path):
    root = make_workspace(tmp_path / "ws")

    async def edit(pilot):
        await pilot.press("e")
        _still(pilot.app)
        await pilot.pause()

    assert shot(snap_compare, app_for, root, lambda: MemoryScreen(root, select="MEMORY.md"), edit)


def test_conflict_dialog_with_diff(snap_compare, app_for, tmp_path):
    root = make_workspace(tmp_path / "ws")

    async def conflict(pilot):
        await pilot.press("e")
        pilot.app.screen.query_one("#memory-editor", TextArea).insert("- my new fact\n", (2, 0))
        (root / "MEMORY.md").write_text("# Memory\n\nthe agent rewrote this\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("d")
        _still(pilot.app)
        await pilot.pause()

    assert shot(snap_compare, app_for, root, lambda: MemoryScreen(root, select="MEMORY.md"), conflict)


def test_decision_log(snap_compare, app_for, tmp_path):
    root = make_workspace(tmp_path / "ws")

    async def second(pilot):
        await pilot.press("down")
        await pilot.pause()

    assert shot(snap_compare, app_for, root, lambda: DecisionsScreen(root), second)
