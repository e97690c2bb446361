"""Scrollbars redrawn when what they show changes, not at every layout.

Textual redraws a scroll view's scrollbars after every layout of the screen (ScrollView's
size check compares the compositor's size with the view's own virtual size, which differ),
and that redraw comes a frame later: a cursor move that lays the screen out (a new task tree,
a steps list of another length) drew its last frame ~16 ms after the panes themselves. The
lists of the main screen (RecordTable, TaskTree) let a scrollbar update through only when the
sizes it is drawn from changed, and make that update when their rows change, so the bar is
drawn in the same frame as the rows.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def already_shown(widget: Widget, virtual_size: Size) -> bool:
    """True when `widget`'s scrollbars were last updated for these sizes (else remember them)."""
    sizes = (virtual_size, widget.size, widget.container_size)
    if widget.__dict__.get("_scrollbar_sizes") == sizes:
        return True
    widget.__dict__["_scrollbar_sizes"] = sizes
    return False
