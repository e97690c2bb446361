"""Following a cursor that keeps moving: load for where it stops, not for every row passed.

A pane that loads what the pane above selects asks `Debounce.soon(name, load)`: the load
runs at once when the cursor was still, else once it has been quiet for `delay` seconds
(a key held down). One pending load per name; a newer request replaces it.
"""

from __future__ import annotations

from time import monotonic
from typing import Callable

from textual.dom import DOMNode
from textual.timer import Timer


class Debounce:
    """Pending loads of one node, by name."""

    def __init__(self, node: DOMNode, delay: float) -> None:
        self.node = node
        self.delay = delay
        self._pending: dict[str, Timer] = {}
        self._last: dict[str, float] = {}

    @property
    def pending(self) -> bool:
        """True while a load waits for the cursor to stop."""
        return bool(self._pending)

    def soon(self, name: str, load: Callable[[], None]) -> None:
        """Run `load` now if the cursor was still, else once it stops moving."""
        now = monotonic()
        moving = now - self._last.get(name, 0.0) < self.delay
        self._last[name] = now
        timer = self._pending.pop(name, None)
        if timer is not None:
            timer.stop()
        if not moving:
            load()
            return

        def fire() -> None:
            self._pending.pop(name, None)
            load()

        self._pending[name] = self.node.set_timer(self.delay, fire)

    def cancel(self, name: str) -> None:
        """Drop the pending load of `name` (what it would load arrived another way)."""
        timer = self._pending.pop(name, None)
        if timer is not None:
            timer.stop()
