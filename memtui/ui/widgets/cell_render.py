"""One line of a table cell, rendered straight from its Rich `Text`.

Textual's DataTable draws every cell by rendering `Styled(Padding(cell))` through Rich's
console (about 0.1 ms a cell: nested renderables, option copies, generic line splitting).
A cursor move that shows a new task redraws every visible row of the steps, so that cost
was most of the frame. Every cell memtui puts in a table is one line of `Text`, and for that
case the same segments come from the few steps Rich takes on the way: justify and truncate
the text to the cell, render it, pad it, and lay the cell's styles over it. Anything else
(several lines, tabs, wrapping asked for) is left to the DataTable (`None`).

tests/ui/test_cell_render.py checks, cell by cell, that the result equals Rich's.
"""

from __future__ import annotations

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
