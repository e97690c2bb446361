"""What every memtui screen shares: failed workers become one notification.

Textual posts `Worker.StateChanged` to the node that started the worker and does not
bubble it, so each screen forwards its own workers' failures to `app.report_worker`.
A new screen subclasses `MemtuiScreen` (or `MemtuiModal`) and gets this for free.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen, Screen
from textual.worker import Worker

T = TypeVar("T")


def _forward(node: Screen, event: Worker.StateChanged) -> None:
    report = getattr(node.app, "report_worker", None)
    if report is not None:
        report(event)


class MemtuiScreen(Screen[T]):
    """A full screen whose failed workers are reported by the app."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        _forward(self, event)


class MemtuiModal(ModalScreen[T]):
    """A modal screen whose failed workers are reported by the app."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        _forward(self, event)
