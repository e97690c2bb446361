"""Worker failures, for screens and for the few widgets that run workers of their own.

The reporting itself is the screens' one base (memtui.ui.screens.base.MemtuiScreen); a
widget's worker tells only that widget when it fails, so the widget hands the state change
to its screen with `forward_worker_state`.
"""

from __future__ import annotations

from textual.widget import Widget
from textual.worker import Worker

from memtui.core.display import sanitize


def failure_reason(worker: Worker) -> str:
    """The worker's error in one line, for a pane that waited on it: shown literally (an error
    may name a path or quote text holding an ESC sequence)."""
    error = worker.error
    return sanitize(str(error) or type(error).__name__) if error is not None else "unknown error"


def forward_worker_state(widget: Widget, event: Worker.StateChanged) -> None:
    """Hand a widget's worker state change to its screen, which reports a failure and
    leaves its loading state as for its own workers."""
    event.stop()
    widget.screen.post_message(Worker.StateChanged(event.worker, event.state))
