"""Pane: a titled, zoomable region of the main screen."""

from __future__ import annotations

from typing import Callable

from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

from memtui.ui.text import one_line

LOADING_AFTER = 0.1
"""Seconds a pane shows what it showed before while its load is under way, before it says
"loading…" (memtui.ui.widgets.pane.Pane.pending)."""

_SUBTITLE = Widget.__dict__["border_subtitle"]
_UNSET = object()


class Pane(Vertical):
    """A titled, zoomable region of the main screen."""

    ALLOW_MAXIMIZE = True
    waiting_for: object | None = None
    """What the pane's load under way is for (`pending`), until its title shows it."""

    def __init__(self, *children: Widget, title: str, id: str) -> None:
        super().__init__(*children, id=id, classes="pane")
        self.label = title
        """The pane's name ("Steps"); the border title adds what it shows."""
        self.unfiltered_subtitle = ""
        """The count shown before a filter replaced it with "3 of 11"."""
        self._title_text: str | None = None  # the text of the title shown (show_title)
        self._detail: object | None = None
        self.filter_chip = ""
        """The filter set on the pane's list ("" for none), shown in the title as long as it holds."""
        self.show_title()

    def show_title(self, detail: object | None = None) -> None:
        """"Steps · <detail>": the detail comes from the store, so it is never markup."""
        self.waiting_for = None
        self._detail = detail
        text = self.label if detail is None else f"{self.label} · {one_line(detail, 70)}"
        if self.filter_chip:
            text += f" · filter “{one_line(self.filter_chip, 24)}”"
        if self._title_text != text:  # (comparing two Contents costs more)
            self._title_text = text
            self.border_title = Content(text)

    def show_filter(self, text: str) -> None:
        """Name the filter set on the pane's list in its title ("" removes it): a filter whose
        box is closed stays visible."""
        if text != self.filter_chip:
            self.filter_chip = text
            self.show_title(self._detail)

    def pending(self, detail: object, waiting: Callable[[], bool]) -> None:
        """A load for `detail` began: if `waiting()` still says so after LOADING_AFTER, the
        title names it and the pane says "loading…". A quick load (most) sets the title with what
        it shows: its pane is drawn once, not a frame with the title alone and one with the rest."""
        self.waiting_for = detail

        def still_waiting() -> None:
            if waiting():
                self.show_title(detail)
                self.border_subtitle = "loading…"

        self.set_timer(LOADING_AFTER, still_waiting)

    def failed(self, reason: str | None = None) -> None:
        """The pane's load failed: the title names what it was for, the subtitle says why (the
        reason as written: an OS or SQLite message may name a path with `[`, never markup)."""
        if self.waiting_for is not None:
            self.show_title(self.waiting_for)
        self.border_subtitle = Content("unreadable" if reason is None else f"unreadable: {one_line(reason, 120)}")

    # Setting a border title or subtitle repaints the whole pane (every line of its border and
    # background), and the panes set theirs at each cursor move, often to what they already show:
    # the same value again is not set (a pane skips that repaint). The title is set by
    # show_title alone, which compares its text; a subtitle is set from many places, compared here.
    @property
    def border_subtitle(self) -> str | None:
        return _SUBTITLE.__get__(self, type(self))

    @border_subtitle.setter
    def border_subtitle(self, value: object) -> None:
        if self.__dict__.get("_subtitle_given", _UNSET) != value:
            self.__dict__["_subtitle_given"] = value
            _SUBTITLE.__set__(self, value)


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


def focus_now(widget: Widget) -> None:
    """Focus `widget`, or the first widget in it that takes the focus, at once: Widget.focus
    waits for the messages already queued, so a key typed right after ("2p") would still
    go to the pane focused before."""
    screen = widget.screen
    target = next((w for w in screen.focus_chain if w is widget or widget in w.ancestors), None)
    screen.set_focus(target) if target is not None else widget.focus()
