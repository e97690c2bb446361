"""`cd ~ && memtui`: the user's home folder opens the agents' homes kept there (~/.claude,
~/.codex), not a "no store here" notice beside them."""

from __future__ import annotations

import sys
from pathlib import Path

from memtui.ui.app import make_app
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from real_support import real_home, user_home  # noqa: E402


async def test_the_home_folder_opens_the_claude_code_home_in_it(tmp_path, monkeypatch, shown) -> None:
    home = user_home(tmp_path, monkeypatch)
    app = make_app(home)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = shown(app)
        assert "No memtui store here" not in screen
        assert screen.splitlines()[0].split()[4] == "~", screen.splitlines()[0]  # the home folder: "~", not "~/."
        assert "Implement spotter-gqc" in screen and "Work on bead spotter-4te" in screen


async def test_enter_on_a_chain_file_of_a_home_that_cannot_edit_opens_no_editor(tmp_path, monkeypatch) -> None:
    """A home whose sessions worked in folders not on this machine can't save memory: Enter on
    its CLAUDE.md in "loaded at start" says so, instead of an editor whose ctrl+s refuses."""
    from memtui.ui.screens.memory import MemoryScreen
    from memtui.ui.widgets.chain_panel import ChainPanel

    claude = real_home("claude-2.1.39-spotter", tmp_path)
    (claude / "CLAUDE.md").write_text("# My rules\n\n- small commits\n")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    app = make_app(claude)
    notes: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        panel = app.screen.query_one(ChainPanel)
        assert panel.list.select_path(claude / "CLAUDE.md")
        await settle(pilot)
        app.notify = lambda message, **kw: notes.append(str(message))  # what the toast would say
        panel.list.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and not app.screen.editing
        assert any("can't edit memory documents" in n for n in notes), notes
    assert (claude / "CLAUDE.md").read_text() == "# My rules\n\n- small commits\n"


async def open_cleanup(pilot):
    """The cleanup preview of the home the app opened (C), once it is on screen."""
    from memtui.ui.screens.cleanup import CleanupScreen

    await settle(pilot)
    await pilot.press("C")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CleanupScreen)
    return pilot.app.screen


async def test_cleanup_offers_cancel_only_while_a_run_goes(tmp_path, shown) -> None:
    """The cleanup preview's footer names `c Cancel` while an archive runs, not before one
    (pressing it then did nothing)."""
    app = make_app(real_home("claude-2.1.39-spotter", tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_cleanup(pilot)
        footer = shown(app).splitlines()[-1]
        assert "Archive" in footer and "Cancel" not in footer, footer
        screen.working = True  # as while a run goes
        await pilot.pause()
        assert "c Cancel" in shown(app).splitlines()[-1]
        screen.working = False


async def test_cleanup_offers_no_cancel_while_a_restore_goes(tmp_path, shown) -> None:
    """A restore can't be cancelled: its footer names no `c Cancel` (pressing it said
    "cancelling…" and the restore went on), and esc says to wait, not to press c."""
    app = make_app(real_home("claude-2.1.39-spotter", tmp_path))
    notes: list[str] = []
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_cleanup(pilot)
        screen.restoring, screen.working = True, True  # as action_restore sets them while a restore runs
        await pilot.pause()
        assert "Cancel" not in shown(app).splitlines()[-1], shown(app).splitlines()[-1]
        app.notify = lambda message, **kw: notes.append(str(message))  # what the toast would say
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen  # still the cleanup preview
        assert notes and "press c" not in notes[-1], notes
        screen.working = False


async def test_the_source_switcher_names_the_folder_opened_as_dot(tmp_path, monkeypatch, shown) -> None:
    """`cd ~ && memtui` then S: "Stores found at or for ~", not "… for ." (and a project: ~/…)."""
    home = user_home(tmp_path, monkeypatch)
    monkeypatch.chdir(home)
    app = make_app(Path("."))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        screen = shown(app)
        assert "Stores found at or for ~" in screen and "for ." not in screen, screen
