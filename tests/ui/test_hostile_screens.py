"""Hostile text (Rich markup, ANSI escapes, bells, bidi overrides) in search hits and the
decision log is shown literally: the markup visible and unstyled, ESC as ␛, bidi as �."""

from __future__ import annotations

from textual.widgets import DataTable

from hostile_text import HOSTILE, SHOWN, assert_literal, assert_no_raw, assert_unstyled, drawn, hostile_workspace
from memtui.core.memory.decisions import add_decision
from memtui.ui.screens.decisions import DecisionsScreen
from memtui.ui.screens.search import SearchScreen
from pilot_support import settle

SIZE = (160, 30)


async def test_search_hits_show_hostile_text_literally(tmp_path, open_screen):
    root = hostile_workspace(tmp_path / "ws")
    async with open_screen(root, lambda: SearchScreen(root), size=SIZE) as pilot:
        await pilot.press(*"evil")
        await settle(pilot)
        table = pilot.app.screen.query_one(DataTable)
        kinds = {str(table.get_cell_at((row, 0))) for row in range(table.row_count)}
        assert {"file", "task", "step"} <= kinds
        assert_literal(drawn(table))


async def test_decision_titles_show_hostile_text_literally(tmp_path, open_screen):
    root = tmp_path / "ws"
    root.mkdir()
    add_decision(root, root / "DECISIONS.md", HOSTILE, "p", "o", "c", "why " + HOSTILE, date="2026-01-01")
    async with open_screen(root, lambda: DecisionsScreen(root), size=SIZE) as pilot:
        table = pilot.app.screen.query_one(DataTable)
        assert table.row_count == 1
        assert_literal(drawn(table))
        entry = str(pilot.app.screen.query_one("#decisions-entry").render())
        assert SHOWN in entry
        assert_no_raw(entry)


async def test_gc_preview_titles_show_hostile_text_literally(tmp_path, open_screen):
    from memtui.ui.screens.gc import GcScreen
    from memtui.ui.widgets.gc_tree import GcTree

    root = hostile_workspace(tmp_path / "ws")
    async with open_screen(root, lambda: GcScreen(), size=(100, 30)) as pilot:
        tree = pilot.app.screen.query_one(GcTree)
        tree.root.expand_all()
        await settle(pilot)
        lines = drawn(tree)
        text = "\n".join(t for t, _ in lines)
        assert "#1 task [bold red]HX[/] ␛[3" in text and "▼ [bold red]HX[/] ␛[3" in text, text  # then cut with …
        assert_no_raw(text)
        assert_unstyled(lines)


async def test_cleanup_explains_a_hostile_session_id_literally(tmp_path):
    """A transcript's file name is the session's id: any byte but '/' may be in it."""
    from tests.unit.cleanup_homes import NOW, claude_transcript

    from memtui.ui.app import make_app
    from conftest import screen_text

    sid = "s1\x1b[31mred\u202eevil"
    project = tmp_path / "claude" / "projects" / "-work-alpha"
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_text(claude_transcript(sid, "/work/alpha", NOW, "hello"))
    app = make_app(tmp_path / "claude")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        tree = app.screen.query_one("#cleanup-tree")
        [project] = tree.root.children
        project.expand()
        await pilot.pause()
        tree.move_cursor(project.children[0])
        await settle(pilot)
        shown = screen_text(app)
        assert "id s1␛[31mred" in shown
        assert_no_raw(shown)
        assert "claude-code: 1 session, 0 to go, 0 orphan groups;" in shown  # counted in English
