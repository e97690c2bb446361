"""A full-screen message instead of a traceback: missing workspace, unreadable DB, empty store."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.widgets import Static

from memtui.ui.widgets.key_footer import KeyFooter
from memtui.ui.commands import bindings
from memtui.ui.text import safe_text
from memtui.ui.screens.base import MemtuiScreen


class NoticeScreen(MemtuiScreen[None]):
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
        yield KeyFooter()


def no_sessions(workspace: object) -> NoticeScreen:
    """The notice for a store no agent has recorded anything in yet."""
    return NoticeScreen("This workspace has no sessions yet",
                        f"{workspace}: the store is there, but no agent has recorded anything in it.",
                        "See what memtui shows with a demo workspace:  memtui demo")
