"""Follow mode's core: has a source changed since we last looked? Cheap enough to ask every
second, never a busy loop, never a write.

A source names what to watch (`MemorySource.watched_databases()` and `watched_files()`):
for a SQLite database, `PRAGMA data_version` on a connection of the watch's own — it changes
when another connection commits — plus the size and mtime of the file and its `-wal`; for
files (transcripts, rollouts, JSONL sessions) and their folders, size and mtime (a new
session is a new file in a folder). The connection is opened only while the database has a
write-ahead log (then its `-shm` exists too, so opening read-only creates nothing) and is
closed when the log goes.

    watch = watch_source(source)        # Capability.LIVE
    ...
    if watch.poll():                    # True once per change; the first poll sets the baseline
        reload()
    watch.close()
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Hashable

from memtui.core.memory_source import Capability, MemorySource
from memtui.core.paths import stat_key
from memtui.core.sqlite_readonly import readonly_uri


class _DataVersion:
    """`PRAGMA data_version` of one database on a connection only this watch uses."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.wal = path.with_name(path.name + "-wal")
        self.conn: sqlite3.Connection | None = None

    def read(self) -> int | None:
        if not self.wal.exists():
            self.close()  # no log: nothing to read it through; the file's stat covers commits
            return None
        try:
            if self.conn is None:
                self.conn = sqlite3.connect(readonly_uri(self.path, immutable=False), uri=True,
                                            check_same_thread=False, timeout=0.2)
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            self.close()
            return None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class ChangeWatch:
    """Polls one source for changes. Thread-safe; `poll()` costs a few stat calls and at most
    one PRAGMA per database."""

    def __init__(self, source: MemorySource) -> None:
        self.source = source
        self._databases = [_DataVersion(Path(p)) for p in source.part(Capability.LIVE).watched_databases()]
        self._lock = threading.RLock()
        self._last: Hashable | None = None

    def token(self) -> Hashable:
        """What the source looks like now: equal tokens, no change."""
        with self._lock:
            files = [Path(p) for p in self.source.part(Capability.LIVE).watched_files()]
            for db in self._databases:
                files += [db.path, db.wal]
            return (tuple(db.read() for db in self._databases),
                    tuple((str(p), stat_key(p)) for p in files))

    def poll(self) -> bool:
        """True when the source changed since the previous poll (False on the first)."""
        with self._lock:
            now = self.token()
            changed = self._last is not None and now != self._last
            self._last = now
            return changed

    def baseline(self, token: Hashable) -> None:
        """Take `token` as what was last seen. A reader that reloads takes `token()` first,
        reloads, then calls this: what was written after the token, even during the reload,
        is a change at the next poll (no update is lost between a reload and a look)."""
        with self._lock:
            self._last = token

    def close(self) -> None:
        with self._lock:
            for db in self._databases:
                db.close()


def watch_source(source: MemorySource) -> ChangeWatch:
    """A ChangeWatch for a source that declares Capability.LIVE (Unsupported otherwise)."""
    source.require(Capability.LIVE)
    return ChangeWatch(source)
