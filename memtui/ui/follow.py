"""Follow mode: what an agent writes while memtui is open shows up by itself.

A `Follower` polls a cheap fingerprint of the open store's files (size and mtime of the
SQLite file and its write-ahead log; for another agent's store, of its transcript files)
every POLL_SECONDS, in a thread worker, never in a busy loop. When it changed, the app
reloads (a read-only SQLite connection opened `immutable` would never see the new pages)
and every pane keeps its selection; the step timeline of a running task tails the new
steps (memtui.ui.screens.main, `F`). `describe_changes` turns the counts before and after
into what ctrl+r says.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from memtui.core.memory_source import MemorySource

POLL_SECONDS = 0.5
"""How often the files are looked at (a few stat calls)."""
MAX_FILES = 5_000
"""Files of a transcript folder looked at per poll (a home holding more is not followed)."""

Fingerprint = tuple


def fingerprint(source: MemorySource) -> Fingerprint:
    """What changes when the source's files are written: (path, size, mtime) of each file
    (its databases with their write-ahead logs, else what it reads)."""
    paths = [Path(p) for db in source.watched_databases() for p in (db, f"{db}-wal")] or [Path(source.path)]
    marks: list[tuple[str, int, int]] = []
    for path in paths:
        if path.is_dir():
            marks += _folder(path)
        else:
            try:
                st = path.stat()
            except OSError:
                continue
            marks.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(marks)


def _folder(root: Path, depth: int = 3) -> list[tuple[str, int, int]]:
    marks: list[tuple[str, int, int]] = []
    stack = [(root, 0)]
    while stack and len(marks) < MAX_FILES:
        folder, level = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if level < depth:
                        stack.append((Path(entry.path), level + 1))
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    marks.append((entry.path, st.st_size, st.st_mtime_ns))
            except OSError:
                continue
    return sorted(marks)


class Follower:
    """Polls `source()`'s fingerprint; calls `changed()` on the UI thread when it moved."""

    def __init__(self, app: Any, source: Callable[[], Any], changed: Callable[[], None]) -> None:
        self.app = app
        self.source = source
        self.changed = changed
        self.enabled = True
        """Follow mode is on (the default)."""
        self._last: Fingerprint | None = None
        self._watched: Any = None

    def start(self) -> None:
        """Begin polling (on the app's timer)."""
        self.app.set_interval(POLL_SECONDS, self.poll)

    def poll(self) -> None:
        source = self.source()
        if not self.enabled or source is None:
            return
        self.app.run_worker(lambda: self._look(source), thread=True, exclusive=True, group="follow",
                            exit_on_error=False, description="look for changes")

    def _look(self, source: Any) -> None:
        mark = fingerprint(source)
        where = _where(source)
        if where != self._watched:  # another store (switched) or after forget(): its first look
            self._watched, self._last = where, mark
            return
        if mark != self._last:
            self._last = mark
            self.app.call_from_thread(self.changed)

    def seen(self, source: Any) -> tuple[str, Fingerprint]:
        """The source's files as they are now: taken before a reload opens a fresh connection."""
        return _where(source), fingerprint(source)

    def reloaded(self, seen: tuple[str, Fingerprint]) -> None:
        """The reload read at least what `seen` describes; anything written since is a change."""
        self._watched, self._last = seen


def _where(source: Any) -> str:
    """The files a source reads: the same after a reload reopens it (a write between the
    reload and the next look is still a change), different after a switch."""
    return str(getattr(source, "db_path", None) or source.path)


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
