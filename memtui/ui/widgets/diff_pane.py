"""The diff pane of the main screen: the selected file of a checkpoint.

It hosts memtui's `DiffView` (memtui/ui/widgets/diff_view.py) and owns the states around
it: nothing selected, reading, errors. The diff is prepared in the main screen's worker
thread (`DiffPane.prepare`) and installed here on the UI thread. A change whose before or
after the store did not keep (another agent's store) is explained instead (`show_partial`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Static

from memtui.core.model import EntryInfo
from memtui.ui.text import sanitize
from memtui.ui.widgets.diff_syntax import lexer_for
from memtui.ui.widgets.diff_view import DiffView

if TYPE_CHECKING:  # the diff engine is imported by the first diff shown, not before the first frame
    from memtui.core.diff import FileDiff

MODES = ("diff", "after", "before")


class DiffPane(Vertical):
    """The diff (or a whole file before/after) of one checkpoint entry, or a message."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._entry: EntryInfo | None = None
        self._shown_message: Text | None = None

    @property
    def entry(self) -> EntryInfo | None:
        """The entry shown (or being read); None while a message is shown."""
        return self._entry

    @entry.setter
    def entry(self, entry: EntryInfo | None) -> None:
        shown = self._entry is not None
        self._entry = entry
        if shown != (entry is not None) and self.is_mounted:
            self.screen.refresh_bindings()  # the diff's keys are offered while there is a diff

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="diff-message"):
            with VerticalScroll(id="diff-message"):
                yield Static(Text("No file selected."), id="diff-message-text")
            yield DiffView(id="diff-view")

    @property
    def view(self) -> DiffView:
        """The diff widget."""
        return self.query_one("#diff-view", DiffView)

    def focus(self, scroll_visible: bool = True) -> "DiffPane":
        """Focusing the pane focuses the diff when one is shown."""
        switcher = self.query_one(ContentSwitcher)
        target = self.view if switcher.current == "diff-view" else self.query_one("#diff-message")
        target.focus(scroll_visible)
        return self

    # ------------------------------------------------------------------ worker side
    @staticmethod
    def prepare(path: str, before: bytes | None, after: bytes | None) -> FileDiff:
        """The diff model for `show_content`, computed in the worker thread (pure). The file's
        lexer is looked up here too: the first lookup scans pygments' lexer table and compiles
        the lexer's rules (up to a second), which must not happen on the screen's thread."""
        from memtui.core.diff import prepare_file_diff

        diff = prepare_file_diff(path, before, after)
        if not diff.binary:
            lexer_for(path)
            import textual.highlight  # noqa: F401  (pygments' token styles, for the view's first draw)
        return diff

    # ------------------------------------------------------------------ states
    def show_message(self, text: Text) -> None:
        """Replace the diff with a one-line explanation."""
        self.entry = None
        self._message(text)

    def _message(self, text: Text) -> None:
        # Updating a Static lays the screen out again: skip it when the text is already shown
        # (stepping through steps that changed no files says the same thing each time).
        switcher = self.query_one(ContentSwitcher)
        if switcher.current != "diff-message" or self._shown_message != text:
            self._shown_message = text
            self.query_one("#diff-message-text", Static).update(text)
            switcher.current = "diff-message"

    def begin(self, entry: EntryInfo) -> None:
        """An entry was chosen: say so until its contents arrive."""
        self.entry = entry
        self._message(Text("Reading…"))

    def show_partial(self, entry: EntryInfo) -> bool:
        """For a file change whose before or after the store did not keep (a Codex patch, a
        Claude Code edit without `originalFile`): show why, and the store's own diff, instead
        of a misleading empty diff. Returns whether it did."""
        if entry.before_known and entry.after_known:
            return False
        text = Text()
        text.append("The full contents of this file are not in the store", style="bold")
        if entry.unknown_reason:
            text.append(f": {sanitize(entry.unknown_reason)}")
        text.append(".\nIt cannot be diffed in full or rolled back.")
        if entry.diff:
            text.append("\n\nThe change as the agent recorded it:\n\n", style="bold")
            text.append(sanitize(entry.diff, multiline=True))
        self.show_message(text)
        return True

    def show_content(self, entry: EntryInfo, prepared: FileDiff) -> None:
        """Install the prepared diff of `entry`."""
        self.entry = entry
        switcher = self.query_one(ContentSwitcher)
        had_focus = self.has_focus_within
        self.view.install(prepared)
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
        if self._ready():
            if self.view.mode != "diff":  # from a whole file: back to the diff, side by side
                self.view.mode = "diff"
                self.view.split = True
                return
            self.view.split = not self.view.split

    def next_hunk(self) -> None:
        """Scroll to the next hunk (a bell when there is none below)."""
        if self._ready() and not self.view.next_hunk():
            self.app.bell()

    def previous_hunk(self) -> None:
        """Scroll to the previous hunk (a bell when there is none above)."""
        if self._ready() and not self.view.previous_hunk():
            self.app.bell()

    def cycle_mode(self) -> None:
        """diff → whole file after → whole file before → diff."""
        if not self._ready():
            return
        self.view.mode = MODES[(MODES.index(self.view.mode) + 1) % len(MODES)]

    @property
    def mode(self) -> str:
        """"diff", "after" or "before"."""
        return self.view.mode

    def describe(self) -> str:
        """"unified · hunk 1/3", "side by side", "whole file after" … for the pane's subtitle."""
        if self.entry is None or self.query_one(ContentSwitcher).current != "diff-view":
            return ""
        if self.mode != "diff":
            return f"whole file {self.mode}"
        layout = "side by side" if self.split else "unified"
        if self.view.diff is None or self.view.diff.binary:
            return layout
        at, count = self.view.hunk_position()
        return f"{layout} · hunk {max(at, 1)}/{count}" if count else f"{layout} · no changes"

    @property
    def split(self) -> bool:
        """True when the diff is side by side."""
        return bool(self.view.split)
