"""A tiny host App for the memory screens, so they are tested without the full app."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from memtui.resources import tcss_dir


class MemoryHost(App):
    """Pushes one screen (built by `make_screen`) over an empty base screen."""

    CSS_PATH = [tcss_dir() / "memory.tcss"]

    def __init__(self, make_screen, store=None) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(self.make_screen())


async def settle(pilot) -> None:
    """Wait for the screens' workers and the messages they post."""
    from textual.worker import WorkerCancelled

    for _ in range(3):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one: fine
            pass
        await pilot.pause()


def workspace(tmp_path: Path) -> Path:
    from memory_workspace import make_workspace

    return make_workspace(tmp_path / "ws")
