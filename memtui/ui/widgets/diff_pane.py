"""The diff pane of the main screen: the selected file of a checkpoint.

It hosts the diff widget and owns the states around it: nothing selected, loading,
binary content, errors. Until memtui's DiffView is available it shows a plain unified
diff (still safe: every line is a `Text`, nothing is parsed as markup).
"""

from __future__ import annotations

import difflib
import hashlib
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from memtui.core.model import EntryInfo
from memtui.ui.text import human_bytes, safe_text

MODES = ("diff", "after", "before")


class DiffPane(VerticalScroll, can_focus=True):
    """The diff (or whole file before/after) of one checkpoint entry."""

    split: reactive[bool] = reactive(False)
    """Side-by-side instead of unified."""
    mode: reactive[str] = reactive("diff")
    """"diff", or the whole file "before" / "after"."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.entry: EntryInfo | None = None
        self._before: bytes | None = None
        self._after: bytes | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("No file selected."), id="diff-body")

    # ------------------------------------------------------------------ model side (thread)
    @staticmethod
    def prepare(path: str, before: bytes | None, after: bytes | None) -> Any:
        """Work done in the worker thread before the content is shown."""
        return None

    # ------------------------------------------------------------------ states
    def show_message(self, text: Text) -> None:
        self.entry = None
        self.query_one("#diff-body", Static).update(text)

    def begin(self, entry: EntryInfo) -> None:
        self.entry = entry
        self.query_one("#diff-body", Static).update(Text("Reading…"))

    def show_content(self, entry: EntryInfo, before: bytes | None, after: bytes | None, prepared: Any) -> None:
        self.entry, self._before, self._after = entry, before, after
        self._render_body()

    def watch_mode(self) -> None:
        if self.entry is not None:
            self._render_body()

    def _render_body(self) -> None:
        body = self.query_one("#diff-body", Static)
        before = _decode(self._before)
        after = _decode(self._after)
        if (self._before is not None and before is None) or (self._after is not None and after is None):
            body.update(_binary_summary(self._before, self._after))
            return
        if self.mode == "before" or self.mode == "after":
            text = before if self.mode == "before" else after
            if text is None:
                body.update(Text(f"No {self.mode} side: the file was "
                                 f"{'added' if self.mode == 'before' else 'deleted'} here."))
                return
            body.update(safe_text(text, multiline=True))
            return
        lines = Text(no_wrap=True, end="")
        for line in difflib.unified_diff((before or "").splitlines(), (after or "").splitlines(),
                                         lineterm="", n=3):
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else (
                "bold" if line.startswith("@@") else "")
            lines.append_text(safe_text(line, style=style))
            lines.append("\n")
        body.update(lines if lines.plain else Text("The two sides are identical."))

    # ------------------------------------------------------------------ actions
    def toggle_split(self) -> None:
        self.split = not self.split

    def next_hunk(self) -> None:
        self.scroll_page_down()

    def previous_hunk(self) -> None:
        self.scroll_page_up()

    def cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]


def _decode(data: bytes | None) -> str | None:
    if data is None:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _binary_summary(before: bytes | None, after: bytes | None) -> Text:
    parts = []
    for name, data in (("before", before), ("after", after)):
        if data is None:
            parts.append(f"{name}: absent")
        else:
            parts.append(f"{name}: {human_bytes(len(data))}  sha256 {hashlib.sha256(data).hexdigest()[:16]}")
    return Text("Binary or undecodable content — no text diff.\n\n" + "\n".join(parts))
