"""Pane: a titled, zoomable region of the main screen."""

from __future__ import annotations

from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

from memtui.ui.text import one_line


class Pane(Vertical):
    """A titled, zoomable region of the main screen."""

    ALLOW_MAXIMIZE = True

    def __init__(self, *children: Widget, title: str, id: str) -> None:
        super().__init__(*children, id=id, classes="pane")
        self.label = title
        """The pane's name ("Steps"); the border title adds what it shows."""
        self.unfiltered_subtitle = ""
        """The count shown before a filter replaced it with "3 of 11"."""
        self.show_title()

    def show_title(self, detail: object | None = None) -> None:
        """"Steps · <detail>": the detail comes from the store, so it is never markup."""
        text = self.label if detail is None else f"{self.label} · {one_line(detail, 70)}"
        self.border_title = Content(text)


def pane_name(widget: Widget | None) -> str | None:
    """The name of the pane `widget` is in ("sessions", "steps", "diff" …), or None."""
    pane = next((a for a in (widget.ancestors_with_self if widget else []) if isinstance(a, Pane)), None)
    return pane.id.removesuffix("-pane") if pane is not None and pane.id else None


def toggle_zoom(screen: Screen) -> None:
    """Give the pane of the focused widget the whole screen; again: back to all panes."""
    if screen.maximized is not None:
        screen.minimize()
        return
    pane = next((a for a in (screen.focused.ancestors_with_self if screen.focused else [])
                 if isinstance(a, Pane)), None)
    if pane is not None:
        screen.maximize(pane, container=False)
