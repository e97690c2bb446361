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
