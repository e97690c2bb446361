"""A verb's progress line while the index of an agent's home is built (stderr, a terminal only):
`memtui: indexing HOME: 120/2000 transcripts`, rewritten in place and cleared when done; and
while a first search builds its search index: `memtui: search index of HOME: 120/2000 sessions`."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

SHOW_FROM = 50
"""A build that reads this many files shows the line from its first file; a smaller one only
once it has taken longer than AFTER_S."""
AFTER_S = 0.5
EVERY_S = 0.1
"""The line is rewritten at most this often."""


class ProgressLine:
    """Told (home, read, to read, source) by memtui.core.sources.kept_parts.watch_builds."""

    def __init__(self, stream: TextIO, doing: str = "indexing", unit: str = "transcripts") -> None:
        self.stream, self.doing, self.unit = stream, doing, unit
        self.started = 0.0
        self.written = 0.0
        self.shown = False

    def __call__(self, home: Path, done: int, total: int, _source: object = None) -> None:
        from memtui.core.display import sanitize

        now = time.monotonic()
        if done <= 1:
            self.started = now
        if done >= total:
            self.clear()
            return
        if (total < SHOW_FROM and now - self.started < AFTER_S) or (self.shown and now - self.written < EVERY_S):
            return
        self.stream.write(f"\rmemtui: {self.doing} {sanitize(str(home))}: {done}/{total} {self.unit}\x1b[K")
        self.stream.flush()
        self.written, self.shown = now, True

    def clear(self) -> None:
        """Clear the line if it is shown (a build that stopped before its end: an error follows)."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def show_progress(verb: str) -> None:
    """A verb run on a terminal shows the progress of index builds on stderr (the app shows
    its own; a pipe or file gets nothing)."""
    if verb not in ("open", "serve", "demo") and sys.stderr.isatty():
        from memtui.core.sources.kept_parts import watch_builds

        watch_builds(ProgressLine(sys.stderr))


class SearchProgress:
    """What a verb's search index refresh tells its progress to (SearchIndex.refresh): a
    ProgressLine on stderr, `memtui: search index of HOME: 120/2000 sessions`."""

    def __init__(self, home: object) -> None:
        self.home = Path(str(home))
        self.line = ProgressLine(sys.stderr, "search index of")

    def __call__(self, done: int, total: int, what: str) -> None:
        self.line.unit = what
        self.line(self.home, done, total)

    def clear(self) -> None:
        """Clear the line if it is shown (a refresh that failed: its error on a line of its own)."""
        self.line.clear()


def search_progress(home: object) -> SearchProgress | None:
    """A search index refresh's progress line on a terminal's stderr; None for a pipe or file."""
    return SearchProgress(home) if sys.stderr.isatty() else None
