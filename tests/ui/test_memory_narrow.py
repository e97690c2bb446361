"""The memory screen in an 80-column terminal: the document keeps most of its pane, and the
history dialog fits the screen. At 80 columns the markdown view's table of contents took
the width of its longest heading (30 columns of 46), leaving the document ~10 columns
("• src/tiny / http/rou / ter.py"); the history dialog was 100 columns wide."""

from __future__ import annotations

from textual.widgets import Markdown, MarkdownViewer

from pilot_support import settle

SMALL = (80, 24)


async def test_at_80_columns_the_document_keeps_most_of_the_markdown_view(demo_path, open_memory):
    async with open_memory(demo_path, select="PROJECT_MEMORY.md", size=SMALL) as pilot:
        await settle(pilot)
        viewer = pilot.app.screen.query_one(MarkdownViewer)
        assert viewer.show_table_of_contents
        document = viewer.query_one(Markdown)
        assert document.size.width >= viewer.size.width * 0.55, (document.size.width, viewer.size.width)


async def test_at_80_columns_the_history_dialog_fits_the_screen(demo_copy, open_memory):
    from memtui.core.memory import read_document, save_document

    path = demo_copy / "PROJECT_MEMORY.md"
    save_document(demo_copy, path, path.read_text() + "- one more\n", read_document(path).version)
    async with open_memory(demo_copy, select="PROJECT_MEMORY.md", size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        dialog = pilot.app.screen.query_one("#history-dialog")
        assert dialog.outer_size.width <= 80 and dialog.region.bottom <= 24, (dialog.outer_size, dialog.region)


async def test_with_no_document_the_keys_of_one_are_not_offered(tmp_path, open_memory, shown):
    """A folder without memory documents: the footer offered h History, v Source and t; v
    switched to an empty source view (a blank editor with a line number 1)."""
    from textual.widgets import ContentSwitcher

    (tmp_path / "empty").mkdir()
    async with open_memory(tmp_path / "empty", size=(100, 24)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        footer = shown(pilot.app).splitlines()[-1]
        assert "History" not in footer and "Source" not in footer, footer
        await pilot.press("v", "h", "t")
        await settle(pilot)
        assert screen.query_one("#memory-switcher", ContentSwitcher).current == "memory-markdown"
        assert screen is pilot.app.screen  # no history dialog
        assert "No memory documents" in shown(pilot.app)


async def test_at_80x24_the_history_preview_shows_the_version(demo_copy, open_memory, shown):
    """The versions table took 10 rows whatever their number, leaving the preview a border
    and no line of the kept version; and the title read "1 kept version(s)"."""
    from textual.widgets import TextArea

    from memtui.core.memory import read_document, save_document

    path = demo_copy / "PROJECT_MEMORY.md"
    before = path.read_text()
    save_document(demo_copy, path, before + "- one more\n", read_document(path).version)
    async with open_memory(demo_copy, select="PROJECT_MEMORY.md", size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        preview = pilot.app.screen.query_one("#history-preview", TextArea)
        assert preview.scrollable_content_region.height >= 6, preview.region
        text = shown(pilot.app)
        assert before.splitlines()[0] in text, text
        assert "1 kept version " in text and "(s)" not in text, text
