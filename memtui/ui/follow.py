"""Follow mode: what an agent writes while memtui is open shows up by itself.

A `Follower` asks the core's change watch (memtui.core.live: `PRAGMA data_version` and the
size and mtime of what the source names as watched) every POLL_SECONDS, in a thread worker,
never in a busy loop — for a source that can follow changes (Capability.LIVE). When it
changed, the app reloads (a read-only SQLite connection opened `immutable` would never see
the new pages) and every pane keeps its selection; the step timeline of a running task
tails the new steps (memtui.ui.screens.main, `F`). `describe_changes` turns the counts
before and after into what ctrl+r says.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable

from memtui.core.live import ChangeWatch, watch_source
from memtui.core.memory_source import Capability, MemorySource

POLL_SECONDS = 0.5
"""How often the source is looked at (a few stat calls, a PRAGMA per database)."""


class Follower:
    """Polls `source()` for changes; calls `changed()` on the UI thread when it changed."""

    def __init__(self, app: Any, source: Callable[[], MemorySource | None], changed: Callable[[], None]) -> None:
        self.app = app
        self.source = source
        self.changed = changed
        self.enabled = True
        """Follow mode is on (the default)."""
        self._watch: ChangeWatch | None = None
        self._watched: tuple[str, str] | None = None
        self._lock = threading.Lock()  # the poll worker and a reload on the UI thread

    def start(self) -> None:
        """Begin polling (on the app's timer)."""
        self.app.set_interval(POLL_SECONDS, self.poll)

    def poll(self) -> None:
        source = self.source()
        if not self.enabled or source is None or not source.can(Capability.LIVE):
            return
        self.app.run_worker(lambda: self._look(source), thread=True, exclusive=True, group="follow",
                            exit_on_error=False, description="look for changes")

    def _watch_for(self, source: MemorySource) -> ChangeWatch:
        """The watch over `source`'s files: kept while they are the same files (a reload
        reopens the store: its data_version stays comparable), a new one after a switch."""
        with self._lock:
            if self._watch is None or self._watched != _where(source):
                self.close()
                self._watch, self._watched = watch_source(source), _where(source)
            self._watch.source = source
            return self._watch

    def _look(self, source: MemorySource) -> None:
        if self._watch_for(source).poll():
            self.app.call_from_thread(self.changed)

    def opened(self, source: MemorySource) -> None:
        """`source` was just opened, before anything is read from it: what is written from now
        on is a change (else the first poll, up to POLL_SECONDS after the first read, would
        take a write made in between as its baseline and never show it). In the opening worker."""
        if source.can(Capability.LIVE):
            try:
                self.reloaded(self.seen(source))
            except Exception:  # the first poll takes the baseline (and its worker says what failed)
                return

    def seen(self, source: MemorySource) -> Hashable:
        """The source as it is now: taken before a reload opens a fresh connection."""
        return self._watch_for(source).token()

    def reloaded(self, seen: Hashable) -> None:
        """The reload read at least what `seen` describes; anything written since is a change."""
        if self._watch is not None:
            self._watch.baseline(seen)

    def close(self) -> None:
        """Close the watch's own connection (on a switch, or when the app leaves)."""
        if self._watch is not None:
            self._watch.close()
            self._watch = None


def _where(source: MemorySource) -> tuple[str, str]:
    """What a source reads: the same after a reload reopens it, different after a switch."""
    return source.kind, str(source.path)


def describe_changes(before: dict[str, int], after: dict[str, int]) -> str:
    """"2 new steps, 1 new task" (or fewer: "3 steps fewer"), or "nothing changed"."""
    parts = []
    for name in after:
        delta = after[name] - before.get(name, 0)
        if delta > 0:
            parts.append(f"{delta:,} new {_unit(name, delta)}")
        elif delta < 0:
            parts.append(f"{-delta:,} {_unit(name, -delta)} fewer")
    return ", ".join(parts) if parts else "nothing changed"


def _unit(name: str, n: int) -> str:
    word = name.replace("_", " ")
    return word[:-1] if n == 1 and word.endswith("s") and not word.endswith("ss") else word
