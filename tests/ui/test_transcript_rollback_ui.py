"""A Claude Code workspace as discovery opens it (its store wrapped with memtui's archive of
its sessions): a rollback's undo is kept in memtui's state folder, the dialog says so, and
`u` finds it and undoes it."""

from __future__ import annotations

from sources_support import agent_homes, discovered

from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.ui.app import make_app
from pilot_support import settle
from conftest import notifications

S21 = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"


async def test_u_undoes_the_last_rollback_of_a_claude_code_store(tmp_path):
    from sources_support import fixture_texts

    texts = fixture_texts()
    workspace, env = agent_homes(tmp_path)
    (workspace / "tally").mkdir()
    (workspace / "tests").mkdir()
    (workspace / "tally" / "cli.py").write_text(texts.CLI_V3)  # as the session left it
    (workspace / "tests" / "test_cli.py").write_text(texts.TEST_V1)
    source = discovered(workspace, env, "claude-code").open()
    done = apply_rollback(source, plan_rollback(source, checkpoint=f"{S21}:u1:before", root=workspace))
    assert done.ok and (workspace / "tally" / "cli.py").read_text() == texts.CLI_V0
    app = make_app(workspace, source=source)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert type(app.screen).__name__ == "RollbackScreen", [n.message for n in notifications(app)]
        assert done.undo_checkpoint in str(app.screen.query_one("#rollback-title").render())
        notes = str(app.screen.query_one("#rollback-notes").render())
        assert "recorded in memtui's state folder" in notes and "replaced for good" not in notes
        await pilot.press("y")
        await settle(pilot)
    assert (workspace / "tally" / "cli.py").read_text() == texts.CLI_V3


async def test_a_file_codex_did_not_record_offers_no_rollback_and_no_undo(tmp_path):
    """Codex keeps no content of a deleted file: rolling it back can write nothing, so the
    dialog offers no Roll back button and says nothing about where an undo would be kept."""
    from memtui.core.errors import ContentUnknown
    from memtui.ui.screens.rollback import RollbackScreen

    workspace, env = agent_homes(tmp_path)
    source = discovered(workspace, env, "codex").open()
    entry = None
    for session in source.sessions():
        for task in source.tasks(session.id):
            for checkpoint in source.checkpoints(task.id):
                for e in source.checkpoint_entries(checkpoint.id):
                    if e.kind != "deleted":
                        continue
                    try:
                        source.read_entry(e.id)
                    except ContentUnknown:
                        entry = entry or e
    assert entry is not None and entry.kind == "deleted"
    plan = plan_rollback(source, entry=entry.id, root=workspace)
    app = make_app(workspace, source=source)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.push_screen(RollbackScreen(plan, f"Roll back {entry.path}", undo=source.undo_kept_in))
        await settle(pilot)
        assert "nothing to change" in str(app.screen.query_one("#rollback-summary").render())
        notes = str(app.screen.query_one("#rollback-notes").render())
        assert "undo" not in notes and "replaced for good" not in notes, notes
        assert not app.screen.query_one("#rollback-confirm").display
