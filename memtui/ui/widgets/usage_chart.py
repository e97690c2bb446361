"""Horizontal bars of cost (or tokens) per day: one line a day, newest at the bottom.

Rich bars, not a plot: a day's label, a bar in eighths of a cell, and the figure, which reads
at 80 columns where an axis-and-points plot would not.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from memtui.core.usage import Group, cost_text
from memtui.ui.text import human_tokens

EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: float, top: float, width: int) -> str:
    """A bar `width` cells long at `top`, in eighths of a cell."""
    if top <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = max(1, round(value / top * width * 8))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


class UsageChart(Widget):
    """Cost (or tokens) per day as bars; the newest days that fit the height."""

    COMPONENT_CLASSES = {"usage-chart--bar", "usage-chart--label", "usage-chart--figure"}
    """
    | Class | Description |
    | :- | :- |
    | `usage-chart--bar` | The bars. |
    | `usage-chart--label` | The day of each bar. |
    | `usage-chart--figure` | The figure after each bar. |
    """

    show_tokens: reactive[bool] = reactive(False)
    """Bars of tokens instead of cost."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.days: list[Group] = []

    def show(self, days: list[Group]) -> None:
        """Draw these days (oldest first)."""
        self.days = days
        self.refresh()

    def _value(self, day: Group) -> float:
        return float(day.tokens.total) if self.show_tokens else (day.cost or 0.0)

    def _figure(self, day: Group) -> str:
        return human_tokens(day.tokens.total) if self.show_tokens else cost_text(day.cost, day.unpriced)

    def render(self) -> Text:
        if not self.days:
            return Text("no token usage recorded", style=self.get_component_rich_style("usage-chart--label"))
        days = self.days[-max(1, self.size.height):]
        figures = [self._figure(d) for d in days]
        label_width = max(len(d.key) for d in days)
        figure_width = max(len(f) for f in figures)
        width = max(1, self.size.width - label_width - figure_width - 3)
        top = max(self._value(d) for d in days)
        text = Text(no_wrap=True, overflow="crop")
        for n, (day, figure) in enumerate(zip(days, figures)):
            if n:
                text.append("\n")
            text.append(f"{day.key:<{label_width}} ", style=self.get_component_rich_style("usage-chart--label"))
            drawn = bar(self._value(day), top, width)
            text.append(f"{drawn:<{width}}", style=self.get_component_rich_style("usage-chart--bar"))
            text.append(f" {figure:>{figure_width}}", style=self.get_component_rich_style("usage-chart--figure"))
        return text
