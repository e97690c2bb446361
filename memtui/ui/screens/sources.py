"""The source switcher: every store found at or for the opened path, one of them shown.

A workspace can hold memtui's own store and the memory of other agents (RA.Aid, a JSONL
session store, Claude Code and Codex transcripts of the project). Discovery and counting
read whole transcripts, so both run in a thread worker; choosing a row dismisses the
screen with that `Source`, which the app then opens (in a worker too) and shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from memtui.ui.commands import bindings
from memtui.ui.labels import folder_label, shown_path
from memtui.ui.opening import every_agent_of
from memtui.ui.screens.base import MemtuiModal
from memtui.ui.text import safe_text
from memtui.ui.widgets.sources_table import SourceRow, SourcesTable
from memtui.resources import screen_css

__all__ = ["SourceRow", "SourcesScreen"]

SHOWN_PROBLEMS = 5
"""Problems of the highlighted store listed under the table (`memtui sources` lists all)."""


class SourcesScreen(MemtuiModal[Any]):
    """Pick the store the panes show; dismisses with a `memtui.core.sources.Source` or None."""

    CSS_PATH = screen_css("sources.tcss")

    COMMAND_SCOPE = "sources"
    BINDINGS = bindings("sources")

    @dataclass
    class Discovered(Message):
        """The discovery worker's answer (`error` set when it failed)."""

        rows: list[SourceRow]
        error: str | None = None

    def __init__(self, path: Path, current: tuple[str, str] | None = None) -> None:
        """`path`: what the user opened; `current`: (kind, path) of the source shown now."""
        super().__init__()
        self.path = Path(path)
        self.current = current
        self.rows: list[SourceRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="sources"):
            yield Static(Text("Sources"), id="sources-title")
            yield Static(safe_text(f"Stores found at or for {folder_label(self.path)}"), id="sources-path")
            yield SourcesTable(self.path, self.current, id="sources-table")
            yield Static(id="sources-problems")
            yield Static(Text("enter shows a source · escape keeps the current one"), id="sources-keys")

    def on_mount(self) -> None:
        table = self.query_one(SourcesTable)
        table.loading = True
        table.focus()
        self.discover_sources()

    @work(thread=True, exclusive=True, group="discover", exit_on_error=False, description="find the sources")
    def discover_sources(self) -> None:
        from memtui.core.errors import MemtuiError
        from memtui.core.discovery import discover

        worker = get_current_worker()
        try:
            found = discover(self.path)
        except MemtuiError as exc:
            self.post_message(self.Discovered([], str(exc)))
            return
        rows = []
        for source in found:
            if worker.is_cancelled:
                return
            try:
                counts, found_problems = source.counts(), source.problems()
                rows.append(SourceRow(source, counts, len(found_problems), self._notes(found_problems)))
            except MemtuiError as exc:
                rows.append(SourceRow(source, {}, 1, (str(exc),)))
                self.app.call_from_thread(self.app.notify_error, exc, "Cannot read a source")
        every = every_agent_of(self.path, [s for s in found if s.kind != "memory-files"])
        if every is not None:  # `memtui ~` opened every agent's sessions: offered again, first
            rows.insert(0, self._every_agent_row(every, rows))
        self.post_message(self.Discovered(rows))

    @staticmethod
    def _every_agent_row(every: Any, rows: list[SourceRow]) -> SourceRow:
        """The merged list's row: its sessions, the sum of the stores' (their other counts name
        different things — one agent's tasks are another's prompts — so they are not added up)."""
        sessions = sum(row.counts.get("sessions", 0) for row in rows)
        notes = tuple(note for row in rows for note in row.notes)[:SHOWN_PROBLEMS]
        return SourceRow(every, {"sessions": sessions}, sum(row.problems for row in rows), notes)

    @on(Discovered)
    def _discovered(self, event: Discovered) -> None:
        table = self.query_one(SourcesTable)
        table.loading = False
        self.rows = event.rows
        if event.error:
            self.query_one("#sources-path", Static).update(safe_text(event.error))
        if not event.rows:
            self.query_one("#sources-keys", Static).update(Text("No agent stores found here. escape goes back."))
        table.set_records(event.rows)
        here = next((table.row_key(row) for row in event.rows if table.is_current(row)), None)
        if here is not None:
            table.select_key(here)

    def _notes(self, problems: list) -> tuple[str, ...]:
        """The first SHOWN_PROBLEMS problems as "file:line: message" (the file relative to the
        opened path when it lies inside it), then how many more `memtui sources` lists."""
        lines = []
        for problem in problems[:SHOWN_PROBLEMS]:
            name = shown_path(Path(problem.file), self.path)
            lines.append(f"{name}{f':{problem.line}' if problem.line is not None else ''}: {problem.message}")
        if len(problems) > SHOWN_PROBLEMS:
            lines.append(f"… and {len(problems) - SHOWN_PROBLEMS:,} more (memtui sources {self.path} lists every one)")
        return tuple(lines)

    @on(DataTable.RowHighlighted, "#sources-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Under the table: what the highlighted store's Problems count stands for."""
        row = self.query_one(SourcesTable).current_record()
        box = self.query_one("#sources-problems", Static)
        box.display = bool(row is not None and row.notes)
        if row is not None and row.notes:
            box.update(safe_text("Skipped while reading it:\n" + "\n".join(row.notes), multiline=True))

    @on(DataTable.RowSelected, "#sources-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        row = self.query_one(SourcesTable).current_record()
        if row is None:
            return
        if row.source.kind == "memory-files":  # documents, not sessions: the memory pane shows them
            self.dismiss(None)
            self.app.action_memory()
            return
        self.dismiss(row.source)

    def action_close(self) -> None:
        """Keep the current source."""
        self.dismiss(None)
