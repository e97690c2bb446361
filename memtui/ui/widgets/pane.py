"""Pane: a titled, zoomable region of the main screen."""

from __future__ import annotations

from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget

from memtui.ui.text import one_line


class Pane(Vertical):
    """A titled, zoomable region of the main screen."""

    ALLOW_MAXIMIZE = True

    def __init__(self, *children: Widget, title: str, id: str) -> None:
        super().__init__(*children, id=id, classes="pane")
        self.label = title
        """The pane's name ("Steps"); the border title adds what it shows."""
        self.show_title()

    def show_title(self, detail: object | None = None) -> None:
        """"Steps · <detail>": the detail comes from the store, so it is never markup."""
        text = self.label if detail is None else f"{self.label} · {one_line(detail, 70)}"
        self.border_title = Content(text)
