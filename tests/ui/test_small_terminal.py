"""The main screen in a small terminal (80×24): every pane with its title on screen, and a
header that leaves figures out whole rather than cutting a number short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memtui.ui.widgets.workspace_bar import WorkspaceBar

from sources_support import copy_fixture

SMALL = (80, 24)


async def test_every_pane_title_is_on_an_80x24_screen(demo_path: Path, open_app, shown) -> None:
    async with open_app(demo_path, size=SMALL) as pilot:
        text = shown(pilot.app)
        for title in ("Sessions", "Tasks", "Steps", "Changed files", "Diff"):
            assert f"─ {title}" in text, f"{title!r} pane's title is off screen:\n{text}"
        assert pilot.app.screen.scroll_offset.y == 0 and pilot.app.screen.max_scroll_y == 0


async def test_a_narrow_header_never_cuts_a_figure(demo_path: Path, open_app, shown) -> None:
    async with open_app(demo_path, size=SMALL) as pilot:
        header = shown(pilot.app).splitlines()[0]
        gc = re.search(r"reclaimable (\d+)", header)
        assert gc is not None, header
        assert gc.group(1) == "10", header  # the demo's 10 reclaimable tasks, not a cut "1"
        assert "live 8" in header


async def test_the_header_leaves_gc_figures_out_whole_as_it_narrows(demo_path: Path, open_app, shown) -> None:
    """The widest header shows every GC figure; a narrower one drops the task count, then the
    bytes, then shortens 'reclaimable', and what it shows is never a cut number. One app start,
    resized to each width (each_screen names every width whose header failed)."""
    from pilot_support import each_screen

    async with open_app(demo_path, size=(60, 24)) as pilot:
        async def at(width: int) -> None:
            await pilot.resize_terminal(width, 24)

        async def check(width: int) -> None:
            assert pilot.app.size == (width, 24)
            header = shown(pilot.app).splitlines()[0]
            gc = re.search(r"(?:(\S+) tasks · )?live (\S+) · (reclaimable|recl\.) (\S+)(?: \(([^)]*)\))?", header)
            if gc is None:
                assert width <= 60 and "live" not in header, header  # no room: left out whole
                return
            assert (gc.group(2), gc.group(4)) == ("8", "10"), header  # the demo's 8 live, 10 reclaimable tasks
            assert gc.group(1) in (None, "18"), header
            if width == 66:  # (no read-only badge on the demo: the figures shorten later than they did)
                assert gc.group(3) == "recl.", header
            if width == 200:
                assert gc.group(1) == "18" and gc.group(3) == "reclaimable" and gc.group(5), header
            if gc.group(5):
                assert re.fullmatch(r"[\d.]+ (B|KiB|MiB)", gc.group(5)), header

        await each_screen(pilot, [60, 66, 80, 100, 200], check, go=at)


async def test_a_store_without_gc_shows_no_gc_figures(tmp_path: Path, open_app, shown) -> None:
    home = copy_fixture("jsonl_store", tmp_path / "jsonl")
    async with open_app(home, size=(120, 30)) as pilot:
        bar = pilot.app.screen.query_one(WorkspaceBar)
        header = shown(pilot.app).splitlines()[0]
        assert "JSONL" in header
        assert "GC" not in header, header  # it cannot be collected: no "GC: not computed"
        assert bar is not None


async def test_the_sessions_count_reads_like_the_other_figures(tmp_path: Path, open_app) -> None:
    from memtui.core.store import AgentStore
    from memtui.ui.widgets.pane import Pane

    with AgentStore.open(tmp_path) as store:
        for n in range(1_001):
            store.start_session(f"session {n}")
        gone = store.start_session("deleted later")
        store.start_task(gone, "left behind")
        store.delete_session(gone)
    async with open_app(tmp_path, size=(120, 30)) as pilot:
        subtitle = str(pilot.app.screen.query_one("#sessions-pane", Pane).border_subtitle)
        assert subtitle == "1,001 + 1 orphan", subtitle


async def test_statistics_at_80x24_tell_every_table_apart(demo_path: Path, open_app, shown) -> None:
    """The tables pane is narrow there: a name loses its middle, never its end, and the share
    gives way before the name does ('checkpo…' stood for four different tables and indexes)."""
    import sqlite3

    from pilot_support import settle

    with sqlite3.connect(f"file:{demo_path / '.agent' / 'agent.db'}?mode=ro", uri=True) as conn:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')"
                                            " AND name NOT LIKE 'sqlite_autoindex%'")] + ["sqlite_schema"]
    async with open_app(demo_path, size=SMALL) as pilot:
        await pilot.press("s")
        await settle(pilot)
        rows = [line.split("││", 1)[1] for line in shown(pilot.app).splitlines() if "││" in line]
        cells = [row.strip(" │▁▂▃▄▅▆▇█▍").split("  ")[0].strip() for row in rows[1:]]
        shown_names = [c for c in cells if c]
        assert len(set(shown_names)) == len(shown_names), shown_names  # no two rows read the same
        for cell in shown_names:
            head, _, tail = cell.partition("…")
            matches = [n for n in names if n.startswith(head) and n.endswith(tail)]
            assert matches, f"{cell!r} is no table or index of the store"


async def test_at_80x24_the_steps_pane_shows_four_steps_without_sideways_scrolling(demo_path: Path, open_app,
                                                                                    shown) -> None:
    """The steps pane showed two steps: its columns were wider than the pane, so a sideways
    scrollbar took a row, and the Arguments column was cut to "command…"."""
    from memtui.ui.widgets.step_timeline import StepTimeline

    async with open_app(demo_path, size=SMALL) as pilot:
        steps = pilot.app.screen.query_one(StepTimeline)
        assert not steps.show_horizontal_scrollbar, steps.virtual_size
        text = shown(pilot.app)
        rows = [line for line in text.splitlines() if re.match(r"│\s+\d+\s{2,}\S", line)]  # not the totals
        assert len(rows) >= 4, text
        for row in rows:  # each argument's name and the start of its value ("path=src/tinyhttp/…")
            assert re.search(r"\b[a-z_]+=\S{6}", row), row
