"""The app's search (ctrl+f) on a team store: the hits are found by the PostgreSQL server, the
same ones `memtui search` lists, and a session pushed meanwhile is found by the next query
(nothing of the store is indexed on this machine, so nothing there is out of date)."""

from __future__ import annotations

from pilot_support import settle
from test_search_screen import result_lines, search, until

from memtui.core.demo import DEMO_START, DemoClock, record_demo
from memtui.core.memory.search_server import server_page
from memtui.core.store.team import TeamStore, shown_url
from memtui.ui.app import make_app
from memtui.ui.screens.search import SearchScreen


async def test_the_apps_search_on_a_team_store_lists_what_the_server_finds(team_url, tmp_path):
    clock = DemoClock(DEMO_START, seed=1)
    with TeamStore.open(team_url, clock=clock) as team:
        record_demo(team, clock, seed=1)
    source = TeamStore.open(team_url, readonly=True)
    with TeamStore.open(team_url, readonly=True) as reader:
        expected = server_page(reader, "router", 200, 0).hits
    assert expected and {h.kind for h in expected} >= {"task", "step"}
    app = make_app(source.path, source=source, shown_path=shown_url(team_url))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await search(pilot, "router")
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        await until(pilot, lambda: screen.hits_for == "router")
        assert screen.hits == expected
        rows = result_lines(pilot.app)
        assert rows and all("router" in row.lower() for row in rows)
        with TeamStore.open(team_url) as writer:  # another machine's push, while the screen is open
            writer.start_task(writer.start_session("pushed meanwhile"), "the okapi router")
        screen.query_one("#search-input").value = "okapi router"
        await until(pilot, lambda: screen.hits_for == "okapi router")
        assert [(h.kind, h.text) for h in screen.hits] == [("task", "the okapi router")]
