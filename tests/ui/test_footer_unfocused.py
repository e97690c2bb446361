"""A served page (`memtui serve`) has no focus until the user clicks or types in it: the
footer still follows the keys, so what it shows once the store has opened is what the
keys do — under --read-only no "u Undo", and "g GC" (a read-only preview) is there."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Footer

from memtui.ui.app import make_app
from pilot_support import settle


def footer_text(app) -> str:
    return " ".join(str(key.render()) for key in app.screen.query_one(Footer).children)


async def test_the_footer_of_an_unfocused_page_shows_the_keys_of_the_opened_store(demo_path: Path) -> None:
    app = make_app(demo_path, browse_only=True)
    app.set_reactive(App.app_focus, False)  # as in a browser page nobody has clicked yet
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert not app.app_focus and app.source is not None
        shown = footer_text(app)
        assert "GC" in shown and "Stats" in shown
        assert "Undo" not in shown
