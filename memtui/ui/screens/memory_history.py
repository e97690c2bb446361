"""The kept versions of one memory document, newest first, with a preview of the highlighted
one: the memory screen's `h` (Enter restores the highlighted version). A file outside the
workspace (one an agent loads at start) has its history kept in the workspace too.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static, TextArea
from textual.worker import get_current_worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.display import counted, shown_lines
from memtui.core.memory.save import HistoryEntry
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiModal
from memtui.ui.text import safe_text
from memtui.resources import screen_css

REASONS = {
    "save": "replaced by a save",
    "restore": "replaced by a restore",
    "undo": "replaced by an undo",
    "discarded": "edit not saved",
}


class HistoryScreen(MemtuiModal[int | None]):
    """A table of versions (newest first) with a preview; dismisses with the version
    number to restore, or None."""

    CSS_PATH = screen_css("memory.tcss")

    COMMAND_SCOPE = "history"
    BINDINGS = bindings("history")

    def __init__(self, name: str, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.doc_name = name
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog"):
            yield Static(safe_text(f"History of {self.doc_name} — {counted(len(self.entries), 'kept version')}"),
                         id="history-title")
            yield DataTable(id="history-table", cursor_type="row")
            yield TextArea(id="history-preview", read_only=True, soft_wrap=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "when (UTC)", "what", "size")
        for entry in self.entries:
            table.add_row(str(entry.number), f"{entry.saved_at:%Y-%m-%d %H:%M:%S}",
                          REASONS.get(entry.reason, entry.reason), f"{entry.size} B", key=str(entry.number))
        table.focus()
        if self.entries:
            self._preview(self.entries[0])

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._preview(self.entries[int(event.row_key.value) - 1])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_restore()

    @work(thread=True, exclusive=True, group="history-preview", exit_on_error=False,
          description="read a kept version")
    def _preview(self, entry: HistoryEntry) -> None:
        text = shown_lines(entry.read().decode("utf-8", "replace"))  # a kept version may hold an ESC
        if not get_current_worker().is_cancelled:  # a later highlight asked for another one
            self.app.call_from_thread(self.query_one("#history-preview", TextArea).load_text, text)

    def action_restore(self) -> None:
        """Restore the highlighted version (the current one is kept in the history)."""
        table = self.query_one(DataTable)
        if not self.entries:
            self.dismiss(None)
            return
        self.dismiss(self.entries[table.cursor_row].number)
