"""Pilot tests: what a user does on the main screen and what they see."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from memtui.core.store import AgentStore
from memtui.ui.commands import COMMANDS
from memtui.ui.screens.help import HelpScreen
from memtui.ui.screens.main import MainScreen
from memtui.ui.screens.step_detail import StepDetailScreen
from memtui.ui.widgets.checkpoint_files import CheckpointFiles
from memtui.ui.widgets.diff_pane import DiffPane
from memtui.ui.widgets.sessions_table import OrphansRow, SessionsTable
from memtui.ui.widgets.step_timeline import StepTimeline
from memtui.ui.widgets.task_tree import TaskTree
from conftest import notifications
from pilot_support import settle



SIZE = (160, 48)


async def test_sessions_newest_first_with_orphans(demo_path: Path, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        table = app.screen.query_one(SessionsTable)
        with AgentStore.open(demo_path, readonly=True) as store:
            expected = [s.id for s in store.sessions()]
            orphans = len(store.tasks(None))
        records = table.records
        assert [r.id for r in records if not isinstance(r, OrphansRow)] == expected
        assert isinstance(records[-1], OrphansRow) and records[-1].count == orphans
        assert table.row_count == len(expected) + 1
        # The first session is highlighted and its tasks and steps are loaded.
        assert app.screen.query_one(TaskTree).session_id == expected[0]
        assert app.screen.query_one(StepTimeline).row_count > 0


async def test_session_task_step_file_diff(demo_path: Path, settled, open_app) -> None:
    """Walk down: a session, its task, a step with a checkpoint, the file, its diff."""
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        sessions = screen.query_one(SessionsTable)
        titles = [getattr(r, "title", "") for r in sessions.records]
        target = titles.index("Add request routing with path parameters")
        for _ in range(target):
            await pilot.press("down")
        await pilot.press("enter")
        await settled(pilot)
        tree = screen.query_one(TaskTree)
        assert screen.focused is tree
        assert tree.current_task() is not None
        await pilot.press("home")
        for _ in range(10):  # down the tree to a task that made checkpoints
            if tree.current_task().checkpoint_count:
                break
            await pilot.press("down")
        await settled(pilot)
        await pilot.press("enter")  # focus the steps of the highlighted task
        await settled(pilot)
        steps = screen.query_one(StepTimeline)
        assert screen.focused is steps
        # Move to the first step that made a checkpoint.
        index = next(i for i, s in enumerate(steps.records) if s.checkpoint_id is not None)
        for _ in range(index - steps.cursor_row):
            await pilot.press("down")
        await settled(pilot)
        files = screen.query_one(CheckpointFiles)
        assert files.row_count >= 1
        entry = files.current_record()
        diff = screen.query_one(DiffPane)
        assert diff.entry is not None and diff.entry.id == entry.id
        assert diff.view.diff is not None and diff.view.diff.path == entry.path
        # The +/- counts arrived.
        assert files.stats.get(entry.id) is not None


async def test_handoff_child_nests_under_parent_from_other_session(demo_path: Path, settled, open_app) -> None:
    with AgentStore.open(demo_path, readonly=True) as store:
        handoff = next(r for r in store.all_references()
                       if r.kind == "handoff" and store.task(r.from_task).session_id != store.task(r.to_task).session_id)
        parent = store.task(handoff.from_task)
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        sessions = app.screen.query_one(SessionsTable)
        assert sessions.select_key(str(parent.session_id))
        await settled(pilot)
        tree = app.screen.query_one(TaskTree)
        parent_node = next(n for n in tree.root.children if n.data.id == parent.id)
        assert handoff.to_task in [child.data.id for child in parent_node.children]
        child = next(c for c in parent_node.children if c.data.id == handoff.to_task)
        assert child.data.session_id != parent.session_id
        label = tree.render_label(child, tree.rich_style, tree.rich_style).plain
        assert f"session {child.data.session_id}" in label


async def test_orphans_reachable(demo_path: Path, settled, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        app.screen.query_one(SessionsTable).select_key("orphans")
        await settled(pilot)
        tree = app.screen.query_one(TaskTree)
        assert tree.session_id is None
        assert all(node.data.session_id is None for node in tree.root.children)
        assert tree.root.children


async def test_split_toggle_and_hunk_keys(crafted_path: Path, settled, open_app) -> None:
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        tree = screen.query_one(TaskTree)
        first = tree.root.children[0].data
        tree.select_task(first.id)
        await settled(pilot)
        await pilot.press("4")  # the changed-files pane
        await settled(pilot)
        files = screen.query_one(CheckpointFiles)
        assert files.current_record().path == "src/long.py"
        diff = screen.query_one(DiffPane)
        assert diff.view.diff is not None and len(diff.view.diff.hunks) == 3
        await pilot.press("5")
        assert not diff.split
        await pilot.press("v")
        assert diff.split
        await pilot.press("v")
        assert not diff.split
        view = diff.view
        start = view.hunk_position()
        await pilot.press("right_square_bracket")
        await pilot.pause()
        after_one = view.hunk_position()
        await pilot.press("right_square_bracket")
        await pilot.pause()
        after_two = view.hunk_position()
        assert start[0] < after_one[0] < after_two[0]
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.hunk_position()[0] == after_one[0]
        # Whole-file views: after, then before, then back to the diff.
        await pilot.press("f")
        assert diff.mode == "after"
        await pilot.press("f")
        assert diff.mode == "before"
        await pilot.press("f")
        assert diff.mode == "diff"
        await pilot.press("f", "v")  # v on a whole file: back to the diff, side by side
        assert diff.mode == "diff" and diff.split


async def test_binary_entry_shows_summary(crafted_path: Path, settled, open_app) -> None:
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        tree = screen.query_one(TaskTree)
        tree.select_task(tree.root.children[0].data.id)
        await settled(pilot)
        files = screen.query_one(CheckpointFiles)
        assert files.select_key(str(next(r.id for r in files.records if r.path == "assets/blob.bin")))
        await settled(pilot)
        diff = screen.query_one(DiffPane)
        assert diff.view.diff.binary
        assert files.stats[files.current_record().id] is None


async def test_filter_focused_list(demo_path: Path, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        screen = app.screen
        sessions = screen.query_one(SessionsTable)
        total = sessions.row_count
        await pilot.press("slash")
        box = screen.query_one("#filter", Input)
        assert screen.focused is box
        await pilot.press(*"sub-agent")
        await pilot.pause()
        assert 0 < sessions.row_count < total
        assert all("sub-agent" in r.title for r in sessions.matching)
        pane = screen.query_one("#sessions-pane")
        assert pane.border_subtitle == f"{sessions.row_count} of {total}"  # the count follows
        await pilot.press("enter")
        assert screen.focused is sessions
        await pilot.press("escape")
        assert sessions.row_count == total and pane.border_subtitle == "10 + 2 orphans"
        # Filtering the step list of the highlighted task.
        steps = screen.query_one(StepTimeline)
        tool = steps.records[-1].tool
        await pilot.press("3", "slash", *tool)
        await pilot.pause()
        assert steps.matching and all(tool in steps.filter_key(s) for s in steps.matching)
        assert steps.row_count == len(steps.matching) <= len(steps.records)


async def test_a_sessions_filter_matching_none_empties_the_tasks_and_steps(demo_path: Path, open_app, settled,
                                                                           shown) -> None:
    """`/` on the sessions with a filter no session matches: the tasks and steps panes are empty
    and say why, as are the files and the diff; they kept the last highlighted session's tasks and
    steps. Clearing the filter shows the first session's again."""
    NO_SESSION_MATCHES = "no session matches the filter"
    async with open_app(demo_path, size=SIZE) as pilot:
        screen = pilot.app.screen
        sessions, tree, steps = screen.query_one(SessionsTable), screen.query_one(TaskTree), screen.query_one(StepTimeline)
        first = sessions.current_record()
        assert tree.session_id == first.id and tree.tasks and steps.records
        shown_task = tree.current_task().title
        await pilot.press("slash", *"zz-no-such-session")
        await settled(pilot)
        assert sessions.row_count == 0
        assert not tree.tasks and tree.current_task() is None and steps.row_count == 0 and not steps.records
        for name in ("#tasks-pane", "#steps-pane"):
            pane = screen.query_one(name)
            assert title(pane) == f"{pane.label} · {NO_SESSION_MATCHES}" and not pane.border_subtitle, name
        text = shown(pilot.app)
        assert shown_task not in text and "No step selected." in text
        assert f"Tasks · {NO_SESSION_MATCHES}" in text and f"Steps · {NO_SESSION_MATCHES}" in text
        await pilot.press("escape")  # the box cleared: every session again, the first highlighted
        await settled(pilot)
        assert sessions.current_record() == first and tree.session_id == first.id and tree.tasks and steps.records
        assert NO_SESSION_MATCHES not in shown(pilot.app)


async def test_help_lists_every_command(demo_path: Path, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        from rich.console import Console

        console = Console(width=200, record=True)
        console.print(app.screen._table())
        text = console.export_text()
        from memtui.ui.commands import offered

        for command in COMMANDS:  # every command memtui's own store can do
            if offered(command, app.source):
                assert command.description in text
        assert "Memory items" not in text  # memtui's store keeps no facts or snippets
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_palette_runs_a_screen_command(demo_path: Path, settled, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        main = app.screen
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"zoom the focused")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settled(pilot)
        assert app.screen is main
        assert main.maximized is not None and main.maximized.id == "sessions-pane"
        await pilot.press("z")
        assert main.maximized is None


async def test_step_detail_screen(crafted_path: Path, settled, open_app) -> None:
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        tree = app.screen.query_one(TaskTree)
        tree.select_task(tree.root.children[0].data.id)
        await settled(pilot)
        await pilot.press("3", "enter")
        await settled(pilot)
        assert isinstance(app.screen, StepDetailScreen)
        detail = app.screen
        assert detail.step.tool == "edit_file"
        checkpoint = str(detail.query_one("#step-checkpoint").render())
        assert "src/long.py" in checkpoint and "assets/blob.bin" in checkpoint
        assert "tokens 100 in / 20 out" in str(detail.query_one("#step-summary").render())
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_step_detail_says_unknown_tokens_as_the_step_list_does(crafted_path: Path, settled, open_app) -> None:
    """The failed `bash` step recorded no token counts: its row shows "—", and its detail
    says the same rather than "0 in / 0 out"."""
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        tree = app.screen.query_one(TaskTree)
        tree.select_task(tree.root.children[0].data.id)
        await settled(pilot)
        steps = app.screen.query_one(StepTimeline)
        row = [str(cell) for cell in steps.row_cells(steps.records[1])]
        assert row[2] == "bash" and row[6] == "—"
        await pilot.press("3", "down", "enter")
        await settled(pilot)
        assert isinstance(app.screen, StepDetailScreen) and app.screen.step.tool == "bash"
        summary = str(app.screen.query_one("#step-summary").render())
        assert "tokens —" in summary and "0 in" not in summary


async def test_step_totals_say_unknown_tokens_when_no_step_recorded_any(crafted_path: Path, settled, open_app) -> None:
    """"A long task": 1,200 steps without token counts; its totals line says "tokens —" like
    each of its rows, not "0 tokens in / 0 out"."""
    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app
        tree = app.screen.query_one(TaskTree)
        tree.select_task(next(n.data for n in tree.root.children if n.data.title == "A long task").id)
        await settled(pilot)
        totals = str(app.screen.query_one("#step-totals").render())
        assert "1,200 steps" in totals and "tokens —" in totals and "0 tokens" not in totals


async def test_big_task_loads_steps_in_pages(crafted_path: Path, settled, app_for) -> None:
    app = app_for(crafted_path)
    app.follower.enabled = False  # not followed, a task opens on its first page (followed and running: its last)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        tree = app.screen.query_one(TaskTree)
        big = next(n.data for n in tree.root.children if n.data.title == "A long task")
        tree.select_task(big.id)
        await settled(pilot)
        steps = app.screen.query_one(StepTimeline)
        assert steps.total == 1200 and len(steps.records) == 500
        await pilot.press("3")
        for _ in range(6):  # rows are added a page at a time, then the next page is fetched
            await pilot.press("end")
            await settled(pilot)
        assert len(steps.records) > 500
        assert "1,200 steps" in str(app.screen.query_one("#step-totals").render())


async def test_palette_offers_every_command_of_the_screen(demo_path: Path, open_app) -> None:
    from memtui.ui.commands import CommandTable, commands_for, screen_scopes

    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        provider = CommandTable(app.screen)
        offered = [hit.text async for hit in provider.discover()]
        expected = [c.description for c in commands_for(screen_scopes(app.screen), app.source)
                    if c.palette and c.action != "command_palette"]
        assert offered == expected
        assert "Zoom the focused pane" in offered and "Quit" in offered


async def test_worker_errors_become_notifications(crafted_path: Path, settled, open_app) -> None:
    from memtui.core.errors import CorruptContent

    async with open_app(crafted_path, size=SIZE) as pilot:
        app = pilot.app

        def broken(entry_id):
            raise CorruptContent("content 1234abcd [bold]does not match its hash")

        app.source.read_entry = broken
        tree = app.screen.query_one(TaskTree)
        tree.select_task(tree.root.children[0].data.id)
        await settled(pilot)
        messages = [n.message for n in notifications(app)]
        assert any("does not match its hash" in m and "[bold]" in m for m in messages)
        assert isinstance(app.screen, MainScreen)  # the app carries on
        shown = str(app.screen.query_one("#diff-message-text").render())
        assert "Cannot show this file" in shown and "[bold]does not match" in shown


async def test_theme_switch_keeps_the_lists(demo_path: Path, settled, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        rows = app.screen.query_one(SessionsTable).row_count
        app.theme = "textual-light"
        await settled(pilot)
        assert app.screen.query_one(SessionsTable).row_count == rows


async def test_sub_agent_session_says_where_its_task_came_from(demo_path: Path, settled, open_app) -> None:
    with AgentStore.open(demo_path, readonly=True) as store:
        handoff = next(r for r in store.all_references()
                       if r.kind == "handoff" and store.task(r.from_task).session_id != store.task(r.to_task).session_id)
        child = store.task(handoff.to_task)
    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        app.screen.query_one(SessionsTable).select_key(str(child.session_id))
        await settled(pilot)
        tree = app.screen.query_one(TaskTree)
        node = next(n for n in tree.root.children if n.data.id == child.id)
        assert f"from task {handoff.from_task}" in tree.render_label(node, tree.rich_style, tree.rich_style).plain


async def test_refresh_keeps_the_selection(demo_path: Path, app_for, settled) -> None:
    from pilot_support import open_step

    app = app_for(demo_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_step(pilot, "Add request routing with path parameters", "Implement path parameters", 2, "3")
        screen = app.screen
        before = (screen.task_id, screen.step.id, screen.query_one(DiffPane).entry)
        assert before[2] is not None
        await pilot.press("ctrl+r")
        await settled(pilot)
        assert (screen.task_id, screen.step.id) == before[:2]
        assert screen.query_one(DiffPane).entry.id == before[2].id
        assert screen.query_one(DiffPane).view.diff is not None


def test_screen_keys_do_not_shadow_app_keys() -> None:
    """A screen's key must not hide a key that works anywhere (else `s` on the memory
    screen would not open the statistics)."""
    app_keys = {k for c in COMMANDS if c.scope == "app" for k in c.key.split(",")}
    allowed = {("stats", "i")}  # incremental vacuum; memory items are not a statistics matter
    clashes = {(c.scope, k) for c in COMMANDS if c.scope != "app" for k in c.key.split(",")
               if k in app_keys} - allowed
    assert not clashes


async def test_memory_screen_v_toggles_source_and_s_opens_statistics(demo_path: Path, settled, open_app) -> None:
    from textual.widgets import ContentSwitcher

    from memtui.ui.screens.memory import MemoryScreen
    from memtui.ui.screens.stats import StatsScreen

    async with open_app(demo_path, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("m")
        await settled(pilot)
        assert isinstance(app.screen, MemoryScreen)
        switcher = app.screen.query_one(ContentSwitcher)
        before = switcher.current
        await pilot.press("v")
        await pilot.pause()
        assert switcher.current == "memory-source" != before
        await pilot.press("s")
        await settled(pilot)
        assert isinstance(app.screen, StatsScreen)


async def test_the_footer_follows_the_focused_pane(demo_path: Path, open_app, shown) -> None:
    """Diff keys only where a diff is; pin on tasks; o on steps; R on a file."""
    async with open_app(demo_path) as pilot:
        app = pilot.app

        def footer() -> str:
            return shown(app).splitlines()[-1]

        await pilot.press("1")
        assert "Split" not in footer() and "Hunk" not in footer() and "Roll back" not in footer()
        await pilot.press("2")
        assert "p Pin" in footer() and "r Roll back" in footer() and "Split" not in footer()
        await pilot.press("3", "home")  # the running task opened on its newest step: its first
        await settle(pilot)
        assert "o Step" in footer() and "p Pin" not in footer()
        await pilot.press("5")  # the first step changed no files: no diff keys (below, a step that did)
        assert "R Checkpoint" in footer() and "Split" not in footer(), footer()
        await pilot.press("1", "v")  # not run where it does not apply
        assert not app.screen.bottom.diff.split


async def test_the_diff_keys_are_offered_only_where_a_diff_is_shown(demo_path: Path, settled, open_app, shown) -> None:
    """On a step that changed no files the diff pane says so: its footer offers no Split, Hunk
    or Whole file (pressing them only rang the bell); back on a step with a checkpoint, it does."""
    async with open_app(demo_path) as pilot:
        screen = pilot.app.screen
        steps = screen.query_one(StepTimeline)

        async def on_step(with_checkpoint: bool) -> str:
            await pilot.press("3")
            row = next(i for i, s in enumerate(steps.records) if (s.checkpoint_id is not None) == with_checkpoint)
            steps.move_cursor(row=row)
            await settled(pilot)
            await pilot.press("5")
            await pilot.pause()
            return shown(pilot.app).splitlines()[-1]

        footer = await on_step(with_checkpoint=False)
        assert "changed no files" in shown(pilot.app)
        assert "Split" not in footer and "Hunk" not in footer and "Whole file" not in footer, footer
        footer = await on_step(with_checkpoint=True)
        assert "v Split" in footer and "] Hunk" in footer, footer


async def test_the_chosen_theme_and_layout_are_kept_for_the_next_run(demo_path: Path, open_app) -> None:
    """Settings live in $XDG_CONFIG_HOME/memtui/config.toml (a temp folder in tests)."""
    from memtui.ui.settings import config_path

    async with open_app(demo_path) as pilot:
        pilot.app.theme = "textual-light"
        await pilot.press("ctrl+b")  # hide the sessions pane
        await pilot.pause()
    assert 'theme = "textual-light"' in config_path().read_text()
    async with open_app(demo_path) as pilot:
        assert pilot.app.theme == "textual-light"
        assert not pilot.app.screen.query_one("#sessions-pane").display


async def test_the_palette_lists_quit_once_and_keys_once(demo_path: Path, settled, open_app) -> None:
    """ctrl+p lists memtui's Quit and `?` "Keys and commands", not also Textual's own Quit and
    Keys beside them; its other commands (themes) stay."""
    from textual.command import CommandList

    async with open_app(demo_path) as pilot:
        app = pilot.app
        await pilot.press("ctrl+p")
        await pilot.pause(0.5)
        listed = app.screen.query_one(CommandList)
        prompts = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        firsts = [p.splitlines()[0] for p in prompts]
        assert firsts.count("Quit") == 1, firsts
        assert "Keys" not in firsts and firsts.count("Keys and commands") == 1, firsts
        assert "Theme" in firsts


def title(pane) -> str:
    """A pane's title as the user reads it."""
    from textual.content import Content

    return Content.from_markup(pane.border_title).plain


async def test_a_kept_filter_is_named_in_its_pane_title(demo_path: Path, open_app) -> None:
    async with open_app(demo_path, size=SIZE) as pilot:
        screen = pilot.app.screen
        sessions = screen.query_one(SessionsTable)
        pane = screen.query_one("#sessions-pane")
        total = sessions.row_count
        await pilot.press("slash", *"sub-agent", "escape")
        await pilot.pause()
        box = screen.query_one("#filter", Input)
        assert not box.has_class("-active")  # the box is gone
        assert sessions.row_count == total and title(pane) == "Sessions"  # esc in the box clears it
        await pilot.press("slash", *"[b]x", "enter")
        await pilot.pause()
        assert screen.focused is sessions and sessions.row_count == 0
        assert "filter “[b]x”" in title(pane)  # literally, never markup
        await pilot.press("escape")
        await pilot.pause()
        assert sessions.row_count == total and "filter" not in title(pane)


async def test_the_sessions_pane_shown_after_starting_hidden_fits_its_columns(tmp_path: Path, monkeypatch) -> None:
    """A first run on a workspace that starts with the sessions pane hidden (the kept layout),
    then ctrl+b: the columns fit the pane as at any start. In a real terminal the table is given
    no Resize when its pane is shown (simulated here: its on_resize does nothing), and the columns
    kept the widths they were made with while hidden — titles 10 characters, "Current ta" cut,
    the rest of the pane empty."""
    import shutil

    from memtui.ui.app import make_app
    from memtui.ui.settings import config_path
    from memtui.ui.widgets.sessions_table import SessionsTable

    monkeypatch.setattr(SessionsTable, "on_resize", lambda self: None)
    workspace = shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "ra_aid_project", tmp_path / "ra")
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("sessions_pane = false\n")
    app = make_app(workspace)  # no page kept of it: nothing is fitted before the first frame
    async with app.run_test(size=(140, 40)) as pilot:
        # Its rows added while hidden, and the opening done: a wait, not `settle` (whose idle
        # waits happen to refit the table, which a real terminal does not).
        table = None
        for _ in range(300):  # up to 30 s on a loaded machine
            await pilot.pause(0.1)
            tables = app.screen.query(SessionsTable)
            if tables and tables.first().row_count == 3 and not any(w.is_running for w in app.workers):
                table = tables.first()
                break
        assert table is not None and not app.screen.query_one("#sessions-pane").display
        await pilot.press("ctrl+b")

        def column_widths() -> dict[str, int]:
            return {str(key.value): column.width for key, column in table.columns.items()}

        for _ in range(100):  # the refit follows the pane's layout: up to 10 s on a loaded machine
            await pilot.pause(0.1)
            if "current" not in column_widths() and table.virtual_size.width <= table.scrollable_content_region.width:
                break
        widths = column_widths()
        assert "current" not in widths and widths["title"] >= table.MIN_FLEX, widths  # shed, not cut
        assert table.virtual_size.width <= table.scrollable_content_region.width


async def test_a_tasks_filter_matching_none_empties_the_steps(demo_path: Path, open_app, settled, shown) -> None:
    """`/` on the tasks with a filter no task matches: the steps pane is empty and says why (it
    kept the last highlighted task's steps, and the step shown below them). Clearing the filter
    highlights the first task and shows its steps again."""
    NO_TASK_MATCHES = "no task matches the filter"
    async with open_app(demo_path, size=SIZE) as pilot:
        screen = pilot.app.screen
        tree, steps = screen.query_one(TaskTree), screen.query_one(StepTimeline)
        await pilot.press("2")
        await settled(pilot)
        assert screen.focused is tree and tree.tasks and steps.records
        await pilot.press("slash", *"zz-no-such-task")
        await settled(pilot)
        assert tree.tasks and tree.current_task() is None and not tree.root.children
        assert steps.row_count == 0 and not steps.records
        pane = screen.query_one("#steps-pane")
        assert title(pane) == f"{pane.label} · {NO_TASK_MATCHES}" and not pane.border_subtitle
        text = shown(pilot.app)
        assert f"Steps · {NO_TASK_MATCHES}" in text and "No step selected." in text
        await pilot.press("escape")  # the box cleared: every task again, the first highlighted
        await settled(pilot)
        assert tree.current_task() is not None and tree.current_task().id == tree.tasks[0].id and steps.records
        assert NO_TASK_MATCHES not in shown(pilot.app)
