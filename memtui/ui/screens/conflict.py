"""What to do when a memory document changed on disk while it was being edited."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from memtui.core.display import shown_lines
from memtui.core.memory.save import conflict_diff
from memtui.ui.screens.base import MemtuiModal
from memtui.ui.text import safe_text
from memtui.resources import screen_css


class ConflictScreen(MemtuiModal[str]):
    """Offer reload (take the disk version), a diff of disk vs. the edit, or overwrite.

    Dismisses with "reload", "overwrite" or "cancel" (keep editing). Nothing is lost either
    way: overwrite keeps the disk version in history, reload keeps the edit there.
    """

    CSS_PATH = screen_css("memory.tcss")

    BINDINGS = [
        Binding("r", "choose('reload')", "Reload from disk"),
        Binding("d", "toggle_diff", "Diff"),
        Binding("o", "choose('overwrite')", "Overwrite"),
        Binding("escape", "back", "Keep editing"),
    ]

    def __init__(self, name: str, what: str, disk: bytes | None, mine: str) -> None:
        super().__init__()
        self.doc_name = name
        self.what = what
        self.disk = disk
        self.mine = mine

    def compose(self) -> ComposeResult:
        with Vertical(id="conflict-dialog"):
            yield Static(safe_text(f"{self.doc_name} changed on disk"), id="conflict-title")
            yield Static(
                f"{self.what}. Saving now would overwrite that change (probably the agent's).\n"
                "Reload takes the disk version (your edit is kept in the document's history); "
                "Overwrite saves yours (the disk version is kept in history).",
                id="conflict-explain",
                markup=False,
            )
            self.diff = conflict_diff(self.disk, self.mine, self.doc_name) or "(no textual difference)\n"
            with VerticalScroll(id="conflict-diff"):
                yield Static(diff_content(self.diff), id="conflict-diff-text")
            with Horizontal(id="conflict-buttons"):
                yield Button("Reload from disk (r)", id="reload", variant="primary")
                yield Button("Show diff (d)", id="diff")
                yield Button("Overwrite (o)", id="overwrite", variant="error")
                yield Button("Keep editing (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#conflict-diff").display = False
        self.query_one("#reload", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "diff":
            self.action_toggle_diff()
        else:
            self.dismiss(event.button.id)

    def action_toggle_diff(self) -> None:
        diff = self.query_one("#conflict-diff")
        diff.display = not diff.display
        self.query_one("#diff", Button).label = "Hide diff (d)" if diff.display else "Show diff (d)"

    def action_back(self) -> None:
        """esc steps back one level: from the diff to the dialog, from the dialog to the editor
        (so an esc that closes the diff never lets the next key fall into the document)."""
        if self.query_one("#conflict-diff").display:
            self.action_toggle_diff()
        else:
            self.dismiss("cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


def diff_content(diff: str) -> Content:
    """A unified diff with removed lines in the error colour and added ones in success."""
    lines = []
    for line in shown_lines(diff).splitlines():
        if line.startswith(("+++", "---")):
            lines.append(Content.styled(line, "bold"))
        elif line.startswith("+"):
            lines.append(Content.styled(line, "$success"))
        elif line.startswith("-"):
            lines.append(Content.styled(line, "$error"))
        elif line.startswith("@@"):
            lines.append(Content.styled(line, "$accent"))
        else:
            lines.append(Content(line))
    return Content("\n").join(lines)
