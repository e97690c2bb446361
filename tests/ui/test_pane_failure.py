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


async def test_the_title_follows_what_the_pane_shows(shown) -> None:
    """The title names what the pane shows as it changes, back to a title shown before, and
    a failed load names what it was for; the detail is store text: shown as written."""
    app = OnePane()
    async with app.run_test(size=(160, 8)) as pilot:
        pane = app.query_one(Pane)
        for detail in ("session 1", None, "session 1", "[bold]Fix[/] it", "[bold]Fix[/] it", None):
            pane.show_title(detail)
            await pilot.pause()
            top = shown(app).splitlines()[0]
            assert ("Tasks" if detail is None else f"Tasks · {detail}") in top, top
            assert detail is not None or "·" not in top, top
        pane.pending("session 2", lambda: True)
        await pilot.pause(0.3)
        pane.failed("gone")
        await pilot.pause()
        assert "Tasks · session 2" in shown(app).splitlines()[0] and "unreadable: gone" in shown(app)
