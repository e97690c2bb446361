"""What a developer meeting memtui for the first time saw on screen: a folder of memory
documents only is no dead end."""

from __future__ import annotations

from pathlib import Path

from memtui.ui.screens.notice import NoticeScreen


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
        assert any("Failed: measure the workspace" in str(n.title) for n in pilot.app._notifications)
