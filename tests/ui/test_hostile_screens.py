"""Hostile text (Rich markup, ANSI escapes, bells, bidi overrides) in search hits and the
decision log is shown literally: the markup visible and unstyled, ESC as ␛, bidi as �."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from memtui.core.memory.decisions import add_decision
from memtui.core.store import AgentStore
from memtui.ui.screens.decisions import DecisionsScreen
from memtui.ui.screens.search import SearchScreen
from memtui.ui.screenshots import settle

HOSTILE = "[bold red]HX[/] \x1b[31mred\x1b[0m \u202eevil\u202c bell\x07"
SHOWN = "[bold red]HX[/] ␛[31mred␛[0m �evil� bell␇"
SIZE = (160, 30)


def hostile_workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    with AgentStore.open(root) as store:
        tid = store.start_task(store.start_session(HOSTILE), "task " + HOSTILE)
        store.record_step(tid, "tool", {"path": "p"}, "result " + HOSTILE)
        store.finish_task(tid, "completed")
    (root / "MEMORY.md").write_text("mem " + HOSTILE + "\n")
    return root


def seen(table: DataTable) -> list[tuple[str, list]]:
    """Each drawn line of `table`: its text and the segments holding 'HX'."""
    lines = []
    for y in range(table.size.height):
        strip = table.render_line(y)
        lines.append(("".join(s.text for s in strip), [s for s in strip if "HX" in s.text]))
    return lines


def assert_literal(lines: list[tuple[str, list]]) -> None:
    text = "\n".join(t for t, _ in lines)
    assert "[bold red]HX[/]" in text and "␛[31mred␛[0m" in text and "�evil�" in text
    assert not any(c in text for c in "\x1b\x07\u202e\u202c")
    held = [seg for _, segs in lines for seg in segs]
    # the markup is drawn in the same style as the word it would have styled, which is not red
    assert held and all("[bold red]HX" in seg.text for seg in held)
    assert not any(seg.style and seg.style.color and seg.style.color.name == "red" for seg in held)


async def test_search_hits_show_hostile_text_literally(tmp_path, open_screen):
    root = hostile_workspace(tmp_path / "ws")
    async with open_screen(root, lambda: SearchScreen(root), size=SIZE) as pilot:
        await pilot.press(*"evil")
        await settle(pilot)
        table = pilot.app.screen.query_one(DataTable)
        kinds = {str(table.get_cell_at((row, 0))) for row in range(table.row_count)}
        assert {"file", "task", "step"} <= kinds
        assert_literal(seen(table))


async def test_decision_titles_show_hostile_text_literally(tmp_path, open_screen):
    root = tmp_path / "ws"
    root.mkdir()
    add_decision(root, root / "DECISIONS.md", HOSTILE, "p", "o", "c", "why " + HOSTILE, date="2026-01-01")
    async with open_screen(root, lambda: DecisionsScreen(root), size=SIZE) as pilot:
        table = pilot.app.screen.query_one(DataTable)
        assert table.row_count == 1
        assert_literal(seen(table))
        entry = str(pilot.app.screen.query_one("#decisions-entry").render())
        assert SHOWN in entry and "\x1b" not in entry


async def test_gc_preview_titles_show_hostile_text_literally(tmp_path, open_screen):
    from memtui.ui.screens.gc import GcScreen
    from memtui.ui.widgets.gc_tree import GcTree

    root = hostile_workspace(tmp_path / "ws")
    async with open_screen(root, lambda: GcScreen(), size=(100, 30)) as pilot:
        tree = pilot.app.screen.query_one(GcTree)
        tree.root.expand_all()
        await settle(pilot)
        lines = [("".join(s.text for s in tree.render_line(y)), [s for s in tree.render_line(y) if "HX" in s.text])
                 for y in range(tree.size.height)]
        text = "\n".join(t for t, _ in lines)
        assert "#1 task [bold red]HX[/] ␛[3" in text and "▼ [bold red]HX[/] ␛[3" in text, text  # then cut with …
        assert not any(c in text for c in "\x1b\x07\u202e\u202c")
        assert all("[bold red]HX" in seg.text for _, segs in lines for seg in segs)


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
        assert "id s1␛[31mred" in shown and "\x1b" not in shown and "\u202e" not in shown
        assert "claude-code: 1 session, 0 to go, 0 orphan groups;" in shown  # counted in English
