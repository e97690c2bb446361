"""A key typed while a dialog is being put up — pushed, its widgets not mounted yet (a loaded
machine, a first open that imports them) — does nothing: the app does not crash on the
dialog's missing buttons (`NoMatches: '#rollback-confirm'`, a traceback that ended the app
after `5 r y` typed at 0.4 s intervals), and a `y` the user typed before the question was on
screen rolls nothing back."""

from __future__ import annotations

from textual.app import App

from memtui.resources import tcss_dir
from memtui.ui.screens.rollback import RollbackScreen
from pilot_support import settle
from test_rollback_ui import sample_plan


class Host(App):
    CSS_PATH = [tcss_dir() / "rollback.tcss"]
    source = None  # no store: the dialog is offered as memtui's own store would offer it

    def __init__(self) -> None:
        super().__init__()
        self.chosen: list = []


async def test_a_key_typed_as_the_rollback_dialog_opens_does_nothing():
    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        key_of = {"confirm": "y", "toggle_force": "f"}
        for answered, action in enumerate(key_of):
            dialog = RollbackScreen(sample_plan(), "Roll back task 7")
            app.push_screen(dialog, app.chosen.append)
            # The key's binding runs at once, as the app runs a key waiting in its queue; the
            # dialog's widgets are mounted by its own task, which has not run yet.
            assert not await app.run_action(action, dialog), key_of[action]
            await settle(pilot)
            assert app.screen is dialog and app.chosen == [None] * answered  # the question waits for an answer
            assert dialog.plan.force is False
            await pilot.press("escape")
            await settle(pilot)
        assert app.chosen == [None, None]
        dialog = RollbackScreen(sample_plan(), "Roll back task 7")
        app.push_screen(dialog, app.chosen.append)
        await settle(pilot)
        await pilot.press("f", "y")  # once it is drawn, the keys work
        await settle(pilot)
    assert app.chosen == [None, None, True]
