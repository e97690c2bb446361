"""Table cells drawn by memtui.ui.widgets.cell_render look exactly as Textual's DataTable draws
them through Rich (same characters, same style on every cell of the line)."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.renderables.styled import Styled
from textual.strip import Strip

from memtui.ui.text import safe_text
from memtui.ui.widgets.cell_render import text_cell_lines

CELLS = [
    Text("Read"),
    Text("ok", style="green"),
    Text("12", justify="right"),
    Text("1,234,567 tokens", justify="right", style="bold"),
    Text("a rather long argument string that cannot fit in the column at all"),
    Text("a rather long title", overflow="ellipsis"),
    Text("a rather long title", overflow="crop", justify="center"),
    Text("trailing spaces   ", justify="right"),
    Text(""),
    Text("◆", style="magenta"),
    Text("日本語のファイル名.py"),
    Text("日本語のファイル名.py", overflow="ellipsis", justify="right"),
    Text.assemble(("✓ ", "green"), ("Fix the parser", "italic"), " ◀ current"),
    Text("x", no_wrap=True, style=Style(color="red", bgcolor="blue")),
    safe_text("\x1b[31mred\u202e evil [b]markup[/b]"),
    Text("mid", justify="center", style="bold"),
    Text("日本", justify="center"),
    Text("ab", justify="left", style="red"),
    Text("日本語のファイル名.py", justify="left", style="italic"),
]
STYLES = [
    (Style(), Style()),
    (Style(color="white", bgcolor="black"), Style()),
    (Style(bgcolor="#223344") + Style.from_meta({"row": 3, "column": 1}), Style(bold=True, bgcolor="#556677")),
]


def rich_cell(console: Console, cell: Text, width: int, padding: int, pre: Style, post: Style) -> list:
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    return console.render_lines(Styled(Padding(cell, (0, padding)), pre_style=pre, post_style=post), options)


def flat(lines: list) -> list[tuple[str, Style | None]]:
    """Character by character: segment boundaries may differ, what is drawn may not."""
    return [(ch, seg.style) for seg in Strip(lines[0]).simplify() for ch in seg.text]


@pytest.mark.parametrize("cell", CELLS, ids=lambda c: repr(c.plain[:12]))
def test_a_text_cell_is_drawn_as_rich_draws_it(cell: Text) -> None:
    console = Console(color_system="truecolor", width=120)
    for width in (1, 3, 6, 12, 40):
        for padding in (0, 1):
            for pre, post in STYLES:
                ours = text_cell_lines(console, console.options, cell, width, padding, pre, post)
                if width - 2 * padding < 1:
                    assert ours is None  # left to the DataTable
                    continue
                assert ours is not None and len(ours) == 1
                assert flat(ours) == flat(rich_cell(console, cell, width, padding, pre, post)), (width, padding)


@pytest.mark.parametrize("cell", [Text("two\nlines"), Text("a\ttab"), Text("wrap me please", no_wrap=False),
                                  "a plain string", Padding(Text("x"), 1)])
def test_anything_but_a_one_line_text_is_left_to_the_table(cell: object) -> None:
    console = Console(width=80)
    assert text_cell_lines(console, console.options, cell, 10, 1, Style(), Style()) is None
