"""Snapshots of the main screen's panes on the seeded demo (160×48, fixed clock, UTC,
cursor blink off). Review with `pytest tests/ui/test_main_snapshots.py --snapshot-update`
and the report, then commit the SVGs."""

from __future__ import annotations

from pathlib import Path

from pilot_support import open_session, open_step, settle
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.task_tree import TaskTree

SIZE = (160, 48)


_open_session = open_session
_open_step = open_step


class TestMainScreen:
    def test_opens_on_newest_session(self, snap_compare, demo_path: Path, app_for) -> None:
        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=settle)

    def test_handoff_tree(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await _open_session(pilot, "Refactor the parser with sub-agents")
            await pilot.press("2")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_orphans(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await settle(pilot)
            pilot.app.screen.query_one(SessionsTable).select_key("orphans")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_step_timeline_with_checkpoint_diff(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await _open_step(pilot, "Add request routing with path parameters",
                             "Fix path parameters after review", 7, "3")

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_split_diff(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await _open_step(pilot, "Add request routing with path parameters",
                             "Fix path parameters after review", 3, "5")
            await pilot.press("v")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_zoomed_whole_file_after(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await _open_step(pilot, "Add request routing with path parameters",
                             "Fix path parameters after review", 3, "5")
            await pilot.press("z", "f")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_filter_sessions(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await settle(pilot)
            await pilot.press("slash", *"sub-agent")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)


class TestOtherScreens:
    def test_step_detail(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await _open_step(pilot, "Add request routing with path parameters",
                             "Fix path parameters after review", 7, "3")
            await pilot.press("enter")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_help(self, snap_compare, demo_path: Path, app_for) -> None:
        async def run(pilot):
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)

        assert snap_compare(app_for(demo_path), terminal_size=SIZE, run_before=run)

    def test_missing_workspace(self, snap_compare, app_for) -> None:
        app = app_for(Path("/nonexistent/memtui-workspace"))
        assert snap_compare(app, terminal_size=SIZE, run_before=settle)

    def test_hostile_text(self, snap_compare, crafted_path: Path, app_for) -> None:
        async def run(pilot):
            await settle(pilot)
            tree = pilot.app.screen.query_one(TaskTree)
            tree.select_task(tree.root.children[0].data.id)
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)

        assert snap_compare(app_for(crafted_path), terminal_size=SIZE, run_before=run)
