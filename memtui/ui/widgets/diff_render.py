"""How DiffView draws: the geometry of its rows, their styles, and each row as a Strip.

`DiffRows` is the drawing half of `DiffView` (memtui.ui.widgets.diff_view), which adds the
content, the reactives and the navigation. Only the rows on screen are drawn
(`ScrollView.render_line` with an LRU cache of strips); intra-line changes are computed lazily
per visible pair of lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle

from memtui.ui.widgets.diff_syntax import SyntaxLines, TokenType, split_by_spans

if TYPE_CHECKING:  # the diff engine is imported by the first diff shown, not before the first frame
    from memtui.core.diff import FileDiff, Row

Mode = Literal["diff", "before", "after"]


class DiffRows(ScrollView):
    """Rows of a diff drawn from `_diff`, `_old`/`_new` and the `split` and `mode` of DiffView."""

    _diff: FileDiff | None
    _old: SyntaxLines
    _new: SyntaxLines
    _line_cache: LRUCache[tuple, Strip]
    _inline_cache: LRUCache[tuple[int, int], tuple | None]
    _styles: dict[tuple, RichStyle]
    _token_styles: dict[TokenType, VisualStyle]
    split: bool
    mode: Mode

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
            from textual.highlight import HighlightTheme  # pygments: when a diff is first drawn

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
                from memtui.core.diff import inline_changes  # (not before the first frame)

                changes = inline_changes(self._old.display(key[0]), self._new.display(key[1]))
                self._inline_cache[key] = changes
            if changes is not None:
                spans = changes[0] if side == "old" else changes[1]
        change_style = line_style + (
            ("diff-view--change-removed",) if side == "old" else ("diff-view--change-added",)
        )
        segments = [
            Segment(text, self._style(change_style if changed else line_style, token_type))
            for text, token_type, changed in split_by_spans(tokens, spans)
        ]
        fill = self._style(line_style)
        return Strip(segments).crop_extend(scroll_x, scroll_x + width, fill)
