"""The main screen's filter box: `/` filters the focused list as the user types.

A list it can filter has `filter_text` and `apply_filter(text)` (sessions, tasks, steps,
changed files). While a filter is set, the list's pane is marked `-filtered`.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Input

from memtui.ui.widgets.pane import Pane


def pane_of(widget: Widget) -> Pane:
    """The pane a list sits in."""
    return next(a for a in widget.ancestors if isinstance(a, Pane))


class ListFilter(Input):
    """An input, shown while active, that filters one list (its `target`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="filter…", id=id)
        self.target: Any | None = None
        """The list being filtered (the last one, once the box is closed)."""

    @property
    def active(self) -> bool:
        """True while the box is shown."""
        return self.has_class("-active")

    def open_for(self, target: Any) -> None:
        """Show the box on `target`'s filter and focus it."""
        self.target = target
        self.placeholder = f"filter {pane_of(target).label.lower()}…"
        self.value = target.filter_text
        self.add_class("-active")
        self.focus()

    def open_on(self, focused: Any, targets: list[Any]) -> None:
        """Open on the focused list, else on the list filtered last, else the first."""
        self.open_for(focused if focused in targets else self.target if self.target in targets else targets[0])

    def close(self, clear: bool = False) -> None:
        """Hide the box (clearing the filter first when `clear`); focus goes back to the list."""
        if clear:
            self.value = ""
        self.remove_class("-active")
        if self.target is not None:
            self.target.focus()

    @staticmethod
    def clear_on(target: Any) -> bool:
        """Clear a list's filter (escape on the list); False when it had none."""
        if not getattr(target, "filter_text", ""):
            return False
        target.apply_filter("")
        show_count(target, False)
        return True

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.target is not None:
            self.target.apply_filter(event.value)
            show_count(self.target, bool(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.close()


def show_count(target: Any, filtered: bool) -> None:
    """Mark the list's pane filtered, name the filter in its title and count what passes
    ("3 of 11"); unfiltered, put its own count back."""
    pane = pane_of(target)
    pane.set_class(filtered, "-filtered")
    pane.show_filter(getattr(target, "filter_text", "") if filtered else "")
    matching, records = getattr(target, "matching", None), getattr(target, "records", None)
    if matching is None or records is None:
        return  # the task tree: its own count stays
    if filtered:
        if not pane.has_class("-counted"):
            pane.unfiltered_subtitle = pane.border_subtitle
            pane.add_class("-counted")
        pane.border_subtitle = f"{len(matching):,} of {len(records):,}"
    elif pane.has_class("-counted"):
        pane.border_subtitle = pane.unfiltered_subtitle
        pane.remove_class("-counted")
