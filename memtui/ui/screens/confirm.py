"""The one yes/no dialog: a question, what exactly would happen, and two buttons.

`ConfirmScreen(title, body, yes="Collect")` dismisses with True (y, or the yes button) or
False (n, escape, or the other button). The focus starts on "no": enter alone never
destroys anything. `body` is untrusted-safe: a string is shown literally, a `Text` as built.
With `typed="delete"` (what cannot be undone), the answer is yes only once that word is
typed into the field under the body: y and the yes button do nothing before.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Static

from memtui.ui.commands import bindings
from memtui.ui.screens.base import MemtuiModal
from memtui.ui.text import safe_text
from memtui.resources import screen_css


class ConfirmScreen(MemtuiModal[bool]):
    """A yes/no question over the current screen (y / n / escape)."""

    CSS_PATH = screen_css("confirm.tcss")

    COMMAND_SCOPE = "confirm"
    ASKS = True
    BINDINGS = bindings("confirm")

    def __init__(self, title: str, body: str | Text, yes: str = "Yes", no: str = "No", note: str = "",
                 typed: str = "") -> None:
        """`yes`/`no`: the buttons' words ("Collect", "Keep"); `note`: a quieter last line;
        `typed`: a word the user must type to answer yes."""
        super().__init__(classes="confirm")
        self.title_text, self.body, self.yes, self.no, self.note = title, body, yes, no, note
        self.typed = typed

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(safe_text(self.title_text), id="confirm-title")
            body = self.body if isinstance(self.body, Text) else safe_text(self.body, multiline=True)
            with VerticalScroll(id="confirm-scroll"):
                yield Static(body, id="confirm-body")
            if self.note:
                yield Static(safe_text(self.note, multiline=True), id="confirm-note")
            if self.typed:
                yield Input(placeholder=f"type {self.typed} to confirm", id="confirm-typed")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (y)" if not self.typed else self.yes, variant="error", id="confirm-yes",
                             disabled=bool(self.typed))
                yield Button(f"{self.no} (n)", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-typed" if self.typed else "#confirm-no").focus()

    @on(Input.Changed, "#confirm-typed")
    def _typed_changed(self, event: Input.Changed) -> None:
        self.query_one("#confirm-yes", Button).disabled = event.value != self.typed

    @on(Input.Submitted, "#confirm-typed")
    def _typed_submitted(self, event: Input.Submitted) -> None:
        if event.value == self.typed:
            self.dismiss(True)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, value: bool) -> None:
        """Answer yes (True) or no (False); yes needs the typed word when one is asked for."""
        if value and self.typed and self.query_one("#confirm-typed", Input).value != self.typed:
            return
        self.dismiss(value)
