"""The memory screen's "Loaded at start" view: each agent's chain, the cut-off marked inside
the document, and chain files edited in place — a user-level file outside the workspace
included — with the conflict check, and the chain changing after the fix."""

from __future__ import annotations

import os
import re

import pytest
from chain_world import memory_lines, world_in_env, write
from memory_workspace import FIXED_MTIME
from textual.widgets import TextArea

from memtui.ui.screens.memory import MemoryScreen
from pilot_support import each_screen, settle
from memtui.ui.widgets.chain_list import ChainList
from memtui.ui.widgets.chain_panel import ChainPanel
from memtui.ui.widgets.chain_text import ChainText

SIZE = (130, 42)


@pytest.fixture
def world(tmp_path, monkeypatch):
    return world_in_env(tmp_path, monkeypatch)


def _still(app) -> None:
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


async def open_loaded(pilot, agent: str = "claude-code", path=None):
    await settle(pilot)
    await pilot.press("l")
    await settle(pilot)
    panel = pilot.app.screen.query_one(ChainPanel)
    if agent != panel.agent:
        panel.select_agent(agent)
        await settle(pilot)
    if path is not None:
        assert panel.list.select_path(path)
        await settle(pilot)
    return panel


def prompts(panel) -> list[str]:
    chain_list = panel.query_one(ChainList)
    return [chain_list.get_option_at_index(i).prompt.plain for i in range(chain_list.option_count)]


async def test_chain_shown_in_load_order_with_the_cut_marked(world, open_memory):
    async with open_memory(world.repo, size=SIZE) as pilot:
        panel = await open_loaded(pilot, path=world.memory_md)
        rows = prompts(panel)
        assert "memory/MEMORY.md" in rows[11] and "200/250 lines" in rows[11]
        assert "└ docs/style.md" in rows[4]
        view = pilot.app.screen.query_one(ChainText)
        (rule,) = view.rule_rows()
        assert view.rows[rule].text == "Claude Code stops reading here (line 200)"
        assert view.rows[rule - 1].number == 200 and view.rows[rule + 1].number == 201
        assert "cut-off" in str(pilot.app.screen.query_one("#chain-problems").render())


async def test_edit_user_level_file_with_conflict_check(world, open_memory):
    user = world.claude_config / "CLAUDE.md"
    async with open_memory(world.repo, size=SIZE) as pilot:
        await open_loaded(pilot, path=user)
        await pilot.press("enter")
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.editing
        notice = str(screen.query_one("#memory-notice").render())
        assert str(user) in notice and "outside the workspace" in notice
        editor = screen.query_one("#memory-editor", TextArea)
        editor.insert("- reply in English\n", (2, 0))
        write(user, "# User\nClaude Code rewrote this meanwhile\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert type(pilot.app.screen).__name__ == "ConflictScreen"
        assert user.read_text() == "# User\nClaude Code rewrote this meanwhile\n"  # nothing overwritten yet
        await pilot.press("o")  # overwrite, knowingly
        await settle(pilot)
        assert user.read_text() == "# User\nAnswer briefly.\n- reply in English\n"
        assert not (world.claude_config / ".agent").exists()  # history stays in the workspace
        await pilot.press("u")  # undo memtui's save: the agent's version comes back
        await settle(pilot)
        assert user.read_text() == "# User\nClaude Code rewrote this meanwhile\n"


async def test_fix_cut_off_memory_md_in_place_and_see_the_chain_change(world, open_memory):
    async with open_memory(world.repo, size=SIZE) as pilot:
        panel = await open_loaded(pilot, path=world.memory_md)
        await pilot.press("enter")
        await pilot.pause()
        editor = pilot.app.screen.query_one("#memory-editor", TextArea)
        editor.load_text(memory_lines(150))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert world.memory_md.read_text() == memory_lines(150)
        entry = panel.chain.file(world.memory_md)
        assert not entry.truncated and entry.loaded_lines == 150
        assert "200/" not in prompts(panel)[11]
        assert pilot.app.screen.query_one(ChainText).rule_rows() == []


async def test_fix_over_limit_agents_md_in_place(world, open_memory):
    agents = write(world.repo / "AGENTS.md", "x" * 99 + "\n" + "y" * 40_000 + "\n")
    async with open_memory(world.repo, size=SIZE) as pilot:
        panel = await open_loaded(pilot, "codex", path=agents)
        view = pilot.app.screen.query_one(ChainText)
        (rule,) = view.rule_rows()
        assert view.rows[rule].text == "Codex stops reading here (byte 32,768, line 2)"
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.screen.query_one("#memory-editor", TextArea).load_text("# Repo agents\nkeep it short\n")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not panel.chain.file(agents).truncated
        assert "cut-off" not in {p.rule for p in panel.chain.problems}


async def test_a_file_outside_every_chain_is_never_written(world, open_memory):
    async with open_memory(world.repo, size=SIZE) as pilot:
        await open_loaded(pilot)
        screen = pilot.app.screen
        stranger = write(world.home / "elsewhere.md", "x\n")
        screen.current = str(stranger)
        screen.save("y\n", None)
        await pilot.pause()
        assert stranger.read_text() == "x\n"


def test_loaded_view_snapshot(snap_compare, world, app_for):
    agents = write(world.repo / "AGENTS.md", "# Repo agents\n" + "".join(f"rule {i:05d}\n" for i in range(4000)))
    os.utime(agents, (FIXED_MTIME, FIXED_MTIME))  # the title shows when it was modified
    app = app_for(world.repo)

    async def codex_cut(pilot):
        await settle(pilot)
        pilot.app.push_screen(MemoryScreen(world.repo))
        await open_loaded(pilot, "codex", path=agents)
        pilot.app.screen.query_one(ChainText).scroll_to_cut()
        _still(pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=codex_cut)


async def test_at_80_columns_the_chain_leaves_the_file_half_the_screen(world, open_app):
    """The chain pane is wide where there is room (66 columns) but never more than half the
    screen: at 80 columns it took 66, leaving the file — and its editor — 13 columns. One app
    start: at each width the terminal is resized on the main screen and the memory screen
    opened afresh (each_screen names every width that failed)."""
    async with open_app(world.repo, size=(80, 24)) as pilot:
        async def at(width):
            await pilot.resize_terminal(width, 24)
            pilot.app.push_screen(MemoryScreen(world.repo))

        async def check(width):
            assert pilot.app.size == (width, 24)
            await open_loaded(pilot, path=world.claude_config / "CLAUDE.md")
            screen = pilot.app.screen
            side = screen.query_one("#memory-side").outer_size.width
            main = screen.query_one("#memory-main").outer_size.width
            assert side <= width // 2 and main >= width // 2, (side, main)
            assert side == min(66, width // 2)
            await pilot.press("enter")
            await pilot.pause()
            assert screen.editing
            editor = screen.query_one("#memory-editor", TextArea)
            assert editor.region.width >= width - 34, editor.region  # the chain steps aside while editing

        await each_screen(pilot, [80, 120], check, go=at)


async def test_leaving_the_editor_goes_back_to_the_chain(world, open_memory):
    """Escape out of a chain file's editor puts the cursor back in the chain: it went to the
    document list, hidden in this view, so no key of the chain (a: next agent, ↑↓) answered."""
    async with open_memory(world.repo, size=SIZE) as pilot:
        panel = await open_loaded(pilot, path=world.claude_config / "CLAUDE.md")
        await pilot.press("enter")
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.editing
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.editing
        assert pilot.app.focused is panel.list
        await pilot.press("a")
        await settle(pilot)
        assert panel.agent == "codex"


async def test_each_chain_file_stays_on_one_line(demo_path, open_app, shown):
    """At 120 columns a file's scope ("project") wrapped onto a line of its own under the path.
    Each file is one line: where the room is short the scope and state give way, then the
    start of the path. One app start: at each size the terminal is resized on the main screen
    and the memory screen opened afresh (each_screen names every size that failed)."""
    async with open_app(demo_path, size=(80, 24)) as pilot:
        async def at(size):
            await pilot.resize_terminal(*size)
            pilot.app.push_screen(MemoryScreen(demo_path))

        async def check(size):
            assert pilot.app.size == size
            panel = await open_loaded(pilot, agent="memtui")
            files = len(panel.list.chain.files)
            side = [line.split("│")[0] for line in shown(pilot.app).splitlines()]
            first = next(i for i, line in enumerate(side) if line.startswith("  1 "))
            listed = side[first:first + files]
            assert all(re.match(r" *\d+ \S+ +[\d.]+ (B|KiB) \S", line) for line in listed), "\n".join(side)
            assert all(line.rstrip().endswith((".md", ".jsonl", "project", "demand", "⚠ 1")) for line in listed), \
                "\n".join(side)
            if size[0] >= 120:
                assert "HISTORY.jsonl project on demand" in "\n".join(listed)

        await each_screen(pilot, [(80, 24), (120, 40), (160, 48)], check, go=at)
