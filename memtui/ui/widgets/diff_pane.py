"""The diff pane of the main screen: the selected file of a checkpoint.

It hosts memtui's `DiffView` (memtui/ui/widgets/diff_view.py) and owns the states around
it: nothing selected, reading, errors. The diff is prepared in the main screen's worker
thread (`DiffPane.prepare`) and installed here on the UI thread. Where the DiffView is not
available (an older checkout) a plain unified diff is shown instead — still literal text.
"""

from __future__ import annotations

import difflib
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Static

from memtui.core.model import EntryInfo
from memtui.ui.text import safe_text

try:
    from memtui.core.diff import prepare_file_diff
    from memtui.ui.widgets.diff_view import DiffView
except ImportError:  # the diff widget lands on its own branch
    DiffView = None  # type: ignore[assignment,misc]
    prepare_file_diff = None  # type: ignore[assignment]

MODES = ("diff", "after", "before")


class DiffPane(Vertical):
    """The diff (or a whole file before/after) of one checkpoint entry, or a message."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entry: EntryInfo | None = None
        """The entry shown (or being read); None while a message is shown."""
        self._fallback: tuple[bytes | None, bytes | None] = (None, None)
        self._mode = "diff"

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="diff-message"):
            with VerticalScroll(id="diff-message"):
                yield Static(Text("No file selected."), id="diff-message-text")
            if DiffView is not None:
                yield DiffView(id="diff-view")
            else:
                with VerticalScroll(id="diff-view", can_focus=True):
                    yield Static("", id="diff-fallback")

    @property
    def view(self) -> Any:
        """The DiffView (or the fallback scroller)."""
        return self.query_one("#diff-view")

    def focus(self, scroll_visible: bool = True) -> "DiffPane":
        """Focusing the pane focuses the diff when one is shown."""
        switcher = self.query_one(ContentSwitcher)
        target = self.view if switcher.current == "diff-view" else self.query_one("#diff-message")
        target.focus(scroll_visible)
        return self

    # ------------------------------------------------------------------ worker side
    @staticmethod
    def prepare(path: str, before: bytes | None, after: bytes | None) -> Any:
        """The diff model for `install`, computed in the worker thread (pure)."""
        if prepare_file_diff is None:
            return None
        return prepare_file_diff(path, before, after)

    # ------------------------------------------------------------------ states
    def show_message(self, text: Text) -> None:
        """Replace the diff with a one-line explanation."""
        self.entry = None
        self.query_one("#diff-message-text", Static).update(text)
        self.query_one(ContentSwitcher).current = "diff-message"

    def begin(self, entry: EntryInfo) -> None:
        """An entry was chosen: say so until its contents arrive."""
        self.entry = entry
        self.query_one("#diff-message-text", Static).update(Text("Reading…"))
        self.query_one(ContentSwitcher).current = "diff-message"

    def show_content(self, entry: EntryInfo, before: bytes | None, after: bytes | None, prepared: Any) -> None:
        """Install the prepared diff of `entry`."""
        self.entry = entry
        switcher = self.query_one(ContentSwitcher)
        had_focus = self.has_focus_within
        if DiffView is not None and prepared is not None:
            self.view.install(prepared)
        else:
            self._fallback = (before, after)
            self._render_fallback()
        switcher.current = "diff-view"
        if had_focus:
            self.view.focus()

    # ------------------------------------------------------------------ actions
    def _ready(self) -> bool:
        if self.entry is None or self.query_one(ContentSwitcher).current != "diff-view":
            self.app.bell()
            return False
        return True

    def toggle_split(self) -> None:
        """Unified ⇄ side by side."""
        if self._ready() and DiffView is not None:
            self.view.split = not self.view.split

    def next_hunk(self) -> None:
        if self._ready():
            if DiffView is not None:
                if not self.view.next_hunk():
                    self.app.bell()
            else:
                self.view.scroll_page_down()

    def previous_hunk(self) -> None:
        if self._ready():
            if DiffView is not None:
                if not self.view.previous_hunk():
                    self.app.bell()
            else:
                self.view.scroll_page_up()

    def cycle_mode(self) -> None:
        """diff → whole file after → whole file before → diff."""
        if not self._ready():
            return
        if DiffView is not None:
            self.view.mode = MODES[(MODES.index(self.view.mode) + 1) % len(MODES)]
        else:
            self._mode = MODES[(MODES.index(self._mode) + 1) % len(MODES)]
            self._render_fallback()

    @property
    def mode(self) -> str:
        """"diff", "after" or "before"."""
        return self.view.mode if DiffView is not None else self._mode

    def describe(self) -> str:
        """"unified · hunk 1/3", "side by side", "whole file after" … for the pane's subtitle."""
        if self.entry is None or self.query_one(ContentSwitcher).current != "diff-view":
            return ""
        if self.mode != "diff":
            return f"whole file {self.mode}"
        layout = "side by side" if self.split else "unified"
        if DiffView is None or self.view.diff is None or self.view.diff.binary:
            return layout
        at, count = self.view.hunk_position()
        return f"{layout} · hunk {max(at, 1)}/{count}" if count else f"{layout} · no changes"

    @property
    def split(self) -> bool:
        return bool(DiffView is not None and self.view.split)

    def _render_fallback(self) -> None:
        before, after = (None if b is None else b.decode("utf-8", "replace") for b in self._fallback)
        body = self.query_one("#diff-fallback", Static)
        if self._mode != "diff":
            text = before if self._mode == "before" else after
            body.update(safe_text(text if text is not None else f"(no {self._mode} side)", multiline=True))
            return
        lines = Text(no_wrap=True, end="")
        for line in difflib.unified_diff((before or "").splitlines(), (after or "").splitlines(), lineterm=""):
            lines.append_text(safe_text(line))
            lines.append("\n")
        body.update(lines)
