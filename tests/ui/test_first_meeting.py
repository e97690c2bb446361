"""What a developer meeting memtui for the first time saw on screen: a folder of memory
documents only is no dead end."""

from __future__ import annotations

from pathlib import Path

from memtui.ui.screens.notice import NoticeScreen

from hostile_text import HOSTILE, SHOWN, assert_no_raw, assert_unstyled, drawn
from sources_support import copy_fixture
from conftest import notifications


async def test_a_folder_of_memory_documents_points_at_them(tmp_path: Path, open_app, shown) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n- prefers pytest\n")
    (tmp_path / "AGENTS.md").write_text("# Agents\n")
    async with open_app(tmp_path, size=(120, 30)) as pilot:
        assert isinstance(pilot.app.screen, NoticeScreen)
        text = shown(pilot.app)
        assert "2 memory documents" in text and "press m" in text, text
        await pilot.press("m")
        from memtui.ui.screens.memory import MemoryScreen

        assert isinstance(pilot.app.screen, MemoryScreen)


async def test_an_empty_folder_suggests_the_demo(tmp_path: Path, open_app, shown) -> None:
    async with open_app(tmp_path, size=(120, 30)) as pilot:
        text = shown(pilot.app)
        assert "memtui demo" in text and "memory documents" not in text


def _damage_the_checkpoint_table(root: Path) -> None:
    """Overwrite the pages of the checkpoint table and its indexes (the sessions still read)."""
    import sqlite3

    db = root / ".agent" / "agent.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [row[0] for row in conn.execute(
            "SELECT pageno FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'checkpoint')")]
    assert pages
    with open(db, "r+b") as f:
        for page in pages:
            f.seek((page - 1) * size)
            f.write(b"\xff" * size)


async def test_a_damaged_database_leaves_no_header_saying_opening(demo_copy: Path, open_app, shown) -> None:
    _damage_the_checkpoint_table(demo_copy)
    async with open_app(demo_copy, size=(120, 36)) as pilot:
        header = shown(pilot.app).splitlines()[0]
        assert "opening…" not in header and "~/demo" in header, header
        assert any("Failed: measure the workspace" in str(n.title) for n in notifications(pilot.app))


CLEARING = f"{HOSTILE} \x1b[2J"
"""Hostile text ending in ESC [2J, which clears the terminal it reaches."""


async def test_a_jsonl_memory_document_shows_hostile_text_literally(tmp_path: Path, open_memory, shown) -> None:
    """HISTORY.jsonl's table drew record text as markup and passed ESC [2J to the terminal,
    which cleared the screen."""
    import json

    from textual.widgets import DataTable

    record = {"cursor": 1, "content": CLEARING, "[b]key[/b]\x1b[31m": "v"}
    (tmp_path / "HISTORY.jsonl").write_text(json.dumps(record) + "\n")
    async with open_memory(tmp_path, select="HISTORY.jsonl") as pilot:
        table = pilot.app.screen.query_one("#jsonl-records", DataTable)
        assert table.row_count == 1
        lines = drawn(table)
        text = "\n".join(t for t, _ in lines)
        assert "[bold red]HX[/]" in text and "␛[31mred" in text and "[b]key[/b]␛[31m" in text, text
        assert_no_raw(text)
        assert_unstyled(lines)  # no markup became a style
        assert_no_raw(shown(pilot.app))


async def test_a_markdown_memory_document_shows_escapes_and_bidi_literally(tmp_path: Path, open_memory, shown) -> None:
    """The rendered markdown turned `ESC[31m` into red text and passed a bidi override through."""
    (tmp_path / "MEMORY.md").write_text(f"# Memory {CLEARING}\n\n- note {CLEARING}\n")
    async with open_memory(tmp_path, select="MEMORY.md") as pilot:
        text = shown(pilot.app)
        assert "note [bold red]HX[/]" in text and "␛[31mred␛[0m �evil�" in text and "bell␇ ␛[2J" in text, text
        assert_no_raw(text)


async def test_the_source_view_shows_escapes_and_editing_such_a_file_is_left_to_editor(
        tmp_path: Path, open_memory, shown) -> None:
    """The source view (v) passed ESC[2J to the terminal, which cleared the screen; the in-app
    editor would too, so a file holding control characters is edited in $EDITOR only."""
    original = f"# Memory\r\n- note {CLEARING}\r\n".encode()
    (tmp_path / "MEMORY.md").write_bytes(original)
    async with open_memory(tmp_path, select="MEMORY.md") as pilot:
        await pilot.press("v")
        await pilot.pause()
        text = shown(pilot.app)
        assert f"- note {SHOWN} ␛[2J" in text, text
        assert_no_raw(text)
        assert "␍" not in text  # CRLF read as a line break, not shown as a CR
        await pilot.press("e")
        await pilot.pause()
        assert not pilot.app.screen.editing
        assert any("control characters" in str(n.message) for n in notifications(pilot.app))
    assert (tmp_path / "MEMORY.md").read_bytes() == original


async def test_memory_items_are_counted_in_english(tmp_path: Path, open_app) -> None:
    from memtui.ui.screens.memory_items import MemoryItemsScreen

    store = copy_fixture("jsonl_store", tmp_path / "jsonl")
    async with open_app(store, size=(120, 30)) as pilot:
        await pilot.press("i")
        from pilot_support import settle

        await settle(pilot)
        assert isinstance(pilot.app.screen, MemoryItemsScreen)
        assert str(pilot.app.screen.query_one("#items-pane").border_subtitle) == "3 history entries"
