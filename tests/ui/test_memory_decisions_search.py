"""Decision log and search screens with Pilot."""

from __future__ import annotations

from memory_workspace import make_store, make_workspace
from textual.widgets import DataTable, Input

from memtui.core.memory import read_decisions
from memtui.core.store import AgentStore
from memtui.ui.screens.decisions import DecisionForm, DecisionsScreen
from memtui.ui.screens.memory import MemoryScreen
from memtui.ui.screens.search import SearchScreen, open_search_hit
from pilot_support import settle

SIZE = (120, 40)


def workspace(tmp_path):
    return make_workspace(tmp_path / "ws")


async def test_decisions_table_flags_missing_why_and_filters(tmp_path, open_screen):
    root = workspace(tmp_path)
    async with open_screen(root, lambda: DecisionsScreen(root), size=SIZE) as pilot:
        app = pilot.app
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        assert str(table.get_cell_at((1, 1))) == "⚠ no why"
        title = str(app.screen.query_one("#decisions-title").render())
        assert "2 decisions" in title and "1 without a why" in title
        await pilot.press("w")
        assert table.row_count == 1 and str(table.get_cell_at((0, 2))) == "Drop the plugin loader"
        await pilot.press("w", "slash", *"sqlite")
        assert table.row_count == 1 and str(table.get_cell_at((0, 2))) == "Use SQLite for the store"


async def test_add_decision_form_appends_in_the_file_format(tmp_path, open_screen):
    root = workspace(tmp_path)
    log = root / ".agent/init.d/04-decision-log.md"
    async with open_screen(root, lambda: DecisionsScreen(root), size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("a")
        assert isinstance(app.screen, DecisionForm)
        for key, value in (("title", "Keep history"), ("problem", "lost edits"), ("options", "none; history"),
                           ("chosen", "history"), ("why", "undo is cheap")):
            app.screen.query_one(f"#decision-{key}", Input).value = value
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, DecisionsScreen)
        last = read_decisions(log)[-1]
        assert (last.title, last.why, last.chosen) == ("Keep history", "undo is cheap", "history")
        assert app.screen.query_one(DataTable).row_count == 3


async def test_add_form_warns_once_about_a_missing_why(tmp_path, open_screen):
    root = workspace(tmp_path)
    async with open_screen(root, lambda: DecisionsScreen(root), size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("a")
        app.screen.query_one("#decision-title", Input).value = "No reason"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, DecisionForm)
        assert "Without a why" in str(app.screen.query_one("#decision-form-hint").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert read_decisions(root / ".agent/init.d/04-decision-log.md")[-1].missing_why


async def test_search_finds_files_and_store_records_and_opens_a_file_hit(tmp_path, open_screen):
    root = workspace(tmp_path)
    make_store(root)
    chosen = []
    async with open_screen(root, lambda: SearchScreen(root), size=SIZE) as pilot:
        app = pilot.app
        app.screen.dismiss = lambda hit: chosen.append(hit)  # capture instead of popping
        await pilot.press(*"zebra")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        kinds = {str(table.get_cell_at((row, 0))) for row in range(table.row_count)}
        assert kinds == {"file", "task"}
        await pilot.press("down")  # to the results
        await pilot.press("enter")
        assert chosen and chosen[0].kind in ("file", "task")
        file_hit = next(h for h in app.screen.hits if h.kind == "file")
        open_search_hit(app, root, file_hit)
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.current == "HISTORY.jsonl"


async def test_the_app_opens_the_memory_screens_from_its_keys(tmp_path, open_app):
    root = workspace(tmp_path)
    make_store(root)
    async with open_app(root, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.workspace == root.resolve()
        # the store's facts reach lint: a running task and a newer checkpoint than the files
        assert "possibly-stale" in {f.rule for f in app.screen.findings}
        await pilot.press("escape")
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(app.screen, DecisionsScreen)
        await pilot.press("escape")
        await pilot.press("ctrl+f")
        await pilot.press(*"quokka")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert [h.kind for h in app.screen.hits] == ["step"]


async def test_enter_in_the_query_opens_the_first_hit_and_the_count_is_the_total(tmp_path, open_app):
    root = workspace(tmp_path)
    with (root / "MEMORY.md").open("a") as memory:
        memory.write("".join(f"- llama {i}\n" for i in range(1_100)))
    async with open_app(root, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("ctrl+f")
        await settle(pilot)
        app.screen.query_one(Input).value = "llama"  # typed at once (one search, not five)
        await settle(pilot)
        status = str(app.screen.query_one("#search-status").render())
        assert status.startswith("200 of 1,000+ matches"), status
        app.screen.query_one(Input).value = "plugin loader"
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.current == ".agent/init.d/04-decision-log.md"


async def test_search_finds_steps_recorded_after_it_opened(tmp_path, open_app):
    root = workspace(tmp_path)
    make_store(root)
    async with open_app(root, size=SIZE) as pilot:
        app = pilot.app
        await pilot.press("ctrl+f")
        await settle(pilot)
        app.screen.query_one(Input).value = "capybara"
        await settle(pilot)
        assert str(app.screen.query_one("#search-status").render()) == "no matches"
        with AgentStore.open(root) as store:  # the agent goes on working
            store.record_step(2, "bash", {"command": "make lock"}, "capybara ok")
        app.reload_source()  # what follow mode and ctrl+r do on a change
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert [(h.kind, h.task) for h in app.screen.hits] == [("step", "2")]
        assert str(app.screen.query_one("#search-status").render()).startswith("1 match —")


async def test_search_on_an_agent_home_finds_a_step_and_enter_selects_it(tmp_path):
    """A real Codex home: ctrl+f searches its sessions too; a word of one command's output
    ("shellenv", in 3 outputs of the rollout) lists those steps, and Enter on one selects that
    task and step in the main panes. Nothing is written into the home."""
    import hashlib
    import sys
    from pathlib import Path

    from memtui.ui.app import make_app
    from memtui.ui.screens.main import MainScreen
    from memtui.ui.widgets.step_timeline import StepTimeline

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
    from real_support import real_home

    home = real_home("codex-0.66.0-agtrace", tmp_path)
    files = lambda: {str(p): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "" for p in home.rglob("*")}
    before = files()
    app = make_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.source.kind == "codex" and app.store is None
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        status = str(app.screen.query_one("#search-status").render())
        assert status == "type to search memory documents and this agent's sessions"
        app.screen.query_one(Input).value = "shellenv"
        await settle(pilot)
        status = str(app.screen.query_one("#search-status").render())
        assert status.startswith("3 matches")
        hits = app.screen.hits
        assert [h.kind for h in hits] == ["step"] * 3
        await pilot.press("down", "down")  # the list, its second hit
        await settle(pilot)
        chosen = hits[1]
        await pilot.press("enter")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        step = app.screen.query_one(StepTimeline).current_record()
        assert step is not None and str(step.id) == chosen.step and step.seq == chosen.line
        assert str(app.screen.query_one(StepTimeline).task_id) == chosen.task
        assert "shellenv" in str(step.result)
    assert files() == before


async def test_at_80x24_a_long_decision_title_is_cut_with_an_ellipsis(demo_path, open_screen, shown):
    """The decision column ran past the pane's edge ("Compile route patterns w") with a
    sideways scrollbar."""
    from textual.widgets import DataTable

    async with open_screen(demo_path, lambda: DecisionsScreen(demo_path), size=(80, 24)) as pilot:
        table = pilot.app.screen.query_one("#decisions-table", DataTable)
        assert not table.show_horizontal_scrollbar
        titles = [d.title for d in pilot.app.screen.decisions]
        rows = [line.split("│")[0].rstrip() for line in shown(pilot.app).splitlines() if line.startswith(" 2026-")]
        assert len(rows) == len(titles), rows
        for row, title in zip(rows, titles):
            cell = row.split("  ")[-1].strip()
            assert cell == title or (cell.endswith("…") and title.startswith(cell[:-1])), row


async def test_search_in_a_folder_holding_no_store_names_no_agent(tmp_path):
    """A folder with no store (`memtui` in an empty folder): ctrl+f searches its memory documents
    and says so, without "this agent's sessions are not indexed" — there is no agent here."""
    from memtui.ui.app import make_app

    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.source is None and app.store is None
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        status = lambda: str(app.screen.query_one("#search-status").render())
        assert status() == "type to search memory documents"
        app.screen.query_one(Input).value = "anything"
        await settle(pilot)
        assert status() == "no matches in memory documents"
