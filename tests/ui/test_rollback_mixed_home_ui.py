"""The rollback dialog on a Claude Code home whose sessions worked in different folders (real
transcripts): a task rolls back under its own session's folder, and `u` undoes it — the same
core functions as `memtui rollback` (tests/unit/test_rollback_mixed_home.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from memtui.core.memory_source import Capability
from memtui.ui.app import make_app
from memtui.ui.screens.rollback import start_rollback
from pilot_support import settle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from mixed_homes import PLAN_TASK, SPOTTER, claude_home, moved, written_plan  # noqa: E402
from conftest import notifications


def files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_a_task_of_a_mixed_home_rolls_back_in_its_session_folder_and_is_undone(tmp_path):
    home = claude_home(tmp_path)
    project = tmp_path / "spotter"
    project.mkdir()
    moved(home, SPOTTER, project)
    content = written_plan(home)
    (project / "plan.md").write_bytes(content)
    before = files(home)
    app = make_app(home)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        assert app.source.workspace is None and app.source.can(Capability.ROLLBACK)
        start_rollback(app, "Roll back the plan", task=PLAN_TASK)
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen", [n.message for n in notifications(app)]
        summary = " ".join(str(app.screen.query_one("#rollback-summary").render()).split())
        notes = " ".join(str(app.screen.query_one("#rollback-notes").render()).split())
        assert "outside" not in summary and f"restored under {project}" in notes
        assert app.screen.query_one("#rollback-confirm").display
        await pilot.press("y")
        await settle(pilot)
        assert not (project / "plan.md").exists()
        await pilot.press("u")
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen", [n.message for n in notifications(app)]
        await pilot.press("y")
        await settle(pilot)
    assert (project / "plan.md").read_bytes() == content
    assert files(home) == before  # the agent's home is not written; the undo is in memtui's state folder
