"""The UI's small writes to memtui's own store, shared by the screens that offer them.

The app browses read-only: a write opens its own short write connection, then the app
reopens its read-only source and every screen refreshes. Each runs as a worker of the
screen that asked, so a failure is reported by that screen (memtui.ui.screens.base).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from memtui.core.model import Id


def set_pinned(store: Any, task: Id, pinned: bool) -> None:
    """Pin or unpin through the store's writer (the app itself stays read-only)."""
    with store.writer() as writer:
        (writer.pin if pinned else writer.unpin)(task)


def pin_task(screen: Screen, task: Id, pinned: bool) -> None:
    """Pin (a GC root) or unpin `task` in a worker of `screen`; say so and reload."""
    app = screen.app

    def write() -> None:
        set_pinned(app.store, task, pinned)
        app.call_from_thread(done)

    def done() -> None:
        app.notify(f"Task #{task} {'pinned: GC keeps it (a root)' if pinned else 'unpinned'}.", markup=False)
        app.reopen_source()

    screen.run_worker(write, thread=True, exclusive=True, group="pin", exit_on_error=False,
                      description="pin the task")
