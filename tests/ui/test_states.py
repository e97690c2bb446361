"""What the user sees when the workspace is missing, unreadable, empty or old, and that
untrusted text from the store is shown literally."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from memtui.core.store import AgentStore
from memtui.ui.screens.main import MainScreen
from memtui.ui.screens.notice import NoticeScreen
from memtui.ui.screens.step_detail import StepDetailScreen, render_value
from memtui.ui.text import sanitize
from memtui.ui.widgets.sessions_table import SessionsTable
from memtui.ui.widgets.task_tree import TaskTree
from memtui.ui.widgets.workspace_bar import WorkspaceBar

from conftest import screen_text
from crafted_store import HOSTILE_RESULT, HOSTILE_TITLE

SIZE = (160, 48)




async def _notice(app, settled) -> NoticeScreen:
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, NoticeScreen)
        text = screen_text(app)
        await pilot.press("q")
    return screen, text


async def test_missing_workspace(tmp_path: Path, app_for, settled) -> None:
    screen, text = await _notice(app_for(tmp_path / "nowhere"), settled)
    assert screen.title_text == "No workspace here"
    assert "memtui demo" in text and "nowhere" in text
    assert "Traceback" not in text


async def test_directory_without_store(tmp_path: Path, app_for, settled) -> None:
    screen, text = await _notice(app_for(tmp_path), settled)
    assert screen.title_text == "No memtui store here"
    assert "memtui demo" in text
    assert " ".join(text.split()).count("memtui demo") == 1  # the hint says it once, not the message too


async def test_unreadable_database(tmp_path: Path, app_for, settled) -> None:
    db = tmp_path / ".agent" / "agent.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not sqlite at all" * 100)
    screen, text = await _notice(app_for(tmp_path), settled)
    assert screen.title_text == "Cannot read this database"
    assert "not a SQLite database" in text


async def test_database_from_a_newer_memtui(tmp_path: Path, app_for, settled) -> None:
    AgentStore.open(tmp_path).close()
    con = sqlite3.connect(tmp_path / ".agent" / "agent.db")
    con.execute("PRAGMA user_version = 99")
    con.close()
    screen, text = await _notice(app_for(tmp_path), settled)
    assert screen.title_text == "Cannot read this database"
    assert "newer memtui" in text


async def test_empty_workspace_hints_at_the_demo(tmp_path: Path, open_app) -> None:
    AgentStore.open(tmp_path).close()
    async with open_app(tmp_path, size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app.screen, NoticeScreen)
        assert app.screen.title_text == "This workspace has no sessions yet"
        assert "memtui demo" in screen_text(app)


async def test_older_schema_is_browsed_read_only(crafted_path: Path, tmp_path: Path, open_app) -> None:
    copy = tmp_path / "old"
    shutil.copytree(crafted_path, copy)
    con = sqlite3.connect(copy / ".agent" / "agent.db")
    con.execute("PRAGMA user_version = 1")
    con.close()
    before = (copy / ".agent" / "agent.db").read_bytes()
    async with open_app(copy, size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app.screen, MainScreen)
        assert app.store.readonly and app.store.needs_upgrade
        badge = str(app.screen.query_one(WorkspaceBar).query_one("#ws-badge").render())
        assert badge == "older schema"  # writes stay on offer: the first one upgrades the store
        assert app.screen.query_one(SessionsTable).row_count == 1
    assert (copy / ".agent" / "agent.db").read_bytes() == before  # browsing wrote nothing


async def test_browsing_never_writes(demo_path: Path, settled, open_app) -> None:
    db = demo_path / ".agent" / "agent.db"
    before = db.read_bytes()
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("down", "down", "enter", "enter", "down")
        await settled(pilot)
    assert db.read_bytes() == before
    wal = demo_path / ".agent" / "agent.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # SQLite's read-only side files, nothing written


async def test_hostile_text_is_shown_literally(crafted_path: Path, settled, open_app) -> None:
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        table = app.screen.query_one(SessionsTable)
        title_cell = table.get_row_at(0)[0]
        assert title_cell.plain == sanitize(HOSTILE_TITLE)
        assert "[bold red]pwned[/]" in title_cell.plain and "␛[31m" in title_cell.plain
        assert not title_cell.spans  # no style came from the data
        tree = app.screen.query_one(TaskTree)
        assert any("[bold red]pwned[/]" in node.label.plain for node in tree.root.children)
        text = screen_text(app)
        assert "\x1b" not in text and "\x07" not in text
        assert "[bold red]pwned[/]" in text
        # The step detail: a result full of markup and escapes, literally.
        tree.select_task(tree.root.children[0].data.id)
        await settled(pilot)
        assert "Steps · Edit a long file [bold red]pwned[/] ␛[31mred" in screen_text(app)  # pane title
        await pilot.press("3", "enter")
        await settled(pilot)
        assert isinstance(app.screen, StepDetailScreen)
        text = screen_text(app)
        assert "[link=https://evil.example]click[/link]" in text
        assert "␛]0;title␇" in text and "\x1b" not in text
        assert '"note": "[b]x[/b]"' in text
        # Diff lines of a file holding markup.
        await pilot.press("escape", "5", "v")
        await settled(pilot)
        assert "[red]literal[/red]" in screen_text(app)


def test_render_value_keeps_markup_and_escapes_visible() -> None:
    shown = render_value(HOSTILE_RESULT)
    plain = shown.plain
    assert "[link=https://evil.example]click[/link]" in plain
    assert "\x1b" not in plain and "␛[2J" in plain
    assert "[red]" in render_value({"k": "[red]x[/red]\x1b"}).plain


async def test_tool_output_colours_render_and_n_p_walk_the_steps(tmp_path: Path, open_app, settled,
                                                                  shown) -> None:
    """SGR colour codes in a tool's output are rendered (no `␛[31m` on screen); any other
    escape stays visible; n / p in the step detail move to the task's next / previous step."""
    with AgentStore.open(tmp_path) as store:
        task = store.start_task(store.start_session("colours"), "Run the tests")
        store.record_step(task, "bash", {"command": "pytest"}, "\x1b[31mFAILED\x1b[0m 2 tests \x1b[2J", status="error")
        store.record_step(task, "bash", {"command": "pytest -x"}, "\x1b[32mpassed\x1b[0m")
    async with open_app(tmp_path) as pilot:
        app = pilot.app
        await pilot.press("3", "home", "enter")
        await settled(pilot)
        detail = app.screen
        assert isinstance(detail, StepDetailScreen) and detail.step.seq == 1
        text = shown(app)
        assert "FAILED 2 tests ␛[2J" in text and "␛[31m" not in text
        result = detail.query_one("#step-result").render()
        assert any(span.style and "red" in str(span.style) for span in result.spans)
        await pilot.press("n")
        await settled(pilot)
        assert app.screen.step.seq == 2 and "passed" in shown(app)
        await pilot.press("p")
        await settled(pilot)
        assert app.screen.step.seq == 1


async def test_columns_share_the_width_at_100x30_and_220x60(demo_path: Path, open_app, settled, shown) -> None:
    """Wide: the current task's title is shown in full, not cut at a fixed 22 characters.
    Narrow: the statistics keep their numbers and the decision log its why column."""
    async with open_app(demo_path, size=(220, 60)) as pilot:
        assert "Profile and shorten slow tests      " in shown(pilot.app).splitlines()[3]
        await pilot.resize_terminal(100, 30)  # the same app, narrowed
        await settled(pilot)
        await pilot.press("s")
        await settled(pilot)
        assert "bytes" in shown(pilot.app) and "share" in shown(pilot.app)
        await pilot.press("escape", "D")
        await settled(pilot)
        assert " why " in shown(pilot.app).splitlines()[1]


async def test_at_100x30_titles_and_paths_are_readable_not_every_column_cut(demo_path: Path, open_app, settled,
                                                                          shown) -> None:
    """Narrow: the sessions list leaves out the current task (the tasks pane names it) and the
    stored bytes before cutting session titles to eight characters; the changed files leave
    out the size before cutting the path. Wide: every column is back."""
    from memtui.ui.widgets.checkpoint_files import CheckpointFiles
    from memtui.ui.widgets.sessions_table import SessionsTable

    async with open_app(demo_path, size=(100, 30)) as pilot:
        app = pilot.app
        text = shown(app)
        assert "Speed up the test suite" in text and "Refactor the parser with" in text
        assert [str(c.key.value) for c in app.screen.query_one(SessionsTable).columns.values()] == [
            "title", "status", "tasks", "activity"]
        await pilot.press("j", "j")  # session 8: a checkpoint that adds docs/draft.md
        await settled(pilot)
        assert "docs/draft.md" in shown(app)
        files = app.screen.query_one(CheckpointFiles)
        assert "size" not in [str(c.key.value) for c in files.columns.values()]
        assert files.current_record() is not None and files.current_record().path == "docs/draft.md"
        await pilot.resize_terminal(160, 48)  # the same app, widened
        await settled(pilot)
        assert [str(c.key.value) for c in pilot.app.screen.query_one(SessionsTable).columns.values()] == [
            "title", "status", "current", "tasks", "cost", "bytes", "activity"]
        assert "Current task" in shown(pilot.app)
