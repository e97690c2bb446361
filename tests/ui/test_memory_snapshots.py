"""Snapshots of the memory pane, its lint badges, the decision log, and the conflict dialog.

Deterministic: the fixture workspace has fixed contents and mtimes, the terminal is
120×40, and the cursor blink is off.
"""

from __future__ import annotations

from memory_host import MemoryHost, settle, workspace
from textual.widgets import TextArea

from memtui.ui.screens.decisions import DecisionsScreen
from memtui.ui.screens.memory import MemoryScreen

SIZE = (120, 40)


def _still(app) -> None:
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


def test_memory_pane_markdown_with_contents(snap_compare, tmp_path):
    root = workspace(tmp_path)
    app = MemoryHost(lambda: MemoryScreen(root, select="SESSION_SUMMARY.md"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_memory_pane_lint_badges_and_findings(snap_compare, tmp_path):
    root = workspace(tmp_path)
    app = MemoryHost(lambda: MemoryScreen(root, select=".agent/init.d/04-decision-log.md"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_memory_pane_jsonl_with_a_malformed_line(snap_compare, tmp_path):
    root = workspace(tmp_path)
    app = MemoryHost(lambda: MemoryScreen(root, select="SESSION.jsonl"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_memory_pane_editing(snap_compare, tmp_path):
    root = workspace(tmp_path)
    app = MemoryHost(lambda: MemoryScreen(root, select="MEMORY.md"))

    async def edit(pilot):
        await settle(pilot)
        await pilot.press("e")
        _still(pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=edit)


def test_conflict_dialog_with_diff(snap_compare, tmp_path):
    root = workspace(tmp_path)
    app = MemoryHost(lambda: MemoryScreen(root, select="MEMORY.md"))

    async def conflict(pilot):
        await settle(pilot)
        await pilot.press("e")
        pilot.app.screen.query_one("#memory-editor", TextArea).insert("- my new fact\n", (2, 0))
        (root / "MEMORY.md").write_text("# Memory\n\nthe agent rewrote this\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("d")
        _still(pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=conflict)


def test_decision_log(snap_compare, tmp_path):
    root = workspace(tmp_path)
    app = MemoryHost(lambda: DecisionsScreen(root))

    async def second(pilot):
        await settle(pilot)
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=second)
