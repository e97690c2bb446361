"""A Claude Code workspace as discovery opens it (its store wrapped with memtui's archive of
its sessions): a rollback's undo is kept in memtui's state folder, the dialog says so, and
`u` finds it and undoes it."""

from __future__ import annotations

from sources_support import agent_homes, discovered

from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.ui.app import make_app
from memtui.ui.screenshots import settle

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
        assert type(app.screen).__name__ == "RollbackScreen", [n.message for n in app._notifications]
        assert done.undo_checkpoint in str(app.screen.query_one("#rollback-title").render())
        notes = str(app.screen.query_one("#rollback-notes").render())
        assert "recorded in memtui's state folder" in notes and "replaced for good" not in notes
        await pilot.press("y")
        await settle(pilot)
    assert (workspace / "tally" / "cli.py").read_text() == texts.CLI_V3
