"""A full-screen message instead of a traceback: missing workspace, unreadable DB, empty store."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from memtui.ui.commands import bindings
from memtui.ui.text import safe_text


class NoticeScreen(Screen[None]):
    """A title, what happened (literal text), and what to do about it."""

    COMMAND_SCOPE = "notice"
    BINDINGS = bindings("notice")

    def __init__(self, title: str, message: str, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Center():
            with Vertical(id="notice"):
                yield Static(safe_text(self.title_text), id="notice-title")
                yield Static(safe_text(self.message, multiline=True), id="notice-message")
                if self.hint:
                    yield Static(safe_text(self.hint), id="notice-hint")
                yield Static(Text("Press q to quit."), id="notice-keys")
        yield Footer()
