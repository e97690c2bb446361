"""pilot_support.each_screen, which the UI tests use to walk several screens or sizes in one
app start: every visit is made from the screen the walk started on, and a failed check fails
the test naming its visit (not only the first one), so a merged test still fails where each
of its former tests would have."""

from __future__ import annotations

import re

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input, Static

from conftest import notifications
from pilot_support import each_screen


class Page(Screen):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.page = name

    def compose(self) -> ComposeResult:
        yield Static(self.page)


class Pages(App):
    BINDINGS = [("f1", "page('a')"), ("f2", "page('b')")]

    def compose(self) -> ComposeResult:
        yield Input(id="first")
        yield Input(id="second")

    def action_page(self, name: str) -> None:
        self.push_screen(Page(name))


async def test_every_visit_starts_where_the_walk_started_and_each_failure_is_named() -> None:
    app = Pages()
    seen: list[tuple[str, int, str | None]] = []
    async with app.run_test(size=(40, 10)) as pilot:
        app.query_one("#second", Input).focus()
        await pilot.pause()

        async def check(keys: list[str]) -> None:
            screen = app.screen
            seen.append((getattr(screen, "page", "main"), len(app.screen_stack), app.screen_stack[0].focused.id))
            app.notify("left over")
            assert getattr(screen, "page", None) == "a", f"on page {getattr(screen, 'page', 'main')}"

        with pytest.raises(AssertionError) as failed:
            await each_screen(pilot, [["f2"], ["f1"], ["tab"], ["f2"]], check)
        assert seen == [("b", 2, "second"), ("a", 2, "second"), ("main", 1, "first"), ("b", 2, "second")]
        # every failed visit, not only the first, by its keys
        assert re.findall(r"^(\w+): on page", str(failed.value), re.M) == ["f2", "tab", "f2"], failed.value
        assert len(app.screen_stack) == 1 and app.focused.id == "second" and notifications(app) == []
