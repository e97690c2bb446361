"""A tree line fitted to the room it is drawn in: the title gives way first, then lesser
parts drop whole; a figure is never cut.

A line of the GC or cleanup preview is a head (an icon, a task number, a mark), a title (free
text that may be cut: with … at its end, or at its start for a folder whose end tells it
apart) and what stands beside it: figures (bytes, counts) and lesser parts (a mark's detail,
a size bar). A figure cut by the edge of the pane reads as another number ('1.7 KiB' → '1.'),
so what stands beside the title comes in forms, richest first, each dropping or shortening a
lesser part whole; the line takes the first form that leaves the title `least` cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.ui.text import kept_end


def fit_row(width: int, head: Text, title: Text, forms: Sequence[Text], *, least: int = 12,
            most: int | None = None, end_kept: bool = False) -> Text:
    """`head` + `title` + the first of `forms` that leaves the title `least` cells (or its
    whole width, when shorter) within `width`; past the last form, the last form and what is
    left for the title (at least its `…`). The title is cut to that room, and to `most`."""
    room = width - head.cell_len
    beside = richest_form(forms, room - min(least, title.cell_len))
    room = max(1, room - beside.cell_len)
    if most is not None:
        room = min(room, most)
    if title.cell_len > room:
        if end_kept:
            title = kept_end(title, room)
        else:
            title = title.copy()
            title.truncate(room, overflow="ellipsis")
    return Text.assemble(head, title, beside, no_wrap=True, end="")


def richest_form(forms: Sequence[Text], room: int) -> Text:
    """The first of `forms` (richest first) at most `room` cells wide; past the last form, the
    last (an empty Text when there are none)."""
    return next((form for form in forms if form.cell_len <= room), forms[-1] if forms else Text())


def label_room(tree: Tree[Any], node: TreeNode[Any]) -> int:
    """The cells a node's label has in the tree's view: the width inside borders, padding and
    scrollbar, less the guides drawn before it (none for the first level: the root is hidden)."""
    depth, parent = 0, node.parent
    while parent is not None and (parent is not tree.root or tree.show_root):
        depth += 1
        parent = parent.parent
    return tree.scrollable_content_region.width - depth * tree.guide_depth


RowT = TypeVar("RowT")


class FittedTree(Tree[RowT]):
    """A tree of groups and their rows (the root hidden), each line fitted to the pane."""

    DEFAULT_CSS = """
    FittedTree { scrollbar-gutter: stable; }
    """
    """The scrollbar's column is kept: lines are fitted to a width that a scrollbar appearing
    (a group opened) does not narrow after they were drawn."""

    def __init__(self, label: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(label, id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 2

    def current_row(self) -> RowT | None:
        """The data of the highlighted line (None on an empty tree)."""
        node = self.cursor_node
        return None if node is None or node is self.root else node.data
