"""A pane whose load failed says why under its border, literally: the reason (an OS or SQLite
message naming a path or stored text) is never read as Textual markup."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from memtui.ui.widgets.pane import Pane

REASONS = [
    "[Errno 21] Is a directory: '/home/u/notes[/]draft.jsonl'",  # '[/]' closes nothing: MarkupError
    "cannot read [bold]session[/bold] 'x'",
    "no such table: [link=https://example.com]evil[/link]",
]


class OnePane(App[None]):
    CSS = "Pane { border: round $primary; height: 1fr; }"  # as the main screen draws its panes

    def compose(self) -> ComposeResult:
        yield Pane(Static("tasks"), title="Tasks", id="tasks-pane")


async def test_a_failure_reason_is_shown_as_written(shown) -> None:
    app = OnePane()
    async with app.run_test(size=(160, 8)) as pilot:
        pane = app.query_one(Pane)
        for reason in REASONS:
            pane.failed(reason)
            await pilot.pause()
            assert f"unreadable: {reason}" in shown(app), shown(app)
