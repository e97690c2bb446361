"""What a source can't do is not offered — not in the footer, the palette or the help — and
its key does nothing harmful; what it can do is offered. Per source kind."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtui.core.demo import build_demo
from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.ra_aid.source import RaAidSource
from memtui.core.store import AgentStore
from memtui.ui.app import make_app
from memtui.ui.commands import commands_for, screen_scopes
from pilot_support import footer_keys, settle
from memtui.ui.widgets.step_timeline import StepTimeline
from conftest import notifications, screen_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def palette(app) -> set[str]:
    source = app.source
    return {c.action for c in commands_for(screen_scopes(app.screen), source) if c.palette}


def help_rows(app) -> str:
    """The descriptions the help screen lists over the current screen."""
    from memtui.ui.screens.help import HelpScreen

    return " | ".join(str(cell) for cell in HelpScreen(app.screen)._table().columns[1]._cells)


@pytest.fixture
def demo(tmp_path):
    return build_demo(tmp_path / "demo", seed=1)


async def test_memtuis_own_store_offers_gc_stats_rollback_and_pin(demo):
    app = make_app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert {"g", "s", "u"} <= footer_keys(app)
        steps = app.screen.query_one(StepTimeline)  # a step that changed files: the diff pane shows one
        steps.move_cursor(row=next(i for i, s in enumerate(steps.records) if s.checkpoint_id is not None))
        await settle(pilot)
        await pilot.press("5")  # the diff pane: its keys and the file's rollback are offered there
        await settle(pilot)
        assert {"r", "v"} <= footer_keys(app)
        assert {"gc", "stats", "rollback", "undo_rollback", "toggle_pin"} <= palette(app)
        assert "memory_items" not in palette(app)  # memtui's store keeps no facts or snippets


async def test_a_claude_code_home_offers_no_gc_stats_pin_or_rollback(tmp_path):
    home = shutil.copytree(FIXTURES / "claude_home", tmp_path / "claude")
    source = ClaudeCodeSource.from_path(home)
    app = make_app(home, source=source)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert not {"g", "s", "r", "u"} & footer_keys(app)
        app.screen.show_task("5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21:u1")  # a task whose Edits changed files
        await settle(pilot)
        steps = app.screen.query_one(StepTimeline)  # a step that changed files: the diff pane shows one
        steps.move_cursor(row=next(i for i, s in enumerate(steps.records) if s.checkpoint_id is not None))
        await settle(pilot)
        await pilot.press("5")  # the diff pane: its file changes can be diffed, not rolled back
        await settle(pilot)
        keys = footer_keys(app)
        assert not {"r", "R", "u"} & keys
        assert "v" in keys
        offered = palette(app)
        assert not {"gc", "stats", "rollback", "undo_rollback", "toggle_pin", "memory_items"} & offered
        shown = help_rows(app)
        assert "Roll back the selected" not in shown and "GC preview" not in shown
        assert "Pin / unpin the highlighted task" not in shown
        # The keys do nothing harmful: no screen opens, nothing is written.
        before = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
        for key in ("g", "s", "r", "R", "u", "p", "i"):
            await pilot.press(key)
            await settle(pilot)
            assert type(app.screen).__name__ == "MainScreen"
        assert {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()} == before


async def test_ra_aid_offers_its_memory_items_and_their_curation(tmp_path):
    project = shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "ra")
    source = RaAidSource(project / ".ra-aid" / "pk.db")
    app = make_app(project, source=source)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "memory_items" in palette(app)
        assert not {"gc", "stats", "rollback"} & palette(app)
        await pilot.press("i")
        await settle(pilot)
        assert type(app.screen).__name__ == "MemoryItemsScreen"
        assert {"d", "space"} <= footer_keys(app)


async def test_read_only_offers_no_writing_action(demo):
    app = make_app(demo, browse_only=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert not {"rollback", "undo_rollback", "toggle_pin"} & palette(app)
        assert "r" not in footer_keys(app)
        await pilot.press("g")  # the GC preview only reads: offered; collecting and pinning are not
        await settle(pilot)
        assert type(app.screen).__name__ == "GcScreen"
        assert "nothing can be collected from here" in str(app.screen.query_one("#gc-title").render())
        assert not {"a", "p", "c"} & footer_keys(app)
        assert not {"apply_gc", "toggle_pin", "cancel_gc"} & palette(app)
        await pilot.press("a", "p")
        await settle(pilot)
        assert type(app.screen).__name__ == "GcScreen"  # no confirm dialog came up
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert "e" not in footer_keys(app)  # memory documents: read, not edited
    with AgentStore.open(demo, readonly=True) as store:
        assert not any(t.pinned for t in store.tasks_by_id(list(range(1, 19))) if t.id != 12)


async def test_a_refused_key_says_why_and_what_to_do_instead(tmp_path):
    """A Claude Code project opened directly, its sessions recorded in a folder this machine
    lacks: r is not offered, and pressing it says how to proceed (the project folder, or
    --root) instead of nothing."""
    project = shutil.copytree(FIXTURES / "claude_home" / "projects" / "-home-dev-tally", tmp_path / "tally-project")
    source = ClaudeCodeSource.from_path(project)
    app = make_app(project, source=source)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        assert "r" not in footer_keys(app)
        await pilot.press("r")
        await settle(pilot)
        said = [n.message for n in notifications(app)]
        assert said and "can't roll files back" in said[-1]
        assert "/home/dev/tally" in said[-1] and "--root DIR" in said[-1]
        assert type(app.screen).__name__ == "MainScreen"
        await pilot.press("1", "r")  # the sessions pane: r applies nowhere there, so nothing is said
        await settle(pilot)
        assert len(notifications(app)) == len(said)


async def test_a_key_the_source_can_do_says_nothing_about_refusal(demo):
    app = make_app(demo)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("i")  # memory items: RA.Aid's and JSONL stores' only
        await settle(pilot)
        said = [n.message for n in notifications(app)]
        assert said and "can't" in said[-1] and "RA.Aid" in said[-1]
        await pilot.press("s")  # memtui's store can: the statistics open, no refusal
        await settle(pilot)
        assert type(app.screen).__name__ == "StatsScreen"
        assert not any("can't" in n.message for n in list(notifications(app))[len(said):])


async def test_the_header_names_the_opened_store_when_its_recorded_folder_is_not_here(tmp_path):
    """Codex sessions recorded in /home/dev/tally, a folder this machine lacks: the header
    names the home that was opened, not a path the user cannot find."""
    from memtui.core.agents.codex.source import CodexSource

    home = shutil.copytree(FIXTURES / "codex_home", tmp_path / "codex")
    assert not Path("/home/dev/tally").exists()
    app = make_app(home, source=CodexSource.from_path(home))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        header = screen_text(app).splitlines()[0]  # the header line as drawn
        assert "/codex  " in header and "/home/dev/tally" not in header


async def test_the_decision_log_offers_a_only_where_a_decision_can_be_added(tmp_path):
    """A real Claude Code home whose sessions worked in two worktrees has no one workspace to
    keep a decision log in: the empty log does not say "`a` starts DECISIONS.md", and a
    pressed anyway says to open the project folder (not "open a store that records it")."""
    import sys

    sys.path.insert(0, str(FIXTURES.parent / "unit"))
    from real_support import real_home

    app = make_app(real_home("claude-2.1.39-spotter", tmp_path))
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        title = str(app.screen.query_one("#decisions-title").render())
        assert title.startswith("No decision log") and "`a`" not in title
        await pilot.press("a")
        await settle(pilot)
        said = [n.message for n in notifications(app)]
        assert said and "can't edit memory documents" in said[-1]
        assert "open the project folder (memtui PROJECT) to edit its memory documents" in said[-1]
