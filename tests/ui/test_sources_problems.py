"""The source switcher (S) says what its Problems count is: the highlighted store's malformed
lines, each with its file and line, under the table. The app showed only "Problems 3" (a JSONL
store with a line cut off by a crash, bytes that are not UTF-8, a malformed line), and nothing
in it said which lines were skipped or why — only `memtui sources` did."""

from __future__ import annotations

from memtui.ui.app import make_app
from memtui.ui.screens.sources import SourcesScreen
from pilot_support import settle

from sources_support import copy_fixture


async def test_the_switcher_lists_the_highlighted_stores_problems(tmp_path, shown):
    store = copy_fixture("jsonl_store", tmp_path / "jsonl")
    app = make_app(store)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, SourcesScreen)
        screen = " ".join(shown(app).split())
    assert "sessions/desktop_main.jsonl:9: truncated last line (incomplete write), skipped" in screen, screen
    assert "sessions/desktop_main.jsonl:6: invalid UTF-8 at byte 93 (replaced)" in screen, screen
    assert "memory/history.jsonl:3: malformed JSON" in screen, screen
