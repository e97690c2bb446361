"""Dialogs in an 80x24 terminal: each fits the screen, its right border on it. The help (84
columns) and the conflict dialog (90) ran off the right edge, the end of each line with them."""

from __future__ import annotations

from pilot_support import settle

SMALL = (80, 24)


def _help():
    from memtui.ui.screens.help import HelpScreen

    return HelpScreen(), "#help"


def _conflict():
    from memtui.ui.screens.conflict import ConflictScreen

    return ConflictScreen("MEMORY.md", "It changed on disk since you opened it", b"disk\n", "mine\n"), "#conflict-dialog"


async def test_the_dialog_fits_an_80_column_screen(demo_path, open_app):
    """The help, then the conflict dialog, each pushed on the main screen of one app start
    (each_screen names every dialog that ran off the screen)."""
    from pilot_support import each_screen

    async with open_app(demo_path, size=SMALL) as pilot:
        async def push(make) -> None:
            pilot.app.push_screen(make()[0])

        async def check(make) -> None:
            dialog = pilot.app.screen.query_one(make()[1])
            assert dialog.region.x >= 0 and dialog.region.right <= 80, dialog.region
            assert dialog.outer_size.width <= 80, dialog.outer_size

        await each_screen(pilot, [_help, _conflict], check, go=push)


async def test_the_rollback_dialog_names_its_choices_whole_at_80_columns(demo_path, open_app, shown):
    """The force box read "Overwrite conflicting fil…" beside the two buttons."""
    from memtui.core.rollback import FilePlan, RollbackPlan
    from memtui.ui.screens.rollback import RollbackScreen

    plan = RollbackPlan("checkpoint", "c1", "t1", demo_path,
                        (FilePlan("notes.md", (1,), None, target=b"old\n", disk=b"new\n"),))
    async with open_app(demo_path, size=SMALL) as pilot:
        pilot.app.push_screen(RollbackScreen(plan, "Roll back checkpoint c1"))
        await settle(pilot)
        text = shown(pilot.app)
        for words in ("Overwrite conflicts (f)", "Roll back (y)", "Cancel (esc)"):
            assert words in text, text
