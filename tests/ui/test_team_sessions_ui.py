"""The sessions pane on a team store (PostgreSQL) pushed from three machines built from the real
transcripts (tests/fixtures/real): a Machine and an Agent column, M and A to list one machine's
or one agent's sessions in turn, `machine:`/`agent:` words in the `/` filter; none of it on a
store on this machine (capabilities decide). Snapshots at 160×48 and 80×24."""

from __future__ import annotations

import shutil
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
from mixed_homes import claude_home, codex_home  # noqa: E402

SHOWN = "postgresql://team-db/memtui"
"""The label the app shows for the team store (its real URL names a temporary socket folder)."""


def machine_env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "claude"), "CODEX_HOME": str(home / "codex"),
            "XDG_CACHE_HOME": str(home / "cache"), "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"), "XDG_CONFIG_HOME": str(home / "config")}


def push_three_machines(root: Path, url: str) -> None:
    """laptop: a Claude Code home; devbox: the same Claude Code sessions and a Codex home; ci: the
    Codex home — pushed in that order into the team store at `url`."""
    originals = root / "originals"
    claude, codex = claude_home(originals), codex_home(originals)
    for name, parts in (("laptop", {"claude": claude}), ("devbox", {"claude": claude, "codex": codex}),
                        ("ci", {"codex": codex})):
        home = root / name
        for folder, source in parts.items():
            shutil.copytree(source, home / folder)
        push([home / folder for folder in parts], url, machine=name, env=machine_env(home))


@pytest.fixture(scope="module")
def team(pg_cluster, tmp_path_factory) -> str:
    url = pg_cluster.new_database()
    push_three_machines(tmp_path_factory.mktemp("machines"), url)
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
