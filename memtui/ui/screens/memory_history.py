"""Kept versions of one memory document: undo memtui's last save, or list the versions
(Enter restores the highlighted one). The memory screen's `u` and `h` call `undo_save` and
`offer_versions`; a file outside the workspace (one an agent loads at start) is handled the
same way, its history kept in the workspace.

Every read and write of the history runs in a thread worker of the screen that asked (a
slow or network disk never freezes the screen): a refusal (a conflict, a read-only folder)
is one error line as before, anything else a failed worker, which the screen reports once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static, TextArea
from textual.worker import get_current_worker

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.core.display import shown_lines
from memtui.core.errors import MemtuiError
from memtui.core.memory.save import HistoryEntry, list_history, restore_version, undo_last_save
from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiModal
from memtui.ui.text import safe_text
from memtui.resources import screen_css

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

    CSS_PATH = screen_css("memory.tcss")

    COMMAND_SCOPE = "history"
    BINDINGS = bindings("history")

    def __init__(self, name: str, entries: list[HistoryEntry]) -> None:
        super().__init__()
        self.doc_name = name
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog"):
            yield Static(safe_text(f"History of {self.doc_name} — {len(self.entries)} kept version(s)"),
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


def _in_worker(screen: "MemoryScreen", job: Callable[[], None], what: str) -> None:
    """Run `job` in a thread worker of `screen` (one history job at a time); a refusal the
    user can act on (MemtuiError, OSError) is one error line, anything else fails the worker."""

    def run() -> None:
        try:
            job()
        except (MemtuiError, OSError) as exc:
            screen.app.call_from_thread(screen.app.notify_error, exc)

    screen.run_worker(run, thread=True, exclusive=True, group="memory-history", exit_on_error=False,
                      description=what)


def _write_and_reload(screen: "MemoryScreen", write: Callable[[], object], done: str, what: str) -> None:
    """Run one write over the screen's document in a worker; on success say `done` and
    reload the document."""

    def job() -> None:
        write()
        screen.app.call_from_thread(_reload, screen, done)

    _in_worker(screen, job, what)


def _reload(screen: "MemoryScreen", done: str) -> None:
    screen.notify(done, markup=False)
    screen.opened = None
    screen.refresh_data()


def undo_save(screen: "MemoryScreen") -> None:
    """Put back the version memtui's last save of the screen's document replaced."""
    if screen.current is None or screen.opened is None:
        return
    name, version, grants = screen.current, screen.opened.version, screen.loaded.grants
    _write_and_reload(screen, lambda: undo_last_save(screen.workspace, screen.workspace / name, version, grants),
                      f"Undid the last save of {name} (u again redoes it).", f"undo the last save of {name}")


def offer_versions(screen: "MemoryScreen") -> None:
    """List the kept versions of the screen's document; restore the chosen one."""
    if screen.current is None or screen.opened is None:
        return
    path, grants = screen.workspace / screen.current, screen.loaded.grants
    expected, name = screen.opened.version, screen.current

    def restore(number: int | None) -> None:
        if number is None:
            return
        _write_and_reload(screen, lambda: restore_version(screen.workspace, path, number, expected, grants),
                          f"Restored version {number} of {name}.", f"restore version {number} of {name}")

    def offer(entries: list[HistoryEntry]) -> None:
        if not entries:
            screen.notify(f"No kept versions of {name} yet: memtui keeps one at every save.", markup=False)
        else:
            screen.app.push_screen(HistoryScreen(name, entries), restore)

    def job() -> None:
        entries = list_history(screen.workspace, path, grants)
        screen.app.call_from_thread(offer, entries)

    _in_worker(screen, job, f"list the kept versions of {name}")
