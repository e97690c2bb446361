"""One writer at a time: an exclusive flock held for a block of code.

The lock is on a folder (opened read-only) or on a lock file beside the data (made 0600 if
missing). The kernel drops it when its process dies, kill -9 included, so a crash never
leaves anything locked and there is nothing to clean up. Where the platform has no flock
(Windows) the block runs unlocked: one memtui at a time writes there.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

try:
    import fcntl
except ImportError:  # no flock (Windows)
    fcntl = None  # type: ignore[assignment]

POLL = 0.05  # seconds between tries while waiting a bounded time


class LockBusy(Exception):
    """Another process held the lock for the whole wait."""


@contextmanager
def held(path: Path, wait: float | None = None) -> Iterator[None]:
    """Hold an exclusive flock on `path` for the block. A folder is locked as it is; any other
    path names a lock file, made (0600) if missing. `wait=None` waits as long as it takes;
    otherwise LockBusy is raised once `wait` seconds have passed without the lock."""
    if os.path.isdir(path):
        fd = os.open(path, os.O_RDONLY)
    else:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            _take(fd, wait)
        yield
    finally:
        os.close(fd)  # releases the flock


def _take(fd: int, wait: float | None) -> None:
    if wait is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockBusy() from None
            time.sleep(POLL)
