"""The memory screen in an 80-column terminal: the document keeps most of its pane, and the
history dialog fits the screen. At 80 columns the markdown view's table of contents took
the width of its longest heading (30 columns of 46), leaving the document ~10 columns
("• src/tiny / http/rou / ter.py"); the history dialog was 100 columns wide."""

from __future__ import annotations

from textual.widgets import Markdown, MarkdownViewer

from memtui.ui.screenshots import settle

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
