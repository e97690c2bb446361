"""Hostile text in every field a user sees, on every screen: what is drawn shows the Rich
markup as typed and each control character, escape and bidi override as a visible symbol.
No raw control character ever reaches the terminal (an ESC[2J would clear it, an OSC retitle
it, a U+202E reverse what follows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import screen_text
from hostile_text import assert_no_raw, hostile_workspace
from pilot_support import each_screen, settle

H = ("[bold red]X[/] [link=file:///etc]y[/link] \x1b[2J \x1b]0;title\x07 \x1b[31m c1\x9b "
     "bidi\u202e nul\x00 cr\r end")
MARKUP = "[bold red]X[/]"
SIZE = (200, 50)


def hostile_store(root: Path) -> Path:
    return hostile_workspace(root, H)


async def visit(pilot, *keys: str) -> str:
    await pilot.press(*keys)
    await settle(pilot)
    return screen_text(pilot.app)


@pytest.fixture
def store(tmp_path):
    return hostile_store(tmp_path / "ws")


async def test_main_panes_and_step_detail(store, open_app):
    async with open_app(store, size=SIZE) as pilot:
        text = await visit(pilot, "3")
        assert_no_raw(text, "main")
        assert MARKUP in text and "␛[2J" in text, text
        text = await visit(pilot, "o")
        assert_no_raw(text, "step detail")
        assert MARKUP in text and "␛]0;title␇" in text, text
        text = await visit(pilot, "escape", "5")
        assert_no_raw(text, "diff")
        assert f"new {MARKUP}" in text and "new [bold red]X[/] [link=file:///etc]y[/link] ␛[2J ␛]0;title␇" in text, text
        text = await visit(pilot, "f")
        assert_no_raw(text, "whole file")
        assert f"new {MARKUP}" in text, text
        text = await visit(pilot, "v")
        assert_no_raw(text, "side by side")


SCREENS = [["g"], ["s"], ["m"], ["D"], ["S"], ["question_mark"], ["ctrl+p"], ["3", "r"], ["3", "x"],
           ["ctrl+f", *"end"]]


async def test_screen(store, open_app):
    """Each screen in turn, from the main screen (one app start; each_screen names every
    screen that drew something raw)."""
    async with open_app(store, size=SIZE) as pilot:
        async def check(keys):
            assert_no_raw(screen_text(pilot.app), "+".join(keys))

        await each_screen(pilot, SCREENS, check)


async def test_a_notification_naming_hostile_text_shows_it_literally(store, app_for):
    """Toasts (a failed read naming its path, a rollback's per-file result) hold data: every
    one shows it literally, whichever screen raises it."""
    app = app_for(store)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.notify_error(OSError(2, "No such file or directory", f"/w/{H}.py"))
        app.notify(f"src/{H}: failed", title=f"Roll back {H}", markup=False, timeout=30)
        await pilot.pause(0.3)
        toasts = "\n".join(str(toast.render()) for toast in app.screen.query("Toast"))
        assert_no_raw(screen_text(app), "notifications")
        assert toasts.count(MARKUP) == 3, toasts
        assert f"Roll back {MARKUP} [link=file:///etc]y[/link] ␛[2J ␛]0;title␇" in toasts, toasts


@pytest.mark.parametrize("verb", [["show", "--step", "1", "--diff"], ["export", "--format", "md", "--session", "1"],
                                  ["search", "end"], ["log"]], ids=" ".join)
def test_cli_text_output(store, capsys, verb):
    from memtui.cli import main

    assert main([verb[0], str(store), *verb[1:]]) == 0
    out = capsys.readouterr().out
    assert_no_raw(out, " ".join(verb))
    assert MARKUP in out and "␛[2J" in out, out


TEXT_KEYS = {"text", "content", "command", "description", "summary", "prompt"}


def rewritten(value):
    """A transcript record with every free text (prompts, replies, tool inputs and outputs)
    given the hostile string, structure and ids kept."""
    if isinstance(value, dict):
        return {k: (v + " " + H if k in TEXT_KEYS and isinstance(v, str) else rewritten(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [rewritten(v) for v in value]
    return value


@pytest.fixture
def claude_home(tmp_path):
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
    from real_support import REAL, real_home  # every transcript, the zstd-compressed ones decompressed

    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    transcripts = sorted(home.rglob("*.jsonl"))
    # every transcript of the fixture is made hostile (a copy kept one compressed, never rewritten)
    assert len(transcripts) == len(list((REAL / "claude-2.1.38-spotter-small").rglob("*.jsonl*"))), transcripts
    for transcript in transcripts:
        lines = transcript.read_text().splitlines()
        transcript.write_text("".join(json.dumps(rewritten(json.loads(line))) + "\n" for line in lines if line.strip()))
    return home


CLAUDE_SCREENS = [["3"], ["3", "o"], ["S"], ["C"], ["question_mark"], ["3", "x"], ["ctrl+f", *"end"]]


async def test_claude_code_transcript(claude_home, open_app):
    """Each screen in turn, from the main screen (one app start). The cleanup preview and the
    search start with no transcript text on screen: only nothing raw is asserted there."""
    async with open_app(claude_home, size=SIZE) as pilot:
        async def check(keys):
            text = screen_text(pilot.app)
            assert_no_raw(text, "claude " + "+".join(keys))
            assert keys[0] in ("C", "ctrl+f") or MARKUP in text, text

        await each_screen(pilot, CLAUDE_SCREENS, check)


async def test_memory_dialogs_name_a_hostile_document_literally(store, open_screen):
    """A memory file may be named with any byte but '/': the save-conflict and history dialogs
    show its name (and the two versions) literally."""
    from memtui.ui.screens.conflict import ConflictScreen
    from memtui.ui.screens.memory_history import HistoryScreen

    name = H.replace("\x00", "") + ".md"
    async with open_screen(store, lambda: ConflictScreen(name, "It changed", f"disk {H}\n".encode(), f"mine {H}\n"),
                           size=SIZE) as pilot:
        text = screen_text(pilot.app)
        assert_no_raw(text, "conflict dialog")
        assert f"{MARKUP} [link=file:///etc]y[/link] ␛[2J" in text, text
        text = await visit(pilot, "d")
        assert_no_raw(text, "conflict diff")
        assert f"+mine {MARKUP} [link=file:///etc]y[/link] ␛[2J" in text, text
    from datetime import datetime, timezone

    from memtui.core.memory.save import HistoryEntry

    kept = store / "kept.bak"  # a version the agent wrote, kept when the user saved over it
    kept.write_text(f"old {H}\n")
    entry = HistoryEntry(1, kept, datetime(2026, 1, 1, tzinfo=timezone.utc), "save", kept.stat().st_size, "ab12")
    async with open_screen(store, lambda: HistoryScreen(name, [entry]), size=SIZE) as pilot:
        text = screen_text(pilot.app)
        assert_no_raw(text, "history dialog")
        assert f"History of {MARKUP} [link=file:///etc]y[/link] ␛[2J" in text, text
        assert f"old {MARKUP} [link=file:///etc]y[/link] ␛[2J" in text, text


async def test_a_memory_document_named_with_hostile_text(store, open_memory):
    """The memory screen's title line names the file: literally, whatever its name."""
    name = H.replace("\x00", "").replace("/", "") + ".md"
    (store / ".agent" / "init.d").mkdir(parents=True, exist_ok=True)
    (store / ".agent" / "init.d" / name).write_text("# notes\n")
    async with open_memory(store, size=SIZE, select=f".agent/init.d/{name}") as pilot:
        text = screen_text(pilot.app)
        assert_no_raw(text, "memory title")
        assert "init.d/[bold red]X[] [link=file:etc]y[link] ␛[2J" in text, text


@pytest.mark.parametrize("screen, group", [("search", "search"), ("cleanup", "cleanup-plan")])
async def test_a_failed_read_naming_hostile_text(store, open_app, screen, group):
    """A read that fails with an error naming a file (a transcript, an index) shows the reason
    where the result would have been, literally."""
    from memtui.core.errors import MemtuiError
    from memtui.ui.screens.cleanup import CleanupScreen
    from memtui.ui.screens.search import SearchScreen

    def fail() -> None:
        raise MemtuiError(f"s1 {H}.jsonl: not JSON")

    async with open_app(store, size=SIZE) as pilot:
        pilot.app.push_screen(SearchScreen(store) if screen == "search" else CleanupScreen(store))
        await settle(pilot)
        pilot.app.screen.run_worker(fail, group=group, thread=True, exit_on_error=False)
        text = await visit(pilot)
        assert_no_raw(text, f"{screen} failure")
        assert "[link=file:///etc]y[/link] ␛[2J" in text and "␛]0;title␇" in text, text


SESSION = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
TURN = f"{SESSION}:5440873c-2d59-4c8c-88ec-c0a8c38a027d"


@pytest.mark.parametrize("verb", [["log"], ["show", "--task", TURN], ["export", "--format", "md", "--session", SESSION]],
                         ids=lambda verb: verb[0])
def test_cli_on_a_claude_code_transcript(claude_home, capsys, verb):
    from memtui.cli import main

    assert main([verb[0], str(claude_home), *verb[1:]]) == 0
    out = capsys.readouterr().out
    assert_no_raw(out, " ".join(verb))
    assert MARKUP in out, out
