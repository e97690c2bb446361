"""DiffView in a running app: layouts, hunk keys, whole-file views, untrusted content, workers."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from textual.app import App, ComposeResult

from memtui.core.diff import prepare_file_diff
from memtui.ui.widgets.diff_view import DiffView

_spec = importlib.util.spec_from_file_location(
    "diff_view_app", Path(__file__).with_name("diff_view_app.py")
)
assert _spec and _spec.loader
diff_view_app = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(diff_view_app)
DiffViewApp = diff_view_app.DiffViewApp

SIZE = (100, 30)


def screen_text(view: DiffView) -> list[str]:
    """The visible rows of the view as plain text."""
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


async def test_unified_view_shows_hunks_with_numbers_and_signs() -> None:
    app = DiffViewApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        text = screen_text(view)
        assert text[0].startswith("@@ -1,11 +1,11 @@")
        assert any(line.startswith(" 1    -") and "Prices and discounts" in line for line in text)
        assert any(line.startswith("    1 +") and "Prices, discounts and taxes" in line for line in text)
        assert view.diff is not None and view.diff.stats == (8, 7)


async def test_toggling_split_puts_old_and_new_side_by_side() -> None:
    app = DiffViewApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(DiffView)
        unified_rows = view.virtual_size.height
        await pilot.press("s")
        assert view.split
        text = screen_text(view)
        row = next(line for line in text if "Prices and discounts" in line)
        left, right = row.split("│")
        assert "Prices and discounts" in left and "Prices, discounts and taxes" in right
        assert view.virtual_size.height < unified_rows  # paired lines share rows
        await pilot.press("s")
        assert not view.split and view.virtual_size.height == unified_rows


async def test_hunk_keys_move_the_scroll_position() -> None:
    app = DiffViewApp()
    async with app.run_test(size=(100, 8)) as pilot:
        view = app.query_one(DiffView)
        hunk_rows = view.diff.hunk_rows(split=False)
        assert len(hunk_rows) >= 3
        assert view.scroll_y == 0
        await pilot.press("n")
        assert view.scroll_y == hunk_rows[1]
        assert screen_text(view)[0].startswith("@@")
        await pilot.press("n")
        assert view.scroll_y == hunk_rows[2]
        assert view.hunk_position() == (3, len(hunk_rows))
        await pilot.press("p")
        assert view.scroll_y == hunk_rows[1]
        await pilot.press("p", "p")
        assert view.scroll_y == 0
        assert not view.previous_hunk()


async def test_split_toggle_keeps_the_current_hunk_in_view() -> None:
    app = DiffViewApp()
    async with app.run_test(size=(100, 8)) as pilot:
        view = app.query_one(DiffView)
        await pilot.press("n", "n")
        header = view.diff.hunks[2].header
        assert screen_text(view)[0].startswith(header)
        await pilot.press("s")
        # At the end of the file the header cannot reach the top, but it stays on screen.
        assert any(line.startswith(header) for line in screen_text(view))


async def test_whole_file_views_show_every_line_and_mark_changes() -> None:
    app = DiffViewApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(DiffView)
        view.mode = "after"
        await pilot.pause()
        assert view.virtual_size.height == len(diff_view_app.AFTER.splitlines())
        text = screen_text(view)
        assert text[0].startswith(" 1 + ")  # changed line
        assert text[2].startswith(" 3   import math")  # unchanged line
        assert view.next_hunk()
        view.mode = "before"
        await pilot.pause()
        assert view.virtual_size.height == len(diff_view_app.BEFORE.splitlines())
        view.scroll_to(y=0, animate=False)
        await pilot.pause()
        assert screen_text(view)[0].startswith(" 1 - ")


async def test_markup_and_escape_sequences_are_shown_literally() -> None:
    app = DiffViewApp()
    async with app.run_test(size=(140, 30)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        text = "\n".join(screen_text(view))
        assert '[bold red]{item.name}[/] costs \u241b[31m{item.price}\u241b[0m"' in text
        assert "\x1b" not in text
        # No segment of the markup line picked up a style from the markup itself.
        y = next(k for k, line in enumerate(screen_text(view)) if "[bold red]" in line)
        for segment in view.render_line(y):
            if "[bold red]" in segment.text:
                assert segment.style is None or not segment.style.bold


class HostApp(App[None]):
    def __init__(self, view: DiffView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def test_binary_content_shows_sizes_and_hashes() -> None:
    before, after = b"\x89PNG\x00\x01\x02", b"\x89PNG\x00\x01\x02\x03"
    app = HostApp(DiffView("logo.png", before, after))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = "\n".join(screen_text(app.view))
        assert "Binary or undecodable content" in text
        assert "7 bytes" in text and hashlib.sha256(before).hexdigest() in text
        assert "8 bytes" in text and hashlib.sha256(after).hexdigest() in text
        assert not app.view.next_hunk()


async def test_identical_and_new_files() -> None:
    app = HostApp(DiffView("same.py", b"x = 1\n", b"x = 1\n"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_text(app.view)[0].startswith("No changes (1 line identical)")
        app.view.set_content("new.py", None, b"print('hi')\n")
        app.view.mode = "before"
        await pilot.pause()
        assert screen_text(app.view)[0].startswith("The file did not exist before this change.")


async def test_load_diffs_in_a_worker_and_installs_the_result() -> None:
    messages: list[DiffView.Loaded] = []

    class LoadingApp(HostApp):
        def on_diff_view_loaded(self, message: DiffView.Loaded) -> None:
            messages.append(message)

    app = LoadingApp(DiffView())
    before = "\n".join(f"line {k}" for k in range(5000)).encode()
    after = before.replace(b"line 2500", b"line two thousand five hundred")
    async with app.run_test(size=SIZE) as pilot:
        app.view.load("big.txt", before, after)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.view.diff is not None and app.view.diff.stats == (1, 1)
        assert messages and messages[-1].diff is app.view.diff
        assert screen_text(app.view)[0].startswith("@@ -2498,7 +2498,7 @@")


async def test_install_accepts_a_diff_prepared_elsewhere() -> None:
    app = HostApp(DiffView())
    async with app.run_test(size=SIZE) as pilot:
        app.view.install(prepare_file_diff("a.md", b"# Title\n", b"# New title\n"))
        await pilot.pause()
        assert "New title" in "\n".join(screen_text(app.view))


def test_snapshot_split_view(snap_compare) -> None:
    assert snap_compare(DiffViewApp(split=True), terminal_size=(110, 32))


def test_snapshot_unified_view(snap_compare) -> None:
    assert snap_compare(DiffViewApp(), terminal_size=(90, 32))


async def test_theme_change_restyles_the_diff() -> None:
    app = DiffViewApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        dark = [segment.style for segment in view.render_line(1)]
        app.theme = "textual-light"
        await pilot.pause()
        light = [segment.style for segment in view.render_line(1)]
        assert [s.bgcolor for s in dark if s] != [s.bgcolor for s in light if s]


async def test_horizontal_scroll_keeps_the_line_numbers() -> None:
    long_line = "x = '" + "abcdefghij" * 30 + "'"
    app = HostApp(DiffView("long.py", b"x = 1\n", f"{long_line}\n".encode()))
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        view = app.view
        assert view.virtual_size.width > 60
        view.scroll_to(x=100, animate=False)
        await pilot.pause()
        row = screen_text(view)[2]
        assert row.startswith("  1 +") and "abcdefghij" in row and "x = '" not in row


async def test_crlf_files_hide_the_cr_unless_line_endings_changed() -> None:
    app = HostApp(DiffView("win.txt", b"one\r\ntwo\r\n", b"one\r\n2\r\n"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "\u240d" not in "\n".join(screen_text(app.view))
        app.view.set_content("win.txt", b"one\r\ntwo\r\n", b"one\ntwo\n")
        await pilot.pause()
        text = screen_text(app.view)
        assert any(line.startswith("1   -") and line.rstrip().endswith("one\u240d") for line in text)
        assert any(line.startswith("  1 +") and line.rstrip().endswith("one") for line in text)


async def test_layout_changes_keep_the_line_at_the_top() -> None:
    before = "".join(f"line {k}\n" for k in range(200)).encode()
    after = before
    for k in (50, 100, 150, 190):
        after = after.replace(f"line {k}\n".encode(), f"line {k}!\n".encode())
    app = HostApp(DiffView("lines.txt", before, after))
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.view
        await pilot.pause()
        view.scroll_to(y=2, animate=False)  # unified row 2: old/new line 49 (index 48)
        await pilot.pause()
        assert screen_text(view)[0].startswith(" 49  49")
        view.mode = "after"
        await pilot.pause()
        assert view.scroll_y == 48 and screen_text(view)[0].startswith(" 49   line 48")
        view.scroll_to(y=149, animate=False)
        await pilot.pause()
        view.mode = "diff"
        await pilot.pause()
        assert screen_text(view)[0].startswith("150 150   line 149")
        view.split = True
        await pilot.pause()
        left, right = screen_text(view)[0].split("│")
        assert left.startswith("150   line 149") and right.startswith("150   line 149")


async def test_the_last_hunks_near_the_end_of_a_file_are_reached() -> None:
    """Three hunks in the last screenful: the view cannot scroll them to its top, yet `n`
    steps onto each (the position says so) and then stops; `p` walks back."""
    before = "".join(f"line {i}\n" for i in range(60)).encode()
    lines = before.decode().splitlines(keepends=True)
    for at in (20, 40, 48, 56):
        lines[at] = f"changed {at}\n"
    after = "".join(lines).encode()

    class EndOfFile(App[None]):
        def compose(self) -> ComposeResult:
            yield DiffView("end.py", before, after)

    app = EndOfFile()
    async with app.run_test(size=(100, 12)) as pilot:
        view = app.query_one(DiffView)
        count = len(view.diff.hunk_rows(split=False))
        assert count == 4 and view.hunk_position()[0] == 1  # a diff opens on its first hunk
        seen = []
        for _ in range(count + 1):
            moved = view.next_hunk()
            await pilot.pause()
            seen.append((moved, view.hunk_position()[0]))
        assert [at for moved, at in seen if moved] == [2, 3, 4]
        assert seen[-1] == (False, count)  # on the last hunk, and no further
        assert view.previous_hunk() and view.hunk_position()[0] == count - 1
