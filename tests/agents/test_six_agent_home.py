"""`memtui ~` on a home folder holding six agents' homes (Claude Code, Codex, Gemini CLI, OpenCode,
Aider, Cline — files the real CLIs wrote, tests/agents/six_home.py): every session of each is
listed, newest activity first, each naming its agent; `/` on an agent's name lists its sessions
alone; reading writes nothing into the home."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from memtui.ui.app import make_app
from memtui.ui.opening import open_workspace
from memtui.ui.widgets.sessions_table import SessionsTable

from .live_support import fingerprint
from .six_home import AGENTS, expected_sessions, make_six_agent_home

COPIES = 2


@pytest.fixture
def six(tmp_path, monkeypatch) -> Path:
    user = make_six_agent_home(tmp_path, COPIES)
    for name, value in {"HOME": user, "XDG_CONFIG_HOME": user / ".config", "XDG_DATA_HOME": user / ".local/share",
                        "XDG_STATE_HOME": tmp_path / "state", "XDG_CACHE_HOME": tmp_path / "cache",
                        "CLAUDE_CONFIG_DIR": user / ".claude", "CODEX_HOME": user / ".codex"}.items():
        monkeypatch.setenv(name, str(value))
    return user


def test_the_home_folder_lists_every_session_of_each_agent_newest_first(six) -> None:
    before = fingerprint(six)
    source, entry = open_workspace(six)
    try:
        sessions = list(source.sessions())
        assert Counter(s.origin for s in sessions) == expected_sessions(COPIES)
        assert [s.updated_at for s in sessions] == sorted((s.updated_at for s in sessions), reverse=True)
        for label in AGENTS:  # each agent's sessions read through the merged list: tasks, steps, changes
            session = next(s for s in sessions if s.origin == label)
            tasks = source.tasks(session.id)
            assert tasks, label
            assert source.task(tasks[0].id).id == tasks[0].id
            steps = source.steps(tasks[0].id)
            assert steps and source.step(steps[0].id).id == steps[0].id, label
        # Every session's task is found again by its id (ids of different agents never mix up).
        assert all(source.tasks(s.id) for s in sessions)
        # The header's counts add up only what every agent counts: no one agent's "tasks" for all.
        assert source.counts() == {"sessions": len(sessions)}
    finally:
        source.close()
    assert fingerprint(six) == before


def test_a_single_agents_home_folder_opens_that_agent_alone(tmp_path, monkeypatch) -> None:
    """Nothing to merge: the app opens the one agent's store, as before."""
    from .six_home import _gemini

    user = tmp_path / "user"
    _gemini(user, 1)
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source, entry = open_workspace(user)
    try:
        assert source.kind == "gemini-cli" and not any(s.origin for s in source.sessions())
    finally:
        source.close()


async def test_the_app_shows_each_sessions_agent_and_filters_by_it(six, shown) -> None:
    from pilot_support import settle

    app = make_app(six)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(SessionsTable)
        assert table.shows_agents
        assert len(table.records) == sum(expected_sessions(COPIES).values())
        screen = shown(app)
        assert "Agent" in screen.splitlines()[2] or "Agent" in screen
        assert {label for label in AGENTS if f" {label} " in screen} >= {table.records[0].origin}
        await pilot.press("slash", *"gemini")
        await pilot.pause()
        assert {r.origin for r in table.matching} == {"Gemini CLI"}
        assert len(table.matching) == expected_sessions(COPIES)["Gemini CLI"]
        await pilot.press("enter")
        await settle(pilot)
        assert "Gemini CLI" in shown(app)


def test_usage_by_session_shows_ids_that_tell_the_sessions_apart(six, capsys) -> None:
    """`memtui usage ~ --by session`: each row's id is the start of its session's id, long enough
    that no other row's id starts the same way (Aider's `20261201T163623`, Codex's time-ordered
    ids and OpenCode's `ses_dcd8…` share their first 8 characters: every Aider row read
    `20261201`), as git shortens a hash."""
    import json

    from memtui.cli import main

    assert main(["usage", str(six), "--by", "session", "--json"]) == 0
    keys = [row["key"] for row in json.loads(capsys.readouterr().out)["rows"]]
    assert main(["usage", str(six), "--by", "session"]) == 0
    lines = capsys.readouterr().out.splitlines()
    shown = [line.split(" ", 1)[0] for line in lines[1:lines.index(next(x for x in lines if x.startswith("---")))]]
    assert len(shown) == len(keys) == sum(expected_sessions(COPIES).values())
    for short, key in zip(shown, keys):
        assert key.startswith(short) and len(short) >= min(8, len(key))
        assert short == key or not any(other.startswith(short) for other in keys if other != key), short


async def test_search_on_every_agents_sessions_finds_each_agents_hits_and_opens_them(six, shown) -> None:
    """ctrl+f on the merged list searches every agent's sessions, as `memtui search ~` does: the
    hits are each agent's own (its store searched alone finds the same), each names its agent,
    and Enter on one of Codex's opens its session. It searched memory documents alone ("S picks
    one agent's sessions to search")."""
    from pilot_support import settle
    from textual.widgets import Input

    from memtui.core.memory.search import SearchIndex
    from memtui.core.memory.search_location import PRIVATE
    from memtui.ui.screens.main import MainScreen
    from memtui.ui.screens.search import SearchScreen
    from memtui.ui.widgets.search_results import SearchResults

    query = "numbers 12000"
    app = make_app(six)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        expected = []  # each agent's hits, its store searched alone
        for label, store in app.source.stores:
            with SearchIndex(six, store, PRIVATE) as alone:
                alone.refresh()
                expected += [(label, hit) for hit in alone.search(query, None, ("task", "message", "step"))]
        assert {label for label, _ in expected} >= {"Claude Code", "Codex", "Gemini CLI", "OpenCode", "Cline"}
        await pilot.press("ctrl+f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        status = lambda: str(screen.query_one("#search-status").render())
        assert status() == "type to search memory documents and every agent's sessions"
        screen.query_one(Input).value = query
        await settle(pilot)
        results = screen.query_one(SearchResults)
        listed = [(results.where(hit).split(" · ", 1)[0], hit) for _, hit in results.records]
        assert sorted(listed, key=repr) == sorted(expected, key=repr)
        assert status().startswith(f"{len(expected)} matches")
        text = shown(app)
        for label in {label for label, _ in expected}:
            assert f" {label} · task" in text, label
        codex = next(n for n, (label, hit) in enumerate(listed) if label == "Codex" and hit.kind == "task")
        results.focus()
        results.move_cursor(row=codex)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        task = app.source.task(listed[codex][1].task)
        assert app.screen.session_id == task.session_id and app.screen.task_id == task.id
        assert next(s for s in app.source.sessions() if s.id == task.session_id).origin == "Codex"


def test_every_agents_hits_come_a_page_at_a_time_across_the_stores(six) -> None:
    """Pages of three hits, each going on from where the last ended (in whichever agent's store),
    list every hit once, in the order of one page of them all, with the rest counted."""
    from memtui.core.memory.search_agents import AgentsIndex, search_index

    source, _ = open_workspace(six)
    try:
        index = search_index(six, source)
        assert isinstance(index, AgentsIndex) and len(index.indexes) == len(source.searched_stores()) > 1
        index.refresh()
        whole = index.page("numbers", None, 0)
        assert len(set(whole.origins.values())) > 2
        paged, after = [], None
        while True:
            page = index.page("numbers", 3, 1000, after=after)
            if not page.hits:
                break
            assert page.more == len(whole.hits) - len(paged) - len(page.hits)
            assert all(whole.origins[hit.task] == page.origins[hit.task] for hit in page.hits)
            paged += page.hits
            after = page.after
        assert paged == whole.hits
        index.close()
    finally:
        source.close()


async def test_a_failed_search_of_every_agents_sessions_says_so(six, monkeypatch) -> None:
    """An agent's index that cannot be read: the search screen says why, and stays usable."""
    from pilot_support import settle
    from textual.widgets import Input

    from memtui.core.errors import SearchIndexError
    from memtui.core.memory.search import SearchIndex

    def broken(index, cancelled=lambda: False, progress=None):
        raise SearchIndexError(f"the search index {index.path} is damaged")

    monkeypatch.setattr(SearchIndex, "refresh", broken)
    app = make_app(six)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        app.screen.query_one(Input).value = "numbers"
        await settle(pilot)
        assert str(app.screen.query_one("#search-status").render()).startswith("Search failed: the search index ")


async def test_at_80x24_every_column_of_the_merged_list_is_whole(six, shown) -> None:
    """At 80 columns the merged list leaves out the status (mostly "unknown" for these agents)
    before cutting: the rows fit the pane, so "Activity" and "10h ago" are whole — they read
    "Act" and "10h", the rows wider than the pane, the titles 7 characters."""
    from pilot_support import settle

    app = make_app(six)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(SessionsTable)
        assert table.shows_agents and len(table.records) == sum(expected_sessions(COPIES).values())
        assert table.virtual_size.width <= table.scrollable_content_region.width
        lines = shown(app).splitlines()
        header = next(line for line in lines if " Agent " in line)
        assert "Activity" in header and "Status" not in header
        first = lines[lines.index(header) + 1]
        assert first.split("│")[1].rstrip().endswith(" ago"), first


async def test_the_costliest_sessions_name_their_agent(six, shown) -> None:
    """`$` on every agent's sessions: the costliest sessions say whose each is — the same prompt
    ran in several agents ("Print the numbers from 1 to 12000." five times over), and the rows
    could not be told apart."""
    from pilot_support import settle

    from memtui.ui.screens.usage import TOP_SESSIONS, UsageScreen

    app = make_app(six)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("dollar_sign")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, UsageScreen) and screen.data is not None
        table = screen.query_one("#usage-sessions")
        assert [str(c.label) for c in table.columns.values()] == ["Cost", "Tokens", "Agent", "Session"]
        rows = screen.data.sessions.rows[:TOP_SESSIONS]
        agent_of = {str(s.id): s.origin for s in app.source.sessions()}
        shown_agents = [str(table.get_row_at(n)[2]) for n in range(table.row_count)]
        assert shown_agents == [agent_of[row.key] for row in rows]
        assert len(set(shown_agents)) > 1
        text = shown(app)
        assert " Agent " in text and "Claude Code" in text


def test_export_all_of_the_home_says_which_store_it_wrote_and_names_the_others(six, tmp_path, capsys) -> None:
    """`memtui export ~ --all -o FOLDER` writes the first store's sessions (Claude Code's): it says
    so, and names on stderr every other store found there, not exported — it printed "18 session
    pages" alone, as if that were the home's every session. One agent's home names no other."""
    from memtui.cli import main

    assert main(["export", str(six), "--all", "-o", str(tmp_path / "site")]) == 0
    out, err = capsys.readouterr()
    pages = expected_sessions(COPIES)["Claude Code"]
    assert out.strip() == f"wrote {tmp_path / 'site'}/index.html, {pages} session pages of claude-code at {six / '.claude'}"
    assert err.startswith("also here, not in this export: codex at ") and err.count("\n") == 1
    for folder in (".codex", ".gemini", ".local/share/opencode", ".cline/data", "src/aider-create-edit-000"):
        assert f" at {six / folder}" in err, folder
    assert main(["export", str(six / ".codex"), "--all", "-o", str(tmp_path / "codex")]) == 0
    out, err = capsys.readouterr()
    assert out.strip().endswith(f"{expected_sessions(COPIES)['Codex']} session pages") and err == ""


def test_show_on_the_home_finds_an_id_of_any_agent_found_there(six, capsys) -> None:
    """`memtui show ~ --task ID` of a Codex turn (as `memtui log ~/.codex` lists it): found in the
    Codex home, as ~ holds it; it said "no turn … in ~/.claude", the first store ~ opens. An id in
    none of them names every store looked in."""
    import json

    from memtui.cli import main

    assert main(["log", str(six / ".codex"), "--json"]) == 0
    task = json.loads(capsys.readouterr().out)["sessions"][0]["tasks"][0]["id"]
    assert main(["show", str(six), "--task", task, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["task"]["id"] == task
    assert main(["show", str(six), "--task", "no-such-turn"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memtui: no turn 'no-such-turn' in ") and err.count("\n") == 1
    assert f"codex at {six / '.codex'}" in err and f"cline at {six / '.cline/data'}" in err


def test_stats_on_the_home_measures_the_sqlite_files_of_the_agents_there(six, capsys) -> None:
    """`memtui stats ~`: the first store ~ opens (Claude Code's home) keeps no SQLite file, and
    the verb refused ("can't show database statistics") though OpenCode's opencode.db is there:
    it measures the SQLite files of the other stores found at PATH, read-only."""
    import json

    from memtui.cli import main

    before = fingerprint(six)
    assert main(["stats", str(six), "--json"]) == 0
    files = [f["path"] for f in json.loads(capsys.readouterr().out)["files"]]
    assert files == [str(six / ".local/share/opencode/opencode.db")]
    assert main(["stats", str(six / ".claude")]) == 2  # one agent's home without one: still said so
    assert "can't show database statistics" in capsys.readouterr().err
    assert fingerprint(six) == before
