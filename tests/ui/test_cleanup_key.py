"""C (cleanup of a Claude Code / Codex home) is offered only where it can run: not on memtui's
own store, and not under --read-only — where pressing it says why instead of telling the user
to open the home they have open."""

from __future__ import annotations

import shutil
from pathlib import Path

from memtui.core.demo import build_demo
from memtui.ui.app import make_app
from memtui.ui.screens.cleanup import CleanupScreen
from memtui.ui.screens.help import HelpScreen
from pilot_support import settle
from conftest import notifications

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def help_text(app) -> str:
    return " | ".join(str(cell) for cell in HelpScreen(app.screen)._table().columns[1]._cells)


def notices(app) -> list[str]:
    return [str(n.message) for n in notifications(app)]


async def press_c(app, *, offered: bool) -> str:
    """Open `app`, check the help lists C as `offered`, press C; what the notices said."""
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert ("Clean up the Claude Code" in help_text(app)) == offered
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, CleanupScreen) == offered
        return " ".join(notices(app))


async def test_memtuis_own_store_does_not_offer_cleanup(tmp_path):
    said = await press_c(make_app(build_demo(tmp_path / "demo", seed=1)), offered=False)
    assert "can't clean up an agent home" in said, said


async def test_a_home_opened_read_only_says_cleanup_is_off_for_that_reason(tmp_path):
    home = shutil.copytree(FIXTURES / "claude_home", tmp_path / "claude")
    said = await press_c(make_app(home, browse_only=True), offered=False)
    assert "--read-only" in said and "open ~/.claude" not in said, said


async def test_a_home_offers_cleanup_and_c_opens_it(tmp_path):
    home = shutil.copytree(FIXTURES / "claude_home", tmp_path / "claude")
    await press_c(make_app(home), offered=True)


async def test_the_help_lists_resume_and_the_cleanup_screen_only_where_the_store_can_do_them(demo_path, tmp_path):
    """On memtui's own store the help listed "a Resume the highlighted session in its agent"
    and the keys of the cleanup and resume screens, none of which that store can reach."""
    for path, offered in ((demo_path, False), (shutil.copytree(FIXTURES / "claude_home", tmp_path / "claude"), True)):
        app = make_app(path)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            text = help_text(app)
        for shown in ("Resume the highlighted session in its agent", "Agent home cleanup",
                      "Archive what the plan lets go", "Resume in agent", "Copy the command to the clipboard"):
            assert (shown in text) == offered, (path, shown, text)


async def test_the_help_names_the_escape_key_one_way(demo_path):
    """The footer says "esc"; the help said "escape" for most screens and "esc" for the export,
    rollback and resume dialogs."""
    from rich.text import Text

    app = make_app(demo_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        keys = [str(cell) for cell in HelpScreen(app.screen)._table().columns[0]._cells if isinstance(cell, Text)]
    assert "esc" in keys and "escape" not in keys, keys
