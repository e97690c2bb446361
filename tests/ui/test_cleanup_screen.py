"""The cleanup screen (C) on a Claude Code home: preview with reasons, archive, restore,
typed confirmation for delete, and nothing written to the home while browsing."""

from __future__ import annotations

from textual.widgets import Input, Static

from memtui.ui.app import make_app
from memtui.ui.screens.cleanup import CleanupScreen
from pilot_support import settle
from memtui.core.cleanup import Manifest
from memtui.ui.widgets.cleanup_tree import CleanupTree, SessionRow, row_key
from tests.unit.cleanup_homes import NOW, build_claude_home, snapshot

SIZE = (150, 44)


def rows(screen) -> dict[str, SessionRow]:
    tree = screen.query_one(CleanupTree)
    return {n.data.session.id: n.data for p in tree.root.children for n in p.children if isinstance(n.data, SessionRow)}


async def open_cleanup(pilot):
    await settle(pilot)
    await pilot.press("C")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CleanupScreen)
    return screen


async def archive(pilot) -> None:
    """a, then yes: archive what the plan lets go, and wait for the run and the reload after it."""
    await pilot.press("a")
    await pilot.pause()
    await pilot.press("y")
    await settle(pilot)


def find(tree: CleanupTree, session_id: str):
    """The line of a session, or of its entry under "archived by memtui"."""
    return next((node for parent in tree.root.children for node in parent.children
                 if isinstance(node.data, (SessionRow, Manifest)) and row_key(node.data)[1] == session_id), None)


async def select(pilot, session_id: str) -> None:
    """Open the session's group and put the cursor on it. Follow mode may rebuild the tree at
    any await (it notices the home changed): the line is looked up again after one."""
    tree = pilot.app.screen.query_one(CleanupTree)
    node = find(tree, session_id)
    assert node is not None, f"{session_id} not in the tree"
    node.parent.expand()
    await pilot.pause()
    tree.move_cursor(find(tree, session_id))
    await pilot.pause()
    assert row_key(tree.current_row())[1] == session_id


async def test_preview_shows_every_decision_with_its_reason_and_writes_nothing(tmp_path):
    home = tmp_path / "claude"
    ids = build_claude_home(home)
    before = snapshot(home)
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_cleanup(pilot)
        got = rows(screen)
        # The defaults: 30 days, the 5 newest of each project: alpha's sixth (70 days old) goes.
        assert got[ids["pinned"]].decision.action == "archive" and got[ids["old1"]].decision.action == "keep"
        assert got[ids["live"]].decision.action == "keep"
        await select(pilot, ids["open"])
        explain = str(screen.query_one("#cleanup-explain", Static).render())
        assert "live: its last turn has not ended" in explain
        await pilot.press("escape")
        await settle(pilot)
    assert snapshot(home) == before


async def test_archive_then_restore_from_the_screen(tmp_path):
    home = tmp_path / "claude"
    ids = build_claude_home(home)
    before = snapshot(home)
    oldest = ids["pinned"]  # not pinned here: the sixth of its project, 70 days old
    transcript = home / "projects/-work-alpha" / f"{oldest}.jsonl"
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_cleanup(pilot)
        await archive(pilot)
        assert not transcript.exists()
        assert oldest not in rows(screen)
        await select(pilot, oldest)  # now under "archived by memtui"
        await pilot.press("r")
        await settle(pilot)
        assert transcript.exists()
    assert snapshot(home)[str(transcript)] == before[str(transcript)]


async def test_a_reload_leaves_the_cursor_and_the_open_groups_as_they_were(tmp_path):
    """A reload (ctrl+r here; follow mode does the same whenever the home changes) rebuilds
    the tree: the project the user opened stays open and r still restores the session the
    cursor was on, not the row that took its line."""
    home = tmp_path / "claude"
    ids = build_claude_home(home)
    oldest = ids["pinned"]
    transcript = home / "projects/-work-alpha" / f"{oldest}.jsonl"
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_cleanup(pilot)
        await archive(pilot)
        tree = screen.query_one(CleanupTree)

        def opened() -> set:
            return {row_key(n.data) for n in tree.root.children if n.is_expanded}

        alpha = ("project", "/work/alpha")
        assert alpha in opened()  # open before the archive (something went), so still open
        next(n for n in tree.root.children if row_key(n.data) == alpha).collapse()
        await select(pilot, oldest)  # opens the archived group
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert alpha not in opened() and ("archived", None) in opened()
        assert row_key(tree.current_row()) == ("manifest", oldest)
        await pilot.press("up")  # the group's own line
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert row_key(tree.current_row()) == ("archived", None)
        await pilot.press("down")
        assert row_key(tree.current_row()) == ("manifest", oldest)
        await pilot.press("r")
        await settle(pilot)
        assert transcript.exists()


async def test_delete_needs_the_word_typed(tmp_path):
    home = tmp_path / "claude"
    ids = build_claude_home(home)
    transcript = home / "projects/-work-alpha" / f"{ids['pinned']}.jsonl"
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await open_cleanup(pilot)
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")  # not typed: nothing happens
        await pilot.press("enter")
        await settle(pilot)
        assert transcript.exists()
        field = pilot.app.screen.query_one(Input)
        field.value = "delete"
        await pilot.press("enter")
        await settle(pilot)
        assert not transcript.exists()


async def test_an_archived_session_reads_archived_in_the_sessions_list(tmp_path, shown):
    """Archived from the cleanup screen while the app follows the home, the session is listed
    as archived at once: not as a ghost (its transcript gone, no time, 0 tasks) that broke the
    list's ordering ("unreadable: 'NoneType' object has no attribute 'timestamp'")."""
    home = tmp_path / "claude"
    build_claude_home(home)
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await open_cleanup(pilot)
        await archive(pilot)
        await pilot.press("escape")
        for _ in range(100):  # follow mode notices the change on its next poll
            await settle(pilot)
            statuses = [line for line in shown(app).splitlines()[1:] if "archiv" in line]  # below the header
            if statuses:
                break
            await pilot.pause(0.05)
        assert statuses and all(" archived " in line for line in statuses), statuses  # not "archiv…"
        assert "unreadable" not in shown(app)


async def test_a_codex_rollout_removed_while_followed_leaves_the_list_readable(tmp_path, shown):
    """A rollout moved away while the app follows a Codex home (a `memtui cleanup` run in
    another terminal): the reload lists the other sessions, not "unreadable: … No such file"."""
    from tests.unit.cleanup_homes import build_codex_home

    home = tmp_path / "codex"
    build_codex_home(home)
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "do open" in shown(app)
        [rollout] = [r for r in home.rglob("rollout-*.jsonl") if "do open" in r.read_text()]
        rollout.unlink()
        await pilot.press("ctrl+r")
        await settle(pilot)
        text = shown(app)
        assert "unreadable" not in text and "No such file" not in text
        assert "do recent" in text and "Old thread" in text and "do open" not in text


async def test_an_unreadable_pins_file_is_shown_and_nothing_is_planned_or_pinned(tmp_path):
    """A pins file with a trailing comma is not "no pins": the screen says which file and
    what to do, offers nothing to archive, and p does not replace the file."""
    from conftest import notifications
    from memtui.core.cleanup import state_dir

    home = tmp_path / "claude"
    ids = build_claude_home(home)
    pins = state_dir() / "pins.json"
    pins.parent.mkdir(parents=True)
    pins.write_text('{"claude-code": ["%s",]}\n' % ids["pinned"])
    app = make_app(home, clock=lambda: NOW)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_cleanup(pilot)
        explain = str(screen.query_one("#cleanup-explain", Static).render())
        assert f"cannot read memtui's pins {pins}" in explain and "Traceback" not in explain
        assert rows(screen) == {}  # no plan: nothing offered to archive
        pins.write_text('{"claude-code": ["%s"]}\n' % ids["pinned"])
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert rows(screen)[ids["pinned"]].decision.reason == "pinned"
        pins.write_text("{,}\n")  # broken again behind the screen's back
        await select(pilot, ids["old1"])
        await pilot.press("p")
        await settle(pilot)
        assert any("cannot read memtui's pins" in n.message and n.severity == "error" for n in notifications(app))
    assert pins.read_text() == "{,}\n"
