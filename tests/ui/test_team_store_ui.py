"""The app on a team store (PostgreSQL): the same panes, sessions named by the machine they were
pushed from, and no rollback — pressing r says files are rolled back on the machine that owns
them."""

from __future__ import annotations

from conftest import notifications, screen_text
from pilot_support import settle

from memtui.core.demo import DEMO_START, DemoClock, record_demo
from memtui.core.store.team import TeamStore, shown_url
from memtui.ui.app import make_app
from memtui.ui.commands import commands_for, screen_scopes
from memtui.ui.widgets.step_timeline import StepTimeline


async def test_the_app_browses_a_team_store_and_refuses_rollback_saying_where(team_url):
    clock = DemoClock(DEMO_START, seed=1)
    with TeamStore.open(team_url, clock=clock) as team:
        record_demo(team, clock, seed=1)
    source = TeamStore.open(team_url, readonly=True)
    app = make_app(source.path, source=source, shown_path=shown_url(team_url))
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        assert "Speed up the test suite" in screen_text(app)  # the newest session, listed
        offered = {c.action for c in commands_for(screen_scopes(app.screen), app.source) if c.palette}
        assert not {"rollback", "undo_rollback", "stats"} & offered
        steps = app.screen.query_one(StepTimeline)
        steps.move_cursor(row=next(i for i, s in enumerate(steps.records) if s.checkpoint_id is not None))
        await settle(pilot)
        await pilot.press("5")  # the diff pane: the change is shown, its rollback refused
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        said = [n.message for n in notifications(app)]
        assert said and "rolled back only on the machine that owns them" in said[-1]
        assert type(app.screen).__name__ == "MainScreen"
