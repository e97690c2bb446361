"""The search screen as a user meets it: the matched text in view and marked at every width,
hostile text literal."""

from __future__ import annotations

import re

import pytest
from textual.geometry import Region
from textual.widgets import Input

from conftest import screen_text
from memtui.ui.screens.search import SearchScreen


def result_lines(app) -> list[str]:
    """The text column of every result row on screen."""
    table = app.screen.query_one("#search-results")
    lines = screen_text(app).splitlines()[table.region.y:table.region.bottom]
    start = lines[0].index(" text") + 1  # the column's label, after its padding
    return [line[start:table.region.right - 2] for line in lines[1:] if line.strip()]


def marked(app) -> list[str]:
    """The text drawn reversed (the match's mark), row by row."""
    table = app.screen.query_one("#search-results")
    strips = table.render_lines(Region(0, 1, table.outer_size.width, table.outer_size.height - 1))
    return ["".join(s.text for s in strip if s.style and s.style.reverse and s.text.strip()) for strip in strips]


async def search(pilot, query: str) -> None:
    await pilot.press("ctrl+f")
    await pilot.pause()
    pilot.app.screen.query_one(Input).value = query
    from pilot_support import settle
    await settle(pilot)


async def until(pilot, shown, bound: float = 60.0) -> None:
    """Let the app run until `shown()` holds (a state, not a time: a loaded machine only makes
    it later); `bound` only ends a wait for something that never comes (the assert after it fails)."""
    import time

    deadline = time.monotonic() + bound
    while not shown() and time.monotonic() < deadline:
        await pilot.pause(0.05)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_hit_shows_its_match(demo_path, open_app, size):
    """However narrow the text column, each row shows (one of) the query's terms, marked: each
    query searched afresh from the main screen (one app start; each_screen names every query
    whose rows failed)."""
    from pilot_support import each_screen

    async with open_app(demo_path, size=size) as pilot:
        async def check(query):
            assert isinstance(pilot.app.screen, SearchScreen) and pilot.app.screen.hits
            rows = result_lines(pilot.app)
            assert len(rows) == min(len(pilot.app.screen.hits), size[1] - 6), rows
            terms = query.lower().split()
            for row in rows:
                assert any(term in row.lower() for term in terms), (query, row)
            for row, mark in zip(rows, marked(pilot.app)):
                assert mark and any(term == mark.lower() or term in mark.lower() for term in terms), (row, mark)

        await each_screen(pilot, ["router", "->", "tinyhttp parser"], check, go=lambda query: search(pilot, query))


async def test_hostile_text_in_a_hit_stays_literal_and_marked(tmp_path, open_app):
    """A hit whose text holds Rich markup and escapes: shown as typed, the match marked in it."""
    from hostile_text import assert_no_raw
    from test_hostile_everywhere import MARKUP, hostile_store

    root = hostile_store(tmp_path / "ws")
    async with open_app(root, size=(80, 24)) as pilot:
        await search(pilot, "[bold")
        text = screen_text(pilot.app)
        assert_no_raw(text, "search [bold")
        rows = result_lines(pilot.app)
        assert rows and all("[bold" in row for row in rows), rows
        assert any(MARKUP in row for row in rows), rows
        assert all(mark.startswith("[bold") for mark in marked(pilot.app)[:len(rows)]), marked(pilot.app)


def test_snapshot_search_at_80x24(snap_compare, app_for, demo_path):
    """The hits of `router` at 80×24: the where column as wide as its content allows, each
    text cut around its marked match."""

    async def run(pilot):
        from pilot_support import settle

        await settle(pilot)
        await search(pilot, "router")
        pilot.app.screen.query_one(Input).cursor_blink = False
        await settle(pilot)

    assert snap_compare(app_for(demo_path), terminal_size=(80, 24), run_before=run)


async def test_while_a_query_runs_the_older_hits_are_not_taken_for_its_own(demo_path, open_app):
    """Typing on while a search runs (a scan of a big store takes a while): the status does
    not show the older query's count as the new one's, and enter opens the first hit of the
    query typed once it is found, never the older query's first hit."""
    from memtui.ui.screens.memory import MemoryScreen

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "router")
        screen = pilot.app.screen
        status = screen.query_one("#search-status")
        assert str(status.render()).startswith("65 matches"), status.render()
        with screen._index_lock:  # the index is busy: the next search waits for it
            screen.query_one(Input).value = "split parser"
            await until(pilot, lambda: str(status.render()) == "searching…")  # once SEARCHING_AFTER has passed
            assert str(status.render()) == "searching…"
            await pilot.press("enter")
            await pilot.pause(0.1)
            assert pilot.app.screen is screen  # not the first hit of "router"
        from pilot_support import settle
        await settle(pilot)
        assert isinstance(pilot.app.screen, MemoryScreen)
        assert pilot.app.screen.current == "HISTORY.jsonl", pilot.app.screen.current


async def test_the_next_search_starts_from_the_query_last_typed(demo_path, open_app):
    """Back from a hit, ctrl+f shows the same query and hits (to open the next one); the
    query is selected, so typing replaces it. Up on the first hit goes back to the query."""
    from memtui.ui.screens.main import MainScreen
    from pilot_support import settle

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "fuzz corpus")
        first = pilot.app.screen.hits
        await pilot.press("down", "down", "enter")  # the second hit (a memory file): opened
        await settle(pilot)
        assert not isinstance(pilot.app.screen, SearchScreen)
        await pilot.press("escape", "escape")  # the source view at the line, the rendered one, back
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen), pilot.app.screen_stack
        await pilot.press("ctrl+f")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        assert screen.query_one(Input).value == "fuzz corpus" and screen.hits == first
        assert str(screen.query_one("#search-status").render()).startswith(f"{len(first)} match")
        await pilot.press("down", "down", "up", "up")
        assert screen.focused is screen.query_one(Input)
        await pilot.press("ctrl+f", *"router")
        await settle(pilot)
        assert screen.query_one(Input).value == "router"


async def test_leaving_while_the_index_is_busy_does_not_freeze_the_app(demo_path, open_app):
    """Escape while a refresh still holds the index (the first build of a big store takes
    minutes, and a batch a while to notice it was cancelled): the app goes on at once; the
    search opened again waits in its worker, then answers."""
    import threading

    from memtui.ui.screens.main import MainScreen
    from pilot_support import settle

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "router")
        lock = pilot.app.screen._index_lock
        held, done, stuck = threading.Event(), threading.Event(), []

        def busy_refresh() -> None:  # another thread holds the index, as a refresh does
            with lock:
                held.set()
                stuck.append(not done.wait(120))  # only bounds an app that never comes back

        holder = threading.Thread(target=busy_refresh)
        holder.start()
        held.wait()
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, MainScreen))
        assert isinstance(pilot.app.screen, MainScreen)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen))
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen) and screen.query_one(Input).value == "router"
        done.set()
        holder.join()
        assert stuck == [False], "the event loop waited for the index"
        await settle(pilot)
        assert str(screen.query_one("#search-status").render()).startswith("65 matches")


async def test_the_match_stays_in_view_when_the_terminal_is_resized(demo_path, open_app):
    from pilot_support import settle

    async with open_app(demo_path, size=(160, 48)) as pilot:
        await search(pilot, "->")
        for size in ((80, 24), (120, 30)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            rows = result_lines(pilot.app)
            assert rows and all("->" in row for row in rows), (size, rows)


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
def test_the_cli_marks_matches_on_a_terminal_and_stored_escapes_stay_visible(tmp_path, no_color):
    """`memtui search` on a terminal marks each match as grep does; the hits' own escape
    sequences (hostile text) are still shown as ␛, never sent; NO_COLOR leaves plain text."""
    import os
    import sys

    from terminal_support import Terminal
    from test_hostile_everywhere import hostile_store

    from memtui.cli.search import END, MARK

    root = hostile_store(tmp_path / "ws")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | ({"NO_COLOR": "1"} if no_color else {})
    term = Terminal([sys.executable, "-m", "memtui", "search", str(root), "title"], env, tmp_path)
    for _ in range(600):
        term.read(0.1)
        if term.proc.poll() is not None:
            break
    term.read(0.2)
    assert term.close(30) == 0
    out = term.seen.decode()
    if no_color:
        assert "␛]0;title␇" in out and "\x1b" not in out, out
    else:
        assert f"␛]0;{MARK}title{END}␇" in out, out
        assert "\x1b" not in out.replace(MARK, "").replace(END, ""), out


async def test_a_long_first_indexing_counts_its_seconds(demo_path, open_app):
    """While the index is built (minutes for a big store) the status says how long it has
    been at it, so the screen never looks stuck; the hits follow when it is done."""
    import threading

    from pilot_support import settle

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "router")
        lock = pilot.app.screen._index_lock
        await pilot.press("escape")
        await settle(pilot)
        held, done = threading.Event(), threading.Event()

        def busy_refresh() -> None:  # another refresh of the index, as after a reopen
            with lock:
                held.set()
                done.wait(120)  # only bounds an app that never comes back

        holder = threading.Thread(target=busy_refresh)
        holder.start()
        held.wait()
        try:
            await pilot.press("ctrl+f")
            status = pilot.app.screen.query_one("#search-status")
            await until(pilot, lambda: str(status.render()).startswith("indexing…"))
            assert str(status.render()).startswith("indexing…"), status.render()
            counting = re.compile(r"indexing… [1-9][0-9]* s \(")  # once a second has passed
            await until(pilot, lambda: counting.match(str(status.render())))
            assert counting.match(str(status.render())), status.render()
        finally:
            done.set()
            holder.join()
        await settle(pilot)
        assert str(status.render()).startswith("65 matches"), status.render()


async def test_the_query_last_typed_is_searched_once_on_reopening(demo_path, open_app, monkeypatch):
    """ctrl+f again searches the last query once: the screen's mount and the query box's
    first value each started a search of it (the second cancelling or repeating the first)."""
    from pilot_support import settle

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "router")
        await pilot.press("escape")
        await settle(pilot)
        started: list[str] = []
        run_search = SearchScreen.run_search
        monkeypatch.setattr(SearchScreen, "run_search", lambda screen, query: (started.append(query),
                                                                              run_search(screen, query)))
        await pilot.press("ctrl+f")
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.query_one(Input).value == "router" and screen.hits
        assert started == ["router"], started


async def test_every_hit_is_reachable_past_the_first_page(demo_path, open_app):
    """`e` matches 377 records of the demo: the list starts with a page of 200 and says so;
    end / page-down on the last one lists the next page (the count stays the one found), and a
    hit past 200 opens as any other: its task and step selected on the main screen."""
    from memtui.ui.screens.main import MainScreen
    from pilot_support import settle
    from memtui.ui.widgets.step_timeline import StepTimeline

    PAGE = 200

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "e")
        screen = pilot.app.screen
        status = screen.query_one("#search-status")
        total = len(screen._index.search("e", 10_000))
        assert total > PAGE + 100
        assert str(status.render()).startswith(f"{PAGE} of {total:,} matches"), status.render()
        results = screen.query_one("#search-results")
        await pilot.press("down")  # into the list
        for key in ["end", "pagedown"] * 3:
            await pilot.press(key)
            await settle(pilot)
        assert results.cursor_row >= PAGE and len(screen.hits) == results.row_count == total
        assert str(status.render()).startswith(f"{total:,} matches"), status.render()
        await pilot.press("end")
        await settle(pilot)
        chosen = screen.hits[results.cursor_row]
        assert results.cursor_row == total - 1 and chosen == screen._index.search("e", 10_000)[-1]
        assert chosen.kind == "step"
        await pilot.press("enter")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)
        step = pilot.app.screen.query_one(StepTimeline).current_record()
        assert str(pilot.app.screen.query_one(StepTimeline).task_id) == chosen.task
        assert step is not None and step.seq == chosen.line


async def test_two_apps_in_one_process_keep_their_own_query_and_index_lock(demo_path, open_app):
    """A library user (or a test) running two apps at once: what was typed in one is not the
    other's next query, and one app's search holding its index does not hold the other's."""
    from pilot_support import settle

    async with open_app(demo_path, size=(80, 24)) as first, open_app(demo_path, size=(80, 24)) as second:
        await search(first, "router")
        await first.press("escape")
        await settle(first)
        await second.press("ctrl+f")
        await settle(second)
        screen = second.app.screen
        assert isinstance(screen, SearchScreen) and screen.query_one(Input).value == ""
        with screen._index_lock:  # the second app's index held
            await first.press("ctrl+f")
            await until(first, lambda: isinstance(first.app.screen, SearchScreen) and first.app.screen.hits)
            assert first.app.screen.query_one(Input).value == "router" and first.app.screen.hits


async def test_a_query_typed_while_the_next_page_is_read_lists_only_its_own_hits(demo_path, open_app):
    """The next page of `e` is asked for while the index is busy; `router` typed meanwhile: the
    list then holds router's hits only, counted as such (never e's page added to them)."""
    from pilot_support import settle

    async with open_app(demo_path, size=(80, 24)) as pilot:
        await search(pilot, "router")
        routers = list(pilot.app.screen.hits)
        pilot.app.screen.query_one(Input).value = "e"
        await settle(pilot)
        screen = pilot.app.screen
        results = screen.query_one("#search-results")
        assert len(screen.hits) == 200
        after_e = screen._after  # where e's next page starts
        with screen._index_lock:  # the next page waits for the index
            await pilot.press("down", "end")
            await until(pilot, lambda: any(w.group == "search-more" for w in screen.workers))
            assert any(w.group == "search-more" for w in screen.workers)
            screen.query_one(Input).value = "router"
            await pilot.pause(0.1)
        await settle(pilot)
        assert screen.hits == routers and results.row_count == len(routers)
        assert str(screen.query_one("#search-status").render()).startswith(f"{len(routers)} matches")
        # Which of the two waiting workers gets the index first is the threads' affair: e's page
        # may also come after router's hits. Arriving then, it is not added to them either.
        from memtui.ui.screens.search import COUNT_AHEAD, PAGE

        late = screen._index.page("e", PAGE, COUNT_AHEAD, after=after_e)
        assert late.hits
        screen.post_message(SearchScreen.ResultsFound("e", late, 200))
        await settle(pilot)
        assert screen.hits == routers and results.row_count == len(routers)


async def test_a_first_indexing_of_an_agents_home_counts_the_sessions_indexed(tmp_path, open_app, monkeypatch):
    """On a home of many sessions the status says how many of them are indexed so far, beside
    the seconds; the hits follow when it is done."""
    import sys
    import threading
    from pathlib import Path

    from memtui.core.memory import search_sessions
    from pilot_support import settle

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
    from real_support import real_home

    home = real_home("claude-2.1.39-spotter", tmp_path)
    read, go_on = [], threading.Event()
    real = search_sessions._held_records

    def held(source, job):  # the first session is read; the rest wait until the status was seen
        if read:
            go_on.wait(120)  # only bounds an app that never comes back
        read.append(job[0])
        return real(source, job)

    monkeypatch.setattr(search_sessions, "_held_records", held)
    async with open_app(home, size=(100, 24)) as pilot:
        sessions = len(pilot.app.source.sessions())
        assert sessions >= 2
        try:
            await pilot.press("ctrl+f")  # the screen's first refresh builds the index
            status = pilot.app.screen.query_one("#search-status")
            counting = re.compile(rf"indexing… 1/{sessions} sessions · [1-9][0-9]* s \(")
            await until(pilot, lambda: counting.match(str(status.render())))
            assert counting.match(str(status.render())), status.render()
        finally:
            go_on.set()
        await settle(pilot)
        pilot.app.screen.query_one(Input).value = "fixture"
        await settle(pilot)
        assert re.match(r"[0-9]+ match(es)? ", str(status.render())), status.render()
        assert len(read) == sessions


async def test_the_apps_first_search_of_many_sessions_reads_them_in_worker_processes(tmp_path, open_app, monkeypatch):
    """The app runs other threads, so it forks no worker: workers started afresh open the home
    again (MemorySource.reopener) and read its sessions; the index finds what one built by
    reading every session in this process finds."""
    import sys
    from pathlib import Path

    from memtui.core.memory.search import SearchIndex
    from memtui.core.resolve import open_source
    from memtui.core.sources import part_pool
    from pilot_support import settle

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
    from real_support import many_sessions

    home = many_sessions("claude-2.0.28-agtrace", tmp_path, part_pool.FORK_MIN_ITEMS // 3 + 2)
    async with open_app(home, size=(100, 24)) as pilot:
        assert len(pilot.app.source.sessions()) >= part_pool.FORK_MIN_ITEMS
        await pilot.press("ctrl+f")
        await settle(pilot)
        pilot.app.screen.query_one(Input).value = "hoge"
        await settle(pilot)
        assert part_pool.last_forked >= 2  # read in worker processes
        found = sorted((h.kind, h.task, h.step, h.text) for h in pilot.app.screen.hits)
    many = part_pool.FORK_MIN_ITEMS
    monkeypatch.setattr(part_pool, "FORK_MIN_ITEMS", 10**9)
    with open_source(home) as source, SearchIndex(home, source, path=tmp_path / "here.db") as index:
        index.refresh()
        assert part_pool.last_forked == 0  # read here
        here = sorted((h.kind, h.task, h.step, h.text) for h in index.search("hoge", limit=None))
    assert found == here and len(here) > many
