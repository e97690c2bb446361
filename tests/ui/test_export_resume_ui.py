"""x exports the highlighted session or task from the app; a resumes a Claude Code or Codex
session in its agent, or says which binary is missing and shows the command to copy."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, RadioSet, Static

from memtui.ui.app import make_app
from memtui.ui.screens.export import ExportScreen
from memtui.ui.screens.resume import ResumeScreen

from conftest import fixed_clock, notifications, screen_text
from pilot_support import settle
from sources_support import agent_homes

SIZE = (160, 48)


async def _export_to(pilot, target: Path, fmt_index: int = 0) -> ExportScreen:
    await pilot.press("x")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ExportScreen)
    if fmt_index:
        screen.query_one(RadioSet).query("RadioButton")[fmt_index].value = True
        await pilot.pause()
    screen.query_one("#export-path", Input).value = str(target)
    await pilot.click("#export-go")
    await settle(pilot)
    return screen


async def test_x_on_the_sessions_pane_exports_the_session(demo_path, tmp_path):
    target = tmp_path / "session.html"
    app = make_app(demo_path, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _export_to(pilot, target)
        assert not isinstance(app.screen, ExportScreen)
    page = target.read_text()
    assert "<h1>memtui export — session 10: Speed up the test suite</h1>" in page
    assert "Profile and shorten slow tests" in page and "<script" not in page


async def test_x_on_the_task_tree_exports_the_task_as_markdown(demo_path, tmp_path):
    target = tmp_path / "task.md"
    app = make_app(demo_path, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await _export_to(pilot, target, fmt_index=1)
    text = target.read_text()
    assert text.startswith("# memtui export — task 18: Profile and shorten slow tests")


async def test_export_never_overwrites_and_says_so(demo_path, tmp_path):
    target = tmp_path / "taken.html"
    target.write_text("mine")
    app = make_app(demo_path, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _export_to(pilot, target)
        assert app.screen is screen
        assert "exists; choose another name" in str(screen.query_one("#export-status", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen)
    assert target.read_text() == "mine"


async def test_resume_is_refused_in_one_line_on_memtuis_own_store(demo_path):
    app = make_app(demo_path, clock=fixed_clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert [n.message for n in notifications(app)][-1].endswith(
            "can't resume a session in its agent: only Claude Code, Codex, Gemini CLI, OpenCode, Aider and Cline CLI sessions can be resumed in their agent")


async def test_a_missing_claude_binary_is_named_with_the_command_to_copy(tmp_path, monkeypatch):
    workspace, env = agent_homes(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    app = make_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        assert "Claude is not on PATH" in str(screen.query_one("#resume-why", Static).render())
        command = f"cd {workspace} && claude --resume 5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"
        assert screen.plan.shell_line == command
        # The whole line on screen, `cd` to the session id (a one-line box scrolled its start away).
        box, lines = screen.query_one("#resume-command").content_region, screen_text(app).splitlines()
        drawn = "".join(lines[y][box.x:box.right] for y in range(box.y, box.bottom))
        assert drawn.replace(" ", "") == command.replace(" ", ""), drawn
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ResumeScreen)


async def test_resuming_an_archived_session_says_to_restore_it_first(tmp_path):
    """A session memtui archived is listed beside the live ones; a on it said nothing to the
    user and ended the app with a traceback (ArchiveError from the source)."""
    from memtui.core.cleanup import apply_cleanup, plan_cleanup
    from memtui.core.homes import take_inventory
    from memtui.core.places import archive_dir
    from memtui.ui.widgets.sessions_table import SessionsTable
    from tests.unit.cleanup_homes import NOW, build_claude_home

    home = tmp_path / "claude"
    ids = build_claude_home(home)
    apply_cleanup(plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW), archive_dir(), level=3)
    app = make_app(home)
    async with app.run_test(size=(130, 40), notifications=True) as pilot:
        await settle(pilot)
        table = app.screen.query_one(SessionsTable)
        archived = next(r for r in table.records if r.status == "archived")
        table.select_key(table.row_key(archived))
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert app.is_running and type(app.screen).__name__ == "MainScreen"
        said = [n.message for n in notifications(app)]
        assert said and f"restore it first (memtui restore --session {archived.id})" in said[-1]
        assert archived.id in ids.values()


async def test_at_80x24_the_export_dialog_fits_with_its_buttons_on_screen(demo_path, tmp_path):
    """At 80×24 the dialog was 84 columns wide and its Export and Cancel buttons were below the
    screen's last row: a user saw a form with no way to send it."""
    app = make_app(demo_path, clock=fixed_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        assert screen.query_one("#export-dialog").outer_size.width <= 80
        for button in ("#export-go", "#export-cancel"):
            region = screen.query_one(button).region
            assert region.bottom <= 24 and region.right <= 80, (button, region)
            assert screen.get_widget_at(*region.center)[0] is screen.query_one(button), button
        target = tmp_path / "small.html"
        screen.query_one("#export-path", Input).value = str(target)
        await pilot.click("#export-go")
        await settle(pilot)
    assert target.exists()


async def test_a_session_open_in_a_running_claude_is_not_resumed_beside_it(tmp_path, monkeypatch):
    """The sessions pane says 'open' (a live process has the session in sessions/<pid>.json):
    a pressed there started a second claude on the same transcript. It says why instead, with
    the command to run once that one is closed."""
    import json
    import os

    workspace, env = agent_homes(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    session = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"
    registry = Path(env["CLAUDE_CONFIG_DIR"]) / "sessions"
    registry.mkdir()
    (registry / f"{os.getpid()}.json").write_text(json.dumps({"pid": os.getpid(), "sessionId": session}))
    ran = tmp_path / "claude-ran"
    binaries = tmp_path / "bin"
    binaries.mkdir()
    (binaries / "claude").write_text(f"#!/bin/sh\ntouch {ran}\n")
    (binaries / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{binaries}{os.pathsep}{os.environ['PATH']}")
    app = make_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.source.sessions()[0].status == "open"
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResumeScreen)
        why = str(screen.query_one("#resume-why", Static).render())
        assert "open in a running claude" in why, why
        assert screen.plan.shell_line == f"cd {workspace} && claude --resume {session}"
    assert not ran.exists()
