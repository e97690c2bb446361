"""The `?` screen: every command of the command table, grouped by where it applies."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from memtui.ui.commands import COMMANDS, SCOPES, offered, screen_scopes
from memtui.ui.screens.base import MemtuiModal

NAVIGATION = (
    ("↑ ↓ / k j", "Move in a list"),
    ("tab / shift+tab", "Next / previous pane"),
    ("enter", "Open: session → tasks → steps; step → detail; file → diff"),
    ("space, shift+←", "Fold or unfold a task's sub-agents; go to the parent task"),
    ("pgup pgdn home end", "Scroll"),
)


class HelpScreen(MemtuiModal[None]):
    """Keys and commands (from memtui.ui.commands), the ones of the current screen first."""

    COMMAND_SCOPE = "help"
    BINDINGS = [("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, under: Screen | None = None) -> None:
        super().__init__()
        self.scopes = screen_scopes(under) if under is not None else {"app"}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(Text("memtui — keys and commands"), id="help-title")
            yield Static(self._table(), id="help-table")
            yield Static(Text("Every command is also in the palette (ctrl+p), with the themes. "
                              "escape closes this."), id="help-foot")

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column()
        order = sorted(SCOPES, key=lambda s: (s not in self.scopes, list(SCOPES).index(s)))
        for scope in order:
            rows = [c for c in COMMANDS if c.scope == scope and offered(c, self.app.source)]  # type: ignore[attr-defined]
            if not rows:
                continue
            table.add_row(Text(""), Text(SCOPES[scope], style="bold underline"))
            for command in rows:
                table.add_row(Text(command.shown_key), Text(command.description))
        table.add_row(Text(""), Text("Navigation", style="bold underline"))
        for key, what in NAVIGATION:
            table.add_row(Text(key), Text(what))
        return table
