"""DiffView: a virtualised, syntax-highlighted diff of one file (memtui's own, MIT).

Only the rows on screen are drawn (`ScrollView.render_line` with an LRU cache of strips), so a
50,000-line file costs what its visible part costs. Syntax highlighting is lexed lazily in blocks
of lines around what is visible; intra-line changes are computed lazily per visible pair of lines.
File contents are untrusted: they become plain segments (Rich markup is never parsed), control
characters and bidi overrides are made visible by `memtui.core.diff.display_line`.

The module splits in three: this widget (content, reactives, navigation), its drawing in
`diff_render` and syntax highlighting in `diff_syntax`.

The diff itself comes from `memtui.core.diff.prepare_file_diff`, which is pure: call it from a
thread worker for big files and hand the result to `DiffView.install`, or call `load`, which does
exactly that.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from rich.style import Style as RichStyle
from textual import work
from textual.cache import LRUCache
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.worker import get_current_worker

from memtui.ui.widgets.diff_render import DiffRows, Mode
from memtui.ui.widgets.diff_syntax import (
    SyntaxLines,
    TokenType,
    lexer_for,
)

if TYPE_CHECKING:  # the diff engine is imported by the first diff shown, not before the first frame
    from memtui.core.diff import FileDiff, Op


class DiffView(DiffRows, can_focus=True):
    """A diff of two versions of one file: unified or side by side, or either whole version.

    Keys are bound by the screen (memtui's command table); call `next_hunk`, `previous_hunk`,
    or set the `split` and `mode` reactives.
    """

    COMPONENT_CLASSES = {
        "diff-view--gutter",
        "diff-view--line-added",
        "diff-view--line-removed",
        "diff-view--change-added",
        "diff-view--change-removed",
        "diff-view--sign-added",
        "diff-view--sign-removed",
        "diff-view--hunk-header",
        "diff-view--filler",
        "diff-view--notice",
    }

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        color: $foreground;
        & > .diff-view--gutter { color: $text-muted; }
        & > .diff-view--line-added { background: $success 15%; }
        & > .diff-view--line-removed { background: $error 15%; }
        & > .diff-view--change-added { background: $success 35%; }
        & > .diff-view--change-removed { background: $error 35%; }
        & > .diff-view--sign-added { color: $text-success; text-style: bold; }
        & > .diff-view--sign-removed { color: $text-error; text-style: bold; }
        & > .diff-view--hunk-header { color: $text-primary; background: $primary 10%; }
        & > .diff-view--filler { color: $foreground 15%; }
        & > .diff-view--notice { color: $text-warning; }
    }
    """

    split: reactive[bool] = reactive(False)
    """Side by side (True) or unified (False); only affects mode "diff"."""

    mode: reactive[Mode] = reactive("diff")
    """"diff", or the whole file "before" or "after" the change, with changed lines marked."""

    class Loaded(Message):
        """A new diff was installed (from `install`, `set_content` or `load`)."""

        def __init__(self, diff_view: DiffView, diff: FileDiff) -> None:
            super().__init__()
            self.diff_view = diff_view
            self.diff = diff

        @property
        def control(self) -> DiffView:
            return self.diff_view

    def __init__(
        self,
        path: str = "",
        before: bytes | None = None,
        after: bytes | None = None,
        *,
        split: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._diff: FileDiff | None = None
        self._jumped: tuple[int, int] | None = None
        """(hunk index, scroll y) of the last hunk jump: the view is on it while it stays there."""
        self._old: SyntaxLines = SyntaxLines([], None)
        self._new: SyntaxLines = SyntaxLines([], None)
        self._line_cache: LRUCache[tuple, Strip] = LRUCache(1024)
        self._inline_cache: LRUCache[tuple[int, int], tuple | None] = LRUCache(4096)
        self._styles: dict[tuple, RichStyle] = {}
        self._token_styles: dict[TokenType, VisualStyle] = {}
        self.set_reactive(DiffView.split, split)
        if path or before is not None or after is not None:
            from memtui.core.diff import prepare_file_diff

            self._apply(prepare_file_diff(path, before, after))

    def on_mount(self) -> None:
        self._update_virtual_size()

    def on_resize(self) -> None:
        if self.split:
            self._update_virtual_size()

    # ------------------------------------------------------------------ content

    @property
    def diff(self) -> FileDiff | None:
        """The installed diff, or None."""
        return self._diff

    def set_content(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """Diff two contents of `path` now, on this thread (fine for small files)."""
        from memtui.core.diff import prepare_file_diff

        self.install(prepare_file_diff(path, before, after))

    @work(thread=True, exclusive=True, group="diff-view", exit_on_error=False)
    def load(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """Diff two contents of `path` in a thread worker, then install the result."""
        from memtui.core.diff import prepare_file_diff

        diff = prepare_file_diff(path, before, after)
        lexer_for(path)  # the first lookup of a language imports its lexer: do it here
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.install, diff)

    def install(self, diff: FileDiff) -> None:
        """Show a diff prepared by `prepare_file_diff` (which may run in any thread)."""
        self._apply(diff)
        self._update_virtual_size()
        self.scroll_to(0, 0, animate=False, force=True)
        self.refresh()
        self.post_message(self.Loaded(self, diff))

    def _apply(self, diff: FileDiff) -> None:
        self._diff = diff
        self._jumped: tuple[int, int] | None = None
        lexer = None if diff.binary else lexer_for(diff.path)
        # CRLF files show without ␍ at every line end, unless the change is CRLF ↔ LF: then
        # the ␍ shows on the CRLF side and explains why identical-looking lines changed.
        strip_cr = diff.old_crlf and diff.new_crlf
        self._old = SyntaxLines(diff.old_lines, lexer, strip_cr)
        # A lexer keeps no state between get_tokens calls, but give each side its own anyway.
        self._new = SyntaxLines(diff.new_lines, lexer_for(diff.path) if lexer else None, strip_cr)
        self._inline_cache.clear()
        self._line_cache.clear()

    # ------------------------------------------------------------------ navigation

    def _hunk_targets(self) -> list[int]:
        diff = self._diff
        if diff is None or diff.binary:
            return []
        if self.mode == "diff":
            return diff.hunk_rows(self.split)
        # Whole-file views: put a few lines of context above the first changed line.
        lines = diff.hunk_lines("old" if self.mode == "before" else "new")
        return [max(0, y - 3) for y in lines]

    def _current_hunk(self) -> int:
        """Index of the hunk the view is on (-1 above the first). Near the end of a file the
        view cannot scroll a late hunk to its top: then the hunk last jumped to counts."""
        targets = self._hunk_targets()
        current = round(self.scroll_y)
        at = sum(1 for y in targets if y <= current) - 1
        jumped = self._jumped
        if jumped is not None and jumped[1] == current and 0 <= jumped[0] < len(targets):
            at = max(at, jumped[0])
        return at

    def _go_to_hunk(self, index: int) -> None:
        y = self._hunk_targets()[index]
        self.scroll_to(y=y, animate=False, force=True, immediate=True)
        self._jumped = (index, round(min(y, self.max_scroll_y)))

    def next_hunk(self) -> bool:
        """Scroll the next hunk to the top (as far as the file allows); False when there is none."""
        at = self._current_hunk()
        if at + 1 >= len(self._hunk_targets()):
            return False
        self._go_to_hunk(at + 1)
        return True

    def previous_hunk(self) -> bool:
        """Scroll the previous hunk to the top (from inside a hunk: its own top); False when
        there is none above."""
        targets = self._hunk_targets()
        at = self._current_hunk()
        if at < 0:
            return False
        current = round(self.scroll_y)
        jumped_here = self._jumped is not None and self._jumped == (at, current)
        if jumped_here or current <= targets[at]:
            if at == 0:
                return False
            at -= 1
        self._go_to_hunk(at)
        return True

    def hunk_position(self) -> tuple[int, int]:
        """(1-based number of the hunk the view is on or 0 above the first, count)."""
        return self._current_hunk() + 1, len(self._hunk_targets())

    def action_next_hunk(self) -> None:
        self.next_hunk()

    def action_previous_hunk(self) -> None:
        self.previous_hunk()

    def action_toggle_split(self) -> None:
        self.split = not self.split

    def watch_split(self, old: bool, new: bool) -> None:
        self._relayout(old, self.mode)

    def watch_mode(self, old: Mode, new: Mode) -> None:
        self._relayout(self.split, old)

    def _relayout(self, old_split: bool, old_mode: Mode) -> None:
        """Redraw in the new layout, keeping the line that was at the top at the top."""
        diff = self._diff
        old_line, new_line = self._top_lines(old_split, old_mode)
        header = -1  # a hunk header at the top stays at the top
        if diff is not None and not diff.binary and old_mode == self.mode == "diff":
            rows = diff.split_rows if old_split else diff.unified_rows
            y = round(self.scroll_y)
            if y < len(rows) and rows[y].kind == "@":
                header = rows[y].hunk
        self._layout_changed()
        if header >= 0 and diff is not None:
            self.scroll_to(y=diff.hunk_rows(self.split)[header], animate=False, force=True)
        elif old_line >= 0 or new_line >= 0:
            self.scroll_to(y=self._row_of(old_line, new_line), animate=False, force=True)

    def _top_lines(self, split: bool, mode: Mode) -> tuple[int, int]:
        """(old, new) line indexes shown at the top of a layout; -1 where unknown."""
        diff = self._diff
        if diff is None or diff.binary:
            return -1, -1
        y = round(self.scroll_y)
        if mode == "before":
            return (y, _map_line(diff.ops, y, old_to_new=True)) if y < len(diff.old_lines) else (-1, -1)
        if mode == "after":
            return (_map_line(diff.ops, y, old_to_new=False), y) if y < len(diff.new_lines) else (-1, -1)
        rows = diff.split_rows if split else diff.unified_rows
        for row in rows[y : y + 2]:
            if row.kind != "@":
                return row.old, row.new
        return -1, -1

    def _row_of(self, old: int, new: int) -> int:
        """The row of the current layout that shows old line `old` or new line `new`."""
        diff = self._diff
        assert diff is not None
        if self.mode == "before":
            return old if old >= 0 else _map_line(diff.ops, new, old_to_new=False)
        if self.mode == "after":
            return new if new >= 0 else _map_line(diff.ops, old, old_to_new=True)
        # The hunk that holds the line, or the first one after it, by the side we know exactly.
        by_new = new >= 0
        index = new if by_new else old
        firsts = [hunk.new_start if by_new else hunk.old_start for hunk in diff.hunks]
        h = bisect_right(firsts, index) - 1
        starts = diff.hunk_rows(self.split)
        if h < 0:
            return 0
        hunk = diff.hunks[h]
        count = hunk.new_count if by_new else hunk.old_count
        if index >= firsts[h] + count:
            return starts[h + 1] if h + 1 < len(starts) else starts[h]
        rows = self._rows()
        end = starts[h + 1] if h + 1 < len(starts) else len(rows)
        for y in range(starts[h], end):
            if (rows[y].new if by_new else rows[y].old) == index:
                return y
        return starts[h]

    def _layout_changed(self) -> None:
        self._line_cache.clear()
        self._update_virtual_size()
        self.refresh()


def _map_line(ops: list[Op], index: int, old_to_new: bool) -> int:
    """The line on the other side that corresponds to `index`: the same line where it is
    unchanged, the start of its replacement where it changed."""
    if index < 0:
        return -1
    starts = [op.i1 if old_to_new else op.j1 for op in ops]
    k = bisect_right(starts, index) - 1
    if k < 0:
        return 0
    tag, i1, i2, j1, j2 = ops[k]
    if old_to_new:
        return j1 + (index - i1) if tag == "equal" else j1
    return i1 + (index - j1) if tag == "equal" else i1

