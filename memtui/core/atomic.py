"""Atomic file writes, shared by the memory-document save and the rollback engine.

A reader (or the agent) sees the old file or the new one, never a half-written one: the
bytes go to a temp file in the same directory, are fsynced, and renamed over the target;
the directory is fsynced so the rename survives a power cut.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import Callable

TEMP_SUFFIX = ".memtui-tmp"


def file_mode(path: Path) -> int | None:
    """The permission bits of the file at `path`, or None when there is no file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def write_atomic(
    path: Path, content: bytes, mode: int | None = None, *, before_replace: Callable[[], object] | None = None
) -> None:
    """Temp file beside `path`, fsync, rename over it, fsync the directory.

    `mode` is the mode to give the file (an existing file's, to keep it); None gives the
    default mode under the process umask, as an ordinary create would. `before_replace`
    runs just before the rename and may raise to abandon the write (the temp file goes):
    the memory save re-checks there that the agent has not written the file meanwhile.
    """
    path = Path(path)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make a rename or unlink in `directory` durable, where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open a directory; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories
    finally:
        os.close(fd)
