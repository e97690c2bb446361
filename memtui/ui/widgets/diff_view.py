"""DiffView: a virtualised, syntax-highlighted diff of one file (memtui's own, MIT).

Only the rows on screen are drawn (`ScrollView.render_line` with an LRU cache of strips), so a
50,000-line file costs what its visible part costs. Syntax highlighting is lexed lazily in blocks
of lines around what is visible; intra-line changes are computed lazily per visible pair of lines.
File contents are untrusted: they become plain segments (Rich markup is never parsed), control
characters and bidi overrides are made visible by `memtui.core.diff.display_line`.

The diff itself comes from `memtui.core.diff.prepare_file_diff`, which is pure: call it from a
thread worker for big files and hand the result to `DiffView.install`, or call `load`, which does
exactly that.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable, Literal

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.token import Token
from pygments.util import ClassNotFound
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import work
from textual.cache import LRUCache
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.worker import get_current_worker

from memtui.core.diff import (
    FileDiff,
    Op,
    Row,
    display_line,
    inline_changes,
    prepare_file_diff,
)

Mode = Literal["diff", "before", "after"]
TokenType = tuple[str, ...]
LineTokens = tuple[tuple[str, TokenType], ...]

#: Lines lexed together; a block starts lexing at a nearby "top-level" line for correct state.
HIGHLIGHT_BLOCK = 128
#: How far back a block looks for a line starting in column 0 to start lexing from.
HIGHLIGHT_LOOKBACK = 64
#: Blocks bigger than this (minified files, data) are shown without syntax highlighting.
HIGHLIGHT_MAX_CHARS = 200_000


class SyntaxLines:
    """Display lines of one side of a file, lexed lazily in blocks and cached."""

    def __init__(self, lines: list[str], lexer: Lexer | None, strip_cr: bool = False) -> None:
        self.lines = lines
        self.lexer = lexer
        self.strip_cr = strip_cr
        self._blocks: LRUCache[int, list[LineTokens]] = LRUCache(64)
        self._display: LRUCache[int, str] = LRUCache(4096)

    def display(self, index: int) -> str:
        """The sanitized text of one line."""
        text = self._display.get(index)
        if text is None:
            text = display_line(self.lines[index], strip_cr=self.strip_cr)
            self._display[index] = text
        return text

    def tokens(self, index: int) -> LineTokens:
        """(text, token type) pieces of one display line."""
        block = index // HIGHLIGHT_BLOCK
        lines = self._blocks.get(block)
        if lines is None:
            lines = self._lex_block(block)
            self._blocks[block] = lines
        return lines[index - block * HIGHLIGHT_BLOCK]

    def _lex_block(self, block: int) -> list[LineTokens]:
        start = block * HIGHLIGHT_BLOCK
        end = min(start + HIGHLIGHT_BLOCK, len(self.lines))
        display = [display_line(line, strip_cr=self.strip_cr) for line in self.lines[start:end]]
        plain: list[LineTokens] = [((text, Token.Text),) for text in display]
        if self.lexer is None or sum(map(len, display)) > HIGHLIGHT_MAX_CHARS:
            return plain
        # Start lexing at a line in column 0 (a def, class, import, tag …) so that strings and
        # comments opened just above the block are less likely to leave the lexer in a wrong state.
        sync = start
        for k in range(start - 1, max(start - HIGHLIGHT_LOOKBACK, 0) - 1, -1):
            line = self.lines[k]
            if line and not line[0].isspace():
                sync = k
                break
        lead = [display_line(line, strip_cr=self.strip_cr) for line in self.lines[sync:start]]
        code = "\n".join(lead + display) + "\n"
        result: list[list[tuple[str, TokenType]]] = [[]]
        try:
            for token_type, text in self.lexer.get_tokens(code):
                parts = text.split("\n")
                for k, part in enumerate(parts):
                    if k:
                        result.append([])
                    if part:
                        result[-1].append((part, token_type))
        except Exception:  # a lexer bug must not take the view down
            return plain
        result = result[len(lead) :][: len(display)]
        if len(result) != len(display) or any(
            "".join(text for text, _ in pieces) != line for pieces, line in zip(result, display)
        ):
            return plain
        return [tuple(pieces) for pieces in result]


def lexer_for(path: str) -> Lexer | None:
    """A pygments lexer chosen by the file name only (guessing from content is slow), or None."""
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False, tabsize=0)
    except ClassNotFound:
        return None
    except Exception:
        return None


class DiffView(ScrollView, can_focus=True):
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
        self._old: SyntaxLines = SyntaxLines([], None)
        self._new: SyntaxLines = SyntaxLines([], None)
        self._line_cache: LRUCache[tuple, Strip] = LRUCache(1024)
        self._inline_cache: LRUCache[tuple[int, int], tuple | None] = LRUCache(4096)
        self._styles: dict[tuple, RichStyle] = {}
        self._token_styles: dict[TokenType, VisualStyle] = {}
        self.set_reactive(DiffView.split, split)
        if path or before is not None or after is not None:
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
        self.install(prepare_file_diff(path, before, after))

    @work(thread=True, exclusive=True, group="diff-view", exit_on_error=False)
    def load(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """Diff two contents of `path` in a thread worker, then install the result."""
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

    def next_hunk(self) -> bool:
        """Scroll the next hunk to the top; False when there is none below."""
        current = round(self.scroll_y)
        for y in self._hunk_targets():
            if y > current:
                self.scroll_to(y=y, animate=False, force=True)
                return True
        return False

    def previous_hunk(self) -> bool:
        """Scroll the previous hunk to the top; False when there is none above."""
        current = round(self.scroll_y)
        for y in reversed(self._hunk_targets()):
            if y < current:
                self.scroll_to(y=y, animate=False, force=True)
                return True
        return False

    def hunk_position(self) -> tuple[int, int]:
        """(1-based number of the hunk at the top of the view or 0 above the first, count)."""
        targets = self._hunk_targets()
        current = round(self.scroll_y)
        return sum(1 for y in targets if y <= current), len(targets)

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

    # ------------------------------------------------------------------ geometry

    def _notice_lines(self) -> list[str] | None:
        """Text shown instead of rows: binary summary, "no changes", an absent side."""
        diff = self._diff
        if diff is None:
            return []
        if diff.binary:
            return [
                "Binary or undecodable content: no text diff.",
                f"before: {diff.before.describe()}",
                f"after:  {diff.after.describe()}",
            ]
        if self.mode == "before" and diff.before.size is None:
            return ["The file did not exist before this change."]
        if self.mode == "after" and diff.after.size is None:
            return ["The file was deleted by this change."]
        if self.mode == "diff" and diff.identical:
            lines = len(diff.new_lines)
            return [f"No changes ({lines:,} line{'s' if lines != 1 else ''} identical)."]
        return None

    def _rows(self) -> list[Row]:
        diff = self._diff
        assert diff is not None
        return diff.split_rows if self.split else diff.unified_rows

    def _row_count(self) -> int:
        notice = self._notice_lines()
        if notice is not None:
            return len(notice)
        diff = self._diff
        assert diff is not None
        if self.mode == "before":
            return len(diff.old_lines)
        if self.mode == "after":
            return len(diff.new_lines)
        return len(self._rows())

    def _number_width(self) -> int:
        diff = self._diff
        if diff is None:
            return 1
        return len(str(max(len(diff.old_lines), len(diff.new_lines), 1)))

    def _gutter_width(self) -> int:
        w = self._number_width()
        if self.mode == "diff" and not self.split:
            return 2 * w + 4  # "old new ± "
        return w + 3  # "no ± "

    def _update_virtual_size(self) -> None:
        diff = self._diff
        longest = 0
        notice = self._notice_lines()
        if notice is not None:
            longest = max(map(len, notice), default=0)
        elif diff is not None:
            # Characters, not cells: close enough for the scrollbar, and linear.
            sides = {"before": (diff.old_lines,), "after": (diff.new_lines,)}.get(
                self.mode, (diff.old_lines, diff.new_lines)
            )
            longest = max((max(map(len, lines), default=0) for lines in sides), default=0)
            if self.mode == "diff" and self.split:
                # Both halves scroll together: room to bring the longest line into one half.
                half = (self.scrollable_content_region.width - 1) // 2
                longest = self.scrollable_content_region.width + max(
                    0, longest - (half - self._gutter_width())
                )
            else:
                longest += self._gutter_width()
        self.virtual_size = Size(longest, self._row_count())

    # ------------------------------------------------------------------ styles

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._token_styles.clear()
        self._line_cache.clear()

    def _token_style(self, token_type: TokenType) -> VisualStyle:
        style = self._token_styles.get(token_type)
        if style is None:
            style = VisualStyle()
            styles = HighlightTheme.STYLES
            walk: TokenType | None = token_type
            while walk is not None:
                if (text := styles.get(walk)) is not None:
                    try:
                        style = VisualStyle.parse(text) if text else VisualStyle()
                    except Exception:
                        style = VisualStyle()
                    break
                walk = walk.parent  # type: ignore[attr-defined]
            self._token_styles[token_type] = style
        return style

    def _style(self, components: tuple[str, ...], token_type: TokenType | None = None) -> RichStyle:
        """The Rich style of text with these component classes (and a syntax token) applied."""
        key = (components, token_type)
        style = self._styles.get(key)
        if style is None:
            visual = self.get_visual_style(*components)
            if token_type is not None:
                visual = visual + self._token_style(token_type)
            style = self._styles[key] = visual.rich_style
        return style

    # ------------------------------------------------------------------ rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        key = (row, scroll_x, width, self.split, self.mode)
        strip = self._line_cache.get(key)
        if strip is None:
            strip = self._render_row(row, scroll_x, width)
            self._line_cache[key] = strip
        return strip

    def _render_row(self, y: int, scroll_x: int, width: int) -> Strip:
        base = self._style(())
        diff = self._diff
        notice = self._notice_lines()
        if diff is None or notice is not None:
            if notice and 0 <= y < len(notice):
                strip = Strip([Segment(notice[y], self._style(("diff-view--notice",)))])
                return strip.crop_extend(scroll_x, scroll_x + width, base)
            return Strip.blank(width, base)
        if self.mode != "diff":
            before = self.mode == "before"
            count = len(diff.old_lines if before else diff.new_lines)
            if not 0 <= y < count:
                return Strip.blank(width, base)
            changed = (diff.old_changed if before else diff.new_changed)[y]
            kind = ("-" if before else "+") if changed else " "
            return self._render_side(kind, y, "old" if before else "new", -1, scroll_x, width)
        rows = self._rows()
        if not 0 <= y < len(rows):
            return Strip.blank(width, base)
        row = rows[y]
        if row.kind == "@":
            header = diff.hunks[row.hunk].header
            if row.hunk == len(diff.hunks) - 1 and diff.final_newline_note:
                header += f"  ({diff.final_newline_note})"
            style = self._style(("diff-view--hunk-header",))
            return Strip([Segment(header, style)]).crop_extend(scroll_x, scroll_x + width, style)
        if not self.split:
            return self._render_unified(row, scroll_x, width)
        left_width = (width - 1) // 2
        right_width = width - 1 - left_width
        if row.kind == " ":
            left = self._render_side(" ", row.old, "old", -1, scroll_x, left_width)
            right = self._render_side(" ", row.new, "new", -1, scroll_x, right_width)
        else:
            if row.old >= 0:
                left = self._render_side("-", row.old, "old", row.pair, scroll_x, left_width)
            else:
                left = self._render_filler(left_width)
            if row.new >= 0:
                partner = row.old if row.pair >= 0 else -1
                right = self._render_side("+", row.new, "new", partner, scroll_x, right_width)
            else:
                right = self._render_filler(right_width)
        separator = Strip([Segment("│", self._style(("diff-view--gutter",)))])
        return Strip.join([left, separator, right])

    def _render_unified(self, row: Row, scroll_x: int, width: int) -> Strip:
        w = self._number_width()
        old_no = f"{row.old + 1:>{w}}" if row.old >= 0 else " " * w
        new_no = f"{row.new + 1:>{w}}" if row.new >= 0 else " " * w
        if row.kind == " ":
            line_style: tuple[str, ...] = ()
            sign, sign_style = " ", self._style(("diff-view--gutter",))
            side, index, partner = "new", row.new, -1
        elif row.kind == "-":
            line_style = ("diff-view--line-removed",)
            sign, sign_style = "-", self._style(("diff-view--line-removed", "diff-view--sign-removed"))
            side, index, partner = "old", row.old, row.pair
        else:
            line_style = ("diff-view--line-added",)
            sign, sign_style = "+", self._style(("diff-view--line-added", "diff-view--sign-added"))
            side, index, partner = "new", row.new, row.pair
        gutter_style = self._style((*line_style, "diff-view--gutter"))
        gutter = [Segment(f"{old_no} {new_no} ", gutter_style), Segment(sign, sign_style), Segment(" ", gutter_style)]
        code_width = max(0, width - (2 * w + 4))
        code = self._code(side, index, partner, line_style, scroll_x, code_width)
        return Strip(gutter + list(code), 2 * w + 4 + code_width)

    def _render_side(
        self, kind: str, index: int, side: str, partner: int, scroll_x: int, width: int
    ) -> Strip:
        """One side of a split row, or a row of a whole-file view: number, sign, code."""
        w = self._number_width()
        if kind == " ":
            line_style: tuple[str, ...] = ()
            sign_style = self._style(("diff-view--gutter",))
        elif kind == "-":
            line_style = ("diff-view--line-removed",)
            sign_style = self._style(("diff-view--line-removed", "diff-view--sign-removed"))
        else:
            line_style = ("diff-view--line-added",)
            sign_style = self._style(("diff-view--line-added", "diff-view--sign-added"))
        gutter_style = self._style((*line_style, "diff-view--gutter"))
        gutter = Strip(
            [Segment(f"{index + 1:>{w}} ", gutter_style), Segment(kind, sign_style), Segment(" ", gutter_style)]
        )
        gutter_width = w + 3
        if width <= gutter_width:
            return gutter.crop_extend(0, width, gutter_style)
        code_width = width - gutter_width
        code = self._code(side, index, partner, line_style, scroll_x, code_width)
        return Strip.join([gutter, code])

    def _render_filler(self, width: int) -> Strip:
        """The empty side of a split row: a faint hatch, so it does not read as a blank line."""
        return Strip([Segment("╱" * width, self._style(("diff-view--filler",)))], width)

    def _code(
        self,
        side: str,
        index: int,
        partner: int,
        line_style: tuple[str, ...],
        scroll_x: int,
        width: int,
    ) -> Strip:
        """Syntax-highlighted code of one line, with changed characters marked, cropped."""
        lines = self._old if side == "old" else self._new
        tokens = lines.tokens(index)
        spans: list[tuple[int, int]] = []
        if partner >= 0:
            key = (index, partner) if side == "old" else (partner, index)
            changes = self._inline_cache.get(key, False)
            if changes is False:
                changes = inline_changes(self._old.display(key[0]), self._new.display(key[1]))
                self._inline_cache[key] = changes
            if changes is not None:
                spans = changes[0] if side == "old" else changes[1]
        change_style = line_style + (
            ("diff-view--change-removed",) if side == "old" else ("diff-view--change-added",)
        )
        segments = [
            Segment(text, self._style(change_style if changed else line_style, token_type))
            for text, token_type, changed in _split_by_spans(tokens, spans)
        ]
        fill = self._style(line_style)
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, fill)


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


def _split_by_spans(
    tokens: LineTokens, spans: list[tuple[int, int]]
) -> Iterable[tuple[str, TokenType, bool]]:
    """Cut syntax tokens at the edges of changed spans: (text, token type, inside a change)."""
    if not spans:
        for text, token_type in tokens:
            yield text, token_type, False
        return
    edges = sorted({edge for span in spans for edge in span})
    pos = 0
    for text, token_type in tokens:
        end = pos + len(text)
        cut = pos
        for edge in edges:
            if pos < edge < end:
                piece = text[cut - pos : edge - pos]
                yield piece, token_type, _inside(spans, cut)
                cut = edge
        yield text[cut - pos :], token_type, _inside(spans, cut)
        pos = end


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(start <= offset < end for start, end in spans)
