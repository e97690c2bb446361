"""The usage screen (`$`): groups, a bar per day, the costliest sessions (Enter goes there),
the models; snapshots at 80×24 and 160×48 on the seeded demo (its recorded costs)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import DataTable

from pilot_support import settle
from memtui.ui.screens.main import MainScreen
from memtui.ui.screens.usage import UsageScreen
from memtui.ui.widgets.sessions_table import SessionsTable


async def _open_usage(pilot) -> None:
    await settle(pilot)
    await pilot.press("dollar_sign")
    await settle(pilot)


class TestUsageScreen:
    def test_at_160x48(self, snap_compare, demo_path: Path, app_for) -> None:
        assert snap_compare(app_for(demo_path), terminal_size=(160, 48), run_before=_open_usage)

    def test_at_80x24(self, snap_compare, demo_path: Path, app_for) -> None:
        assert snap_compare(app_for(demo_path), terminal_size=(80, 24), run_before=_open_usage)

    def test_by_model_with_token_bars(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await _open_usage(pilot)
            await pilot.press("b", "b", "b", "t")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=(160, 48), run_before=run)


async def test_enter_on_a_session_goes_to_its_costliest_turn(demo_path: Path, open_app) -> None:
    async with open_app(demo_path, size=(160, 48)) as pilot:
        await _open_usage(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, UsageScreen)
        sessions = screen.query_one("#usage-sessions", DataTable)
        costliest = screen.data.sessions.rows[0]
        assert sessions.get_row_at(0)[2].plain == costliest.title
        sessions.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)
        assert pilot.app.screen.query_one(SessionsTable).current_key() == costliest.key


async def test_the_total_is_what_memtui_usage_prints(demo_path: Path, open_app) -> None:
    from memtui.core.resolve import open_source
    from memtui.core.usage import price, source_replies, summarise

    with open_source(demo_path) as source:
        expected = summarise(price(source_replies(source))).total.cost
    async with open_app(demo_path, size=(120, 40)) as pilot:
        await _open_usage(pilot)
        note = str(pilot.app.screen.query_one("#usage-note").render())
        assert f"total ${expected:,.2f}" in note


async def test_at_80x24_a_cut_title_says_so_and_b_names_the_next_grouping(demo_path: Path, open_app,
                                                                          shown) -> None:
    """At 80 columns the session titles ran past the pane's edge ("Add request routing with
    pat") with a sideways scrollbar; the groups pane read "By day (b: by …)"."""
    async with open_app(demo_path, size=(80, 24)) as pilot:
        await _open_usage(pilot)
        screen = pilot.app.screen
        text = shown(pilot.app)
        assert "By day (b: by week)" in text, text
        sessions = screen.query_one("#usage-sessions", DataTable)
        assert not sessions.show_horizontal_scrollbar
        lines = text.splitlines()
        for row in screen.data.sessions.rows[:5]:
            line = next(line for line in lines if line.startswith("│ $") and row.title[:12] in line)
            cell = re.match(r"│ \S+\s+\S+  (.*)", line.split("││")[0]).group(1).rstrip(" ▁▂▃▄▅▆▇█│")
            assert cell == row.title or (cell.endswith("…") and row.title.startswith(cell[:-1])), line


async def test_a_claude_code_home_is_costed_from_its_kept_rows_the_second_time(tmp_path: Path, open_app,
                                                                              monkeypatch) -> None:
    import os
    import pickle
    import sqlite3

    from memtui.core.usage.kept import FOLDER
    from tests.unit.real_support import real_home

    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / f"no-{name.lower()}"))
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    async with open_app(home, size=(120, 40)) as pilot:
        await _open_usage(pilot)
        first = pilot.app.screen.data
        kept = next((Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / FOLDER).glob("*.db"))
        with sqlite3.connect(kept) as db:
            sessions = db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
            # One session's kept rows emptied: a report served from the kept file leaves its replies out.
            db.execute("UPDATE sessions SET rows = ? WHERE id = ?", (pickle.dumps([]), "d6e0bada-1959-4eec-a9d2-0bfade768d8f"))
        await pilot.press("escape")
        await settle(pilot)
        await _open_usage(pilot)
        second = pilot.app.screen.data
    assert sessions == 3 and first.days.total.cost
    left = [i for i in first.priced if i.reply.session_id != "d6e0bada-1959-4eec-a9d2-0bfade768d8f"]
    assert 0 < len(left) < len(first.priced)
    assert second.priced == left


async def test_the_groups_table_never_scrolls_sideways_a_narrow_one_says_the_cache_columns_are_left_out(
        demo_path: Path, open_app, shown) -> None:
    """At 100 columns the groups table ran past its pane ("Cache writ") with a sideways
    scrollbar; where its pane is too narrow it leaves out the two cache columns and says so.
    One app start: at each width the terminal is resized on the main screen and the usage
    screen opened afresh (each_screen names every width that failed)."""
    from pilot_support import each_screen

    async with open_app(demo_path, size=(80, 24)) as pilot:
        async def at(width: int) -> None:
            await pilot.resize_terminal(width, 24)
            await pilot.press("dollar_sign")

        async def check(width: int) -> None:
            assert pilot.app.size == (width, 24)
            groups = pilot.app.screen.query_one("#usage-groups", DataTable)
            labels = [str(column.label) for column in groups.columns.values()]
            assert not groups.show_horizontal_scrollbar, (width, labels)
            text = shown(pilot.app)
            if width >= 120:
                assert labels[-2:] == ["Cache read", "Cache write"] and "widen to see" not in text
            else:
                assert labels == ["Day", "Cost", "Input", "Output"] and "cache columns: widen to see" in text, text

        await each_screen(pilot, [80, 100, 120], check, go=at)


async def test_the_cache_columns_come_and_go_as_the_window_is_resized(demo_path: Path, open_app) -> None:
    async with open_app(demo_path, size=(120, 24)) as pilot:
        await _open_usage(pilot)
        groups = pilot.app.screen.query_one("#usage-groups", DataTable)
        assert len(groups.columns) == 6
        for width, columns in ((100, 4), (130, 6)):
            await pilot.resize_terminal(width, 24)
            await settle(pilot)
            assert len(groups.columns) == columns and not groups.show_horizontal_scrollbar, width
