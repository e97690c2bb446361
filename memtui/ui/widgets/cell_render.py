"""One line of a table cell, rendered straight from its Rich `Text`.

Textual's DataTable draws every cell by rendering `Styled(Padding(cell))` through Rich's
console (about 0.1 ms a cell: nested renderables, option copies, generic line splitting).
A cursor move that shows a new task redraws every visible row of the steps, so that cost
was most of the frame. Every cell memtui puts in a table is one line of `Text`, and for that
case the same segments come from the few steps Rich takes on the way: justify and truncate
the text to the cell, render it, pad it, and lay the cell's styles over it. Anything else
(several lines, tabs, wrapping asked for) is left to the DataTable (`None`).

Most cells (a tool name, a number, a time) are a text with one style and no spans of their own:
`_plain_cell` takes those steps on the string itself (a tenth of the time again: no Text copy,
no Lines, no segment generators), as Rich would.

tests/ui/test_cell_render.py checks, cell by cell, that the result equals Rich's.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

_NEWLINE = Text("\n")
_NULL = Style.null()


def text_cell_lines(console: Console, options: ConsoleOptions, cell: object, width: int, padding: int,
                    pre_style: Style, post_style: Style) -> list[list[Segment]] | None:
    """The one line of a single-line `Text` cell `width` cells wide (padding included),
    styled as DataTable styles it (`pre_style` under the text's own styles, `post_style`
    over them); None when the cell is not such a text."""
    if type(cell) is not Text or cell.no_wrap is False or cell.overflow == "ignore":
        return None
    plain = cell.plain
    inner = width - 2 * padding
    if inner < 1 or "\n" in plain or "\t" in plain:
        return None
    justify = cell.justify or options.justify or "default"
    overflow = cell.overflow or options.overflow or "fold"
    if not cell.spans and justify != "full":
        return [_plain_cell(console, plain, cell.style, justify, overflow, inner, padding, pre_style, post_style)]
    line = cell.copy()
    # Text.wrap without wrapping: justify, then truncate to the width.
    Lines([line]).justify(console, inner, justify=justify, overflow=overflow)
    line.truncate(inner, overflow=overflow)
    # Text.__rich_console__ joins its lines: the text's own style becomes a span (render
    # draws a text without spans unstyled). Without spans of its own, that is one segment.
    if line.spans:
        segments = list(_NEWLINE.join([line]).render(console))
    else:
        segments = [Segment(line.plain, console.get_style(line.style, default=_NULL) if line.style else None)]
    used = Segment.get_line_length(segments)
    if used > inner:
        segments = Segment.adjust_line_length(segments, inner)
    elif used < inner:
        segments.append(Segment(" " * (inner - used), _NULL))
    if padding:
        side = Segment(" " * padding, _NULL)
        segments = [side, *segments, side]
    return [list(Segment.apply_style(segments, pre_style, post_style))]


def _fit(text: str, max_width: int, overflow: str) -> str:
    """Text.truncate (no padding) on a string."""
    if overflow != "ignore" and cell_len(text) > max_width:
        return set_cell_size(text, max_width - 1) + "…" if overflow == "ellipsis" else set_cell_size(text, max_width)
    return text


def _plain_cell(console: Console, plain: str, style: str | Style, justify: str, overflow: str, inner: int,
                padding: int, pre_style: Style, post_style: Style) -> list[Segment]:
    """text_cell_lines for a text without spans: Lines.justify, Text.truncate, the text's render
    (one segment in its style), the cell's padding and Segment.apply_style, on the string."""
    if justify == "left":
        length = cell_len(plain)
        text = _fit(plain, inner, overflow)
        if overflow != "ignore" and length < inner:
            text += " " * (inner - length)
    elif justify == "center" or justify == "right":
        text = _fit(plain.rstrip(), inner, overflow)
        if justify == "center":
            text = " " * ((inner - cell_len(text)) // 2) + text
            text += " " * (inner - cell_len(text))
        else:
            text = " " * (inner - cell_len(text)) + text
    else:
        text = plain
    text = _fit(text, inner, overflow)
    segments = [Segment(text, console.get_style(style, default=_NULL) if style else None)]
    used = cell_len(text)
    if used > inner:
        segments = [Segment(set_cell_size(text, inner), segments[0].style)]
    elif used < inner:
        segments.append(Segment(" " * (inner - used), _NULL))
    if padding:
        side = Segment(" " * padding, _NULL)
        segments = [side, *segments, side]
    if pre_style:
        segments = [Segment(text, pre_style + style) for text, style, _ in segments]
    if post_style:
        segments = [Segment(text, style + post_style if style else post_style) for text, style, _ in segments]
    return segments
