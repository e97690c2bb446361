"""The sessions pane on a team store (PostgreSQL) pushed from three machines built from the real
transcripts (tests/fixtures/real): a Machine and an Agent column, M and A to list one machine's
or one agent's sessions in turn, `machine:`/`agent:` words in the `/` filter; none of it on a
store on this machine (capabilities decide). Snapshots at 160×48 and 80×24."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import fixed_clock, screen_text
from pilot_support import settle

from memtui.core.store.team import TeamStore
from memtui.core.team.push import push
from memtui.ui.app import make_app
from memtui.ui.commands import commands_for, screen_scopes
from memtui.ui.widgets.sessions_table import SessionsTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from team_machines import transcript_machines  # noqa: E402

SHOWN = "postgresql://team-db/memtui"
"""The label the app shows for the team store (its real URL names a temporary socket folder)."""


@pytest.fixture(scope="module")
def team(pg_cluster, tmp_path_factory) -> str:
    url = pg_cluster.new_database()
    for machine in transcript_machines(tmp_path_factory.mktemp("machines")):
        push(machine.paths, url, machine=machine.name, env=machine.env)
    return url


def team_app(url: str):
    source = TeamStore.open(url, readonly=True)
    return make_app(source.path, source=source, shown_path=SHOWN, clock=fixed_clock)


def listed(app) -> list[tuple[str, str]]:
    table = app.screen.query_one(SessionsTable)
    return [(r.machine, r.agent) for r in table.matching if hasattr(r, "machine")]


class TestTeamSessionsSnapshots:
    def test_at_160x48(self, snap_compare, team) -> None:
        assert snap_compare(team_app(team), terminal_size=(160, 48), run_before=settle)

    def test_at_80x24_one_machine(self, snap_compare, team) -> None:
        async def run(pilot) -> None:
            await settle(pilot)
            await pilot.press("M", "M")  # ci, then devbox
            await settle(pilot)

        assert snap_compare(team_app(team), terminal_size=(80, 24), run_before=run)


async def test_m_and_a_list_one_machine_then_one_agent_in_turn(team) -> None:
    app = team_app(team)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        everything = listed(app)
        assert {m for m, _ in everything} == {"laptop", "devbox", "ci"}
        assert "M Machine" in screen_text(app).splitlines()[-1]  # the footer
        seen = []
        for _ in range(3):
            await pilot.press("M")
            await settle(pilot)
            machines = {m for m, _ in listed(app)}
            assert len(machines) == 1
            seen.append(machines.pop())
        assert seen == ["ci", "devbox", "laptop"]
        assert app.screen.query_one("#sessions-pane").border_subtitle == (
            f"{sum(1 for m, _ in everything if m == 'laptop')} of {len(app.screen.query_one(SessionsTable).records)}")
        await pilot.press("A")  # laptop's sessions of one agent: Claude Code, its only one
        await settle(pilot)
        assert set(listed(app)) == {("laptop", "claude-code")}
        await pilot.press("M")  # past the last machine: every machine's, of that agent
        await settle(pilot)
        assert {m for m, _ in listed(app)} == {"laptop", "devbox"} and {a for _, a in listed(app)} == {"claude-code"}
        await pilot.press("escape")  # clears the filter
        await settle(pilot)
        assert listed(app) == everything


async def test_the_filter_takes_machine_and_agent_words(team) -> None:
    app = team_app(team)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"machine:DEVBOX agent:codex", "enter")
        await settle(pilot)
        shown = listed(app)
        assert shown and set(shown) == {("devbox", "codex")}


async def test_a_machine_named_with_spaces_is_filtered_in_quotes(pg_cluster, tmp_path) -> None:
    """`--machine "Ana's laptop"` beside a machine named "Ana's": the filter's quoted word lists the
    first alone, a bare `machine:Ana's` the second alone, and M writes the quotes itself."""
    url = pg_cluster.new_database()
    laptop, _, ci = transcript_machines(tmp_path / "machines")
    push(laptop.paths, url, machine="Ana's laptop", env=laptop.env)
    push(ci.paths, url, machine="Ana's", env=ci.env)
    app = team_app(url)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(SessionsTable)
        await pilot.press("slash", *'machine:"ana\'s laptop"', "enter")
        await settle(pilot)
        assert listed(app) and {m for m, _ in listed(app)} == {"Ana's laptop"}
        await pilot.press("escape")
        await pilot.press("slash", *"machine:Ana's", "enter")
        await settle(pilot)
        assert listed(app) and {m for m, _ in listed(app)} == {"Ana's"}
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("M", "M")  # Ana's, then Ana's laptop
        await settle(pilot)
        assert table.filter_text == 'machine:"Ana\'s laptop"'
        assert {m for m, _ in listed(app)} == {"Ana's laptop"}


async def test_a_store_on_this_machine_has_no_machine_column_or_key(demo_path, open_app) -> None:
    async with open_app(demo_path) as pilot:
        app = pilot.app
        table = app.screen.query_one(SessionsTable)
        assert "machine" not in {key for key, _, _ in table.COLUMNS}
        offered = {c.action for c in commands_for(screen_scopes(app.screen), app.source)}
        assert not {"filter_origin('machine')", "filter_origin('agent')"} & offered
        assert "Machine" not in screen_text(app).splitlines()[-1]
        await pilot.press("M")  # does nothing
        await settle(pilot)
        assert not table.filter_text


async def test_the_usage_screen_groups_a_team_store_by_machine(team) -> None:
    from textual.widgets import DataTable

    app = team_app(team)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("dollar_sign")
        await settle(pilot)
        for _ in range(5):  # day → week → month → model → project → machine
            await pilot.press("b")
            await settle(pilot)
        assert app.screen.grouping == "machine"
        groups = app.screen.query_one("#usage-groups", DataTable)
        assert {str(groups.get_row_at(i)[0]) for i in range(groups.row_count)} == {"laptop", "devbox", "ci"}
        assert "By machine (b: by day)" in screen_text(app)


async def test_the_usage_screen_of_a_store_on_this_machine_has_no_machine_grouping(demo_path, open_app) -> None:
    async with open_app(demo_path) as pilot:
        await pilot.press("dollar_sign")
        await settle(pilot)
        seen = set()
        for _ in range(6):
            seen.add(pilot.app.screen.grouping)
            await pilot.press("b")
            await settle(pilot)
        assert seen == {"day", "week", "month", "model", "project"}


async def test_search_hits_name_the_machine_they_came_from(team) -> None:
    from memtui.ui.widgets.search_results import SearchResults

    app = team_app(team)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await settle(pilot)
        await pilot.press(*"hoge")
        await settle(pilot)
        results = app.screen.query_one(SearchResults)
        wheres = {results.where(hit).split(" · task")[0] for _, hit in results.records if hit.task}
        assert wheres == {"laptop · claude-code", "devbox · claude-code", "devbox · codex", "ci · codex"}
        assert "ci · codex · task" in screen_text(app)
