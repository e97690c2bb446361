"""Follow mode's core: has a source changed since we last looked? Cheap enough to ask every
second, never a busy loop, never a write.

A source of many files (a heavy home: 3,500 transcripts and folders, 35 ms a look) is looked
at in two tiers: every poll stats its folders (a new session or project is a new entry there)
and the files written in the last HOT_SECONDS (the sessions going on); every file, and the
listing, only every SWEEP_SECONDS. A session idle for longer that an agent resumes is seen at
the next sweep, and from then on at every poll. Any change seen takes a whole look at once.

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

import os
import sqlite3
import stat
import threading
import time
from pathlib import Path
from typing import Hashable

from memtui.core.memory_source import Capability, MemorySource
from memtui.core.paths import stat_key
from memtui.core.sqlite_readonly import readonly_uri

TIERED_FROM = 200
"""Watched paths from which a poll looks at the folders and recent files alone between sweeps."""
SWEEP_SECONDS = 5.0
"""How often every watched path (and the source's listing) is looked at, when tiered."""
HOT_SECONDS = 600
"""A file written this recently (by its mtime) is looked at by every poll."""

StatKey = tuple[int, int, int] | None
"""(size, mtime in ns, inode) as memtui.core.paths.stat_key gives it; None: gone."""


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
    one PRAGMA per database (a source of TIERED_FROM paths or more: its folders and recent
    files between sweeps)."""

    def __init__(self, source: MemorySource) -> None:
        self.source = source
        self._databases = [_DataVersion(Path(p)) for p in source.part(Capability.LIVE).watched_databases()]
        self._lock = threading.RLock()
        self._last: Hashable | None = None
        # The folders and recent files of the token taken as the last seen (`_last`), and when it
        # was taken (None: look at everything next time); `_taken`: the same of the newest token.
        self._hot: tuple[tuple[str, StatKey], ...] | None = None
        self._swept = 0.0
        self._taken: tuple[Hashable, tuple[tuple[str, StatKey], ...] | None, float] | None = None

    def token(self) -> Hashable:
        """What the source looks like now (a whole look): equal tokens, no change."""
        with self._lock:
            files = [str(p) for p in self.source.part(Capability.LIVE).watched_files()]
            for db in self._databases:
                files += [str(db.path), str(db.wal)]
            keys: list[tuple[str, StatKey]] = []
            hot: list[tuple[str, StatKey]] = []
            recent = time.time_ns() - HOT_SECONDS * 1_000_000_000
            for path in files:
                try:
                    st = os.stat(path)
                except OSError:
                    keys.append((path, None))
                    continue
                key = (path, (st.st_size, st.st_mtime_ns, st.st_ino))
                keys.append(key)
                if stat.S_ISDIR(st.st_mode) or st.st_mtime_ns >= recent:
                    hot.append(key)
            token = (self._versions(), tuple(keys))
            self._taken = (token, tuple(hot) if len(files) >= TIERED_FROM else None, time.monotonic())
            return token

    def _seen(self, token: Hashable) -> None:
        """Take `token` as the last seen, with its folders and recent files if it is the newest."""
        self._last = token
        taken = self._taken
        self._hot, self._swept = (taken[1], taken[2]) if taken is not None and taken[0] is token else (None, 0.0)

    def _versions(self) -> tuple[int | None, ...]:
        return tuple(db.read() for db in self._databases)

    def _hot_unchanged(self) -> bool:
        """Between sweeps of a source of many files: its databases, folders and recent files
        are as the last look saw them (False: a whole look is due, or something changed)."""
        if self._hot is None or self._last is None or time.monotonic() - self._swept >= SWEEP_SECONDS:
            return False
        if self._databases and self._versions() != self._last[0]:  # type: ignore[index]
            return False
        return all(stat_key(path) == key for path, key in self._hot)

    def poll(self) -> bool:
        """True when the source changed since the previous poll (False on the first)."""
        with self._lock:
            if self._hot_unchanged():
                return False
            now = self.token()
            changed = self._last is not None and now != self._last
            self._seen(now)
            return changed

    def baseline(self, token: Hashable) -> None:
        """Take `token` as what was last seen. A reader that reloads takes `token()` first,
        reloads, then calls this: what was written after the token, even during the reload,
        is a change at the next poll (no update is lost between a reload and a look)."""
        with self._lock:
            self._seen(token)

    def close(self) -> None:
        with self._lock:
            for db in self._databases:
                db.close()


def watch_source(source: MemorySource) -> ChangeWatch:
    """A ChangeWatch for a source that declares Capability.LIVE (Unsupported otherwise)."""
    source.require(Capability.LIVE)
    return ChangeWatch(source)
