"""One writer at a time in an agent's archive folder: a cleanup that archives, the recovery
it runs first, and a restore each hold an flock on `<archive>/<agent>/` for their whole run.
Without it a second cleanup's recovery takes the first one's tar, written but not yet
committed, for a torn one and deletes it.

The kernel drops the lock when its process dies (kill -9 included), so a crash never leaves
the folder locked. A second writer waits briefly, then says in one line that another one is
running. Within one thread the lock is re-entrant (apply_cleanup runs recover under it).
"""

from __future__ import annotations

import os
import threading
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

from memtui.core.atomic import check_writes_allowed
from memtui.core.cleanup.manifest import ArchiveError
from memtui.core.places import private_folder
from memtui.core.file_lock import LockBusy, held

WAIT = 3.0  # seconds a second cleanup or restore waits for the first before it says so

_held: dict[tuple[str, int], int] = {}  # (folder, thread) -> depth: re-entrant per thread


class ArchiveBusy(ArchiveError):
    """Another cleanup or restore holds the agent's archive folder."""


@contextmanager
def archive_lock(root: Path, agent: str, wait: float | None = None) -> Iterator[Path]:
    """Hold the lock of `root/agent` (made, 0700, if missing); yields the folder."""
    check_writes_allowed(Path(root) / agent)
    folder = private_folder(Path(root) / agent)
    key = (os.path.abspath(folder), threading.get_ident())
    if key in _held:
        _held[key] += 1
        try:
            yield folder
        finally:
            _held[key] -= 1
        return
    with ExitStack() as lock:
        try:
            lock.enter_context(held(folder, WAIT if wait is None else wait))
        except LockBusy:
            raise ArchiveBusy(f"another memtui cleanup or restore is using the archive folder {folder};"
                              " nothing was changed: run this again when it has finished") from None
        _held[key] = 1
        try:
            yield folder
        finally:
            del _held[key]
