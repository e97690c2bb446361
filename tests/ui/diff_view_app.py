"""A tiny app hosting one DiffView on fixed content, for Pilot and snapshot tests."""

from __future__ import annotations

from textual.app import App, ComposeResult

from memtui.ui.widgets.diff_view import DiffView

BEFORE = '''"""Prices and discounts."""

import math


def total(price, count):
    """The price of `count` items."""
    return price * count


def average(values):
    """The mean of some prices."""
    if not values:
        return 0
    return sum(values) / len(values)


def describe(item):
    return f"[bold]{item.name}[/bold] costs {item.price}"


def rounded(amount):
    """Prices are shown to the cent."""
    return round(amount, 2)


def shipping(weight):
    if weight < 1:
        return 5
    return 5 + math.ceil(weight - 1) * 2


def tax(amount):
    return amount * 0.2
'''

AFTER = '''"""Prices, discounts and taxes."""

import math


def total(price, count, discount=0.0):
    """The price of `count` items, less a discount."""
    return price * count * (1 - discount)


def average(values):
    """The mean of some prices."""
    if not values:
        return 0
    return sum(values) / len(values)


def describe(item):
    return f"[bold red]{item.name}[/] costs \x1b[31m{item.price}\x1b[0m"


def rounded(amount):
    """Prices are shown to the cent."""
    return round(amount, 2)


def shipping(weight):
    if weight < 1:
        return 5
    return 5 + math.ceil(weight - 1) * 2


def tax(amount, rate=0.2):
    # Rates differ per country.
    return amount * rate
'''


class DiffViewApp(App[None]):
    """One DiffView filling the screen; n/p move between hunks, s toggles the split view."""

    BINDINGS = [
        ("n", "next_hunk", "Next hunk"),
        ("p", "previous_hunk", "Previous hunk"),
        ("s", "toggle_split", "Split"),
    ]

    def __init__(self, split: bool = False) -> None:
        super().__init__()
        self.split = split

    def compose(self) -> ComposeResult:
        yield DiffView("prices.py", BEFORE.encode(), AFTER.encode(), split=self.split)

    def action_next_hunk(self) -> None:
        self.query_one(DiffView).next_hunk()

    def action_previous_hunk(self) -> None:
        self.query_one(DiffView).previous_hunk()

    def action_toggle_split(self) -> None:
        view = self.query_one(DiffView)
        view.split = not view.split


if __name__ == "__main__":
    DiffViewApp().run()
