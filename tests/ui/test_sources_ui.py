"""Other agents' stores in the app: opening them, the source switcher, memory items and
their curation, partial file changes; snapshots of the panes on RA.Aid and Claude Code.

Deterministic: fixtures are opened by relative path from tests/fixtures, the clock is
fixed, the time zone is UTC, and no real ~/.claude or ~/.codex is looked at.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from textual.widgets import DataTable, OptionList
from textual.worker import WorkerState

from memtui.core.sources.base import SourceEntryInfo
from sources_support import FIXTURES
from memtui.ui.app import make_app
from pilot_support import settle
from memtui.ui.screens.memory_items import MemoryItemsScreen
from memtui.ui.screens.sources import SourcesScreen
from memtui.ui.widgets.diff_pane import DiffPane

SIZE = (130, 40)
S21 = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"


def clock() -> datetime:
    return datetime(2025, 6, 10, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def fixed_world(monkeypatch, tmp_path):
    """cwd = tests/fixtures, UTC, and empty agent homes."""
    old_tz = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    monkeypatch.chdir(FIXTURES)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    yield
    if old_tz is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = old_tz
    time.tzset()


# ---------------------------------------------------------------- behaviour

async def test_a_ra_aid_workspace_opens_in_the_panes(fixed_world, open_app):
    async with open_app(Path("ra_aid_project"), clock=clock, shown_path=None, size=SIZE) as pilot:
        app = pilot.app
        assert app.source.kind == "ra-aid" and app.store is None
        assert app.screen.query_one("#sessions", DataTable).row_count == 3
        assert "RA.Aid" in str(app.screen.query_one("#ws-name").render())


async def test_memory_items_show_ids_and_keep_protected_items(fixed_world, open_app):
    async with open_app(Path("ra_aid_project"), clock=clock, shown_path=None, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, MemoryItemsScreen)
        options = app.screen.query_one(OptionList)
        ids = [o.id for o in options.options if o.id]
        assert ids == ["fact:1", "fact:3", "fact:4", "fact:5", "snippet:1", "snippet:2", "note:1", "note:2", "note:3"]
        options.highlighted = options.get_option_index("fact:5")  # tied to the newest input
        await pilot.press("space")
        assert app.screen.marked == set()
        await pilot.press("escape")
        assert not isinstance(app.screen, MemoryItemsScreen)


async def test_curating_from_the_items_screen(fixed_world, tmp_path, open_app):
    project = shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "tally")
    async with open_app(project, clock=clock, shown_path=None, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("i")
        await settle(pilot)
        await pilot.press("space")  # the first item, key fact #1
        assert app.screen.marked == {"fact:1"}
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        assert "fact:1" not in [o.id for o in options.options]
    conn = sqlite3.connect(project / ".ra-aid" / "pk.db")
    assert [r[0] for r in conn.execute("SELECT id FROM key_fact ORDER BY id")] == [3, 4, 5]
    conn.close()


async def test_the_switcher_moves_between_stores_of_a_workspace(fixed_world, tmp_path, monkeypatch, open_app):
    from sources_support import copy_fixture
    workspace = shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "tally")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(copy_fixture("claude_home", tmp_path / "claude", workspace)))
    monkeypatch.setenv("CODEX_HOME", str(copy_fixture("codex_home", tmp_path / "codex", workspace)))
    async with open_app(workspace, clock=clock, shown_path=None, size=SIZE) as pilot:
        app = pilot.app
        assert app.source.kind == "ra-aid"
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, SourcesScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 4  # memory files, RA.Aid, Claude Code, Codex
        assert table.cursor_row == 1  # the source shown now
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.source.kind == "claude-code"
        assert app.screen.query_one("#sessions", DataTable).row_count == 2
        await pilot.press("S")
        await settle(pilot)
        await pilot.press("escape")
        assert app.source.kind == "claude-code"
        await pilot.press("S")
        await settle(pilot)
        rows = app.screen.rows
        app.screen.query_one(DataTable).move_cursor(row=next(i for i, r in enumerate(rows)
                                                             if r.source.kind == "memory-files"))
        await pilot.press("enter")  # Memory files: documents, shown in the memory pane
        await settle(pilot)
        assert type(app.screen).__name__ == "MemoryScreen" and app.source.kind == "claude-code"


async def test_a_change_without_full_contents_is_explained():
    from textual.app import App
    from textual.widgets import Static

    class Host(App):
        def compose(self):
            yield DiffPane(id="diff")

    async with Host().run_test() as pilot:
        diff = pilot.app.query_one(DiffPane)
        whole = SourceEntryInfo("e", "c", "a.py", "modified", 1, 2)
        assert not diff.show_partial(whole)
        partial = SourceEntryInfo("e", "c", "a.py", "modified", None, None, before_known=False, after_known=False,
                                  unknown_reason="Codex records only the patch hunks", diff="@@\n-x\n+y")
        assert diff.show_partial(partial)
        await pilot.pause()
        shown = diff.query_one("#diff-message-text", Static).render()
        assert "patch hunks" in str(shown) and "-x\n+y" in str(shown)


# ---------------------------------------------------------------- snapshots

async def on_last_task(pilot) -> None:
    """Settle, then walk the task tree to its top and down to its last line (3 lines here),
    so the steps shown are that task's whatever order the first load's messages came in."""
    await settle(pilot)
    await pilot.press("2", "up", "up", "up", "down", "down")
    await settle(pilot)


def test_snapshot_ra_aid_sessions_tasks_steps(fixed_world, snap_compare):
    async def server_session(pilot):
        await settle(pilot)  # session 3 (newest, first): spawned by the server, one input

    assert snap_compare(make_app(Path("ra_aid_project"), clock=clock), terminal_size=SIZE, run_before=server_session)


def test_snapshot_ra_aid_memory_items(fixed_world, snap_compare):
    async def items(pilot):
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)

    assert snap_compare(make_app(Path("ra_aid_project"), clock=clock), terminal_size=SIZE, run_before=items)


def test_snapshot_source_switcher(fixed_world, snap_compare):
    async def switcher(pilot):
        await settle(pilot)
        await pilot.press("down", "down")  # a one-input session: the panes behind are settled
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)

    assert snap_compare(make_app(Path("ra_aid_project"), clock=clock), terminal_size=SIZE, run_before=switcher)


def test_snapshot_claude_code_turn_with_a_file_history_diff(fixed_world, snap_compare):
    # One project's folder: its sessions share the recorded cwd, which the header shows.
    app = make_app(Path("claude_home/projects/-home-dev-tally"), clock=clock)
    # The newest session, "Add verbose flag to tally CLI" (2.1.x), then its second turn:
    # that edit's before comes from the file-history backup.
    assert snap_compare(app, terminal_size=SIZE, run_before=on_last_task)


async def test_real_claude_code_session_opens_with_its_prompts_only(tmp_path):
    """A real 2.1.39 session (tests/fixtures/real): the two typed prompts are its tasks, the
    injected lines are steps, the summariser is no task, and no worker fails."""
    import sys

    sys.path.insert(0, str(FIXTURES.parent / "unit"))
    from real_support import real_home
    from memtui.ui.widgets.task_tree import TaskTree

    home = real_home("claude-2.1.39-spotter", tmp_path)
    project = home / "projects" / "-home-USER-projects-spotter-worktrees-spotter-gqc"
    app = make_app(project, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.source.kind == "claude-code"
        tree = app.screen.query_one(TaskTree)
        titles, stack = [], list(tree.root.children)
        while stack:
            node = stack.pop(0)
            titles.append(node.data.title)
            stack.extend(node.children)
        assert sorted(titles)[:2] == ["Implement spotter-gqc", "What is the output contract for Claude Code hooks, "
                                                               "specifically for SessionStar…"]
        assert len(titles) == 3 and "did you push?" in titles
        assert not [w for w in app.workers if w.state == WorkerState.ERROR]
