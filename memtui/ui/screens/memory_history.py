"""Kept versions of one memory document: undo memtui's last save, or list the versions
(Enter restores the highlighted one). The memory screen's `u` and `h` call `undo_save` and
`offer_versions`; a file outside the workspace (one an agent loads at start) is handled the
same way, its history kept in the workspace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static, TextArea

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.errors import MemtuiError
from memtui.core.memory.save import HistoryEntry, list_history, restore_version, undo_last_save
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiModal

if TYPE_CHECKING:
    from memtui.ui.screens.memory import MemoryScreen

REASONS = {
    "save": "replaced by a save",
    "restore": "replaced by a restore",
    "undo": "replaced by an undo",
    "discarded": "edit not saved",
}


class HistoryScreen(MemtuiModal[int | None]):
    """A table of versions (newest first) with a preview; dismisses with the version
    number to restore, or None."""

    COMMAND_SCOPE = "history"
    BINDINGS = bindings("history")

    def __init__(self, name: str, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.doc_name = name
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog"):
            yield Static(f"History of {self.doc_name} — {len(self.entries)} kept version(s)",
                         id="history-title", markup=False)
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

    def _preview(self, entry: HistoryEntry) -> None:
        text = entry.read().decode("utf-8", "replace")
        self.query_one("#history-preview", TextArea).load_text(text)

    def action_restore(self) -> None:
        """Restore the highlighted version (the current one is kept in the history)."""
        table = self.query_one(DataTable)
        if not self.entries:
            self.dismiss(None)
            return
        self.dismiss(self.entries[table.cursor_row].number)


def _write_and_reload(screen: "MemoryScreen", write: Callable[[], object], done: str) -> None:
    """Run one write over the screen's document; on success say `done` and reload it."""
    try:
        write()
    except (MemtuiError, OSError) as exc:
        screen.app.notify_error(exc)
        return
    screen.notify(done, markup=False)
    screen.opened = None
    screen.refresh_data()


def undo_save(screen: "MemoryScreen") -> None:
    """Put back the version memtui's last save of the screen's document replaced."""
    if screen.current is None or screen.opened is None:
        return
    name, version = screen.current, screen.opened.version
    _write_and_reload(screen, lambda: undo_last_save(screen.workspace, screen.workspace / name, version,
                                                     screen.loaded.grants),
                      f"Undid the last save of {name} (u again redoes it).")


def offer_versions(screen: "MemoryScreen") -> None:
    """List the kept versions of the screen's document; restore the chosen one."""
    if screen.current is None or screen.opened is None:
        return
    path, grants = screen.workspace / screen.current, screen.loaded.grants
    entries = list_history(screen.workspace, path, grants)
    if not entries:
        screen.notify(f"No kept versions of {screen.current} yet: memtui keeps one at every save.", markup=False)
        return
    expected, name = screen.opened.version, screen.current

    def restore(number: int | None) -> None:
        if number is None:
            return
        _write_and_reload(screen, lambda: restore_version(screen.workspace, path, number, expected, grants),
                          f"Restored version {number} of {name}.")

    screen.app.push_screen(HistoryScreen(name, entries), restore)
