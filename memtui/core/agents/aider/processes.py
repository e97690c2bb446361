"""Whether an `aider` process is running in a repository: Aider writes no end to a session, so its
processes are the only record of one still open (psutil: each process's command line and working
folder; nothing is written, nothing is signalled)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

FRESH_FOR = 1.0
"""Seconds one look at the processes answers for: a home with many repositories holding Aider
histories (`memtui ~`) lists the processes once, not once per repository."""

_lock = threading.Lock()
_seen: tuple[float, frozenset[str], bool] | None = None


def _is_aider(argv: list[str]) -> bool:
    return any(os.path.basename(a) == "aider" for a in argv[:2]) or "aider.main" in argv[:3]


def _aider_folders_proc() -> tuple[frozenset[str], bool] | None:
    """`_aider_folders` from Linux's /proc (None elsewhere): each process's command line, and
    the working folder of those that are aider's. Importing psutil and walking its processes
    costs a tenth of a second or more, paid before the first paint of `memtui ~`."""
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    if not pids:
        return None
    folders, unsure = set(), False
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                raw = f.read()
        except OSError:  # gone since listed
            continue
        if b"aider" not in raw:
            continue
        argv = raw.decode("utf-8", "surrogateescape").split("\0")
        if not _is_aider(argv):
            continue
        try:
            folders.add(os.path.realpath(os.readlink(f"/proc/{pid}/cwd")))
        except PermissionError:  # another user's
            unsure = True
        except OSError:
            continue
    return frozenset(folders), unsure


def _aider_folders() -> tuple[frozenset[str], bool]:
    """The working folders of the running `aider` processes, and whether one would not say."""
    if sys.platform.startswith("linux"):
        found = _aider_folders_proc()
        if found is not None:
            return found
    import psutil  # only when asked: listing processes is not free

    folders, unsure = set(), False
    for proc in psutil.process_iter(["cmdline"]):
        argv = proc.info.get("cmdline") or []
        if not _is_aider(argv):
            continue
        try:
            folders.add(os.path.realpath(proc.cwd()))
        except (psutil.AccessDenied, psutil.ZombieProcess):
            unsure = True
        except (psutil.Error, OSError):
            continue
    return frozenset(folders), unsure


def forget_processes() -> None:
    """The next question lists the processes again (a source's reload: see them as they are now)."""
    global _seen
    with _lock:
        _seen = None


def aider_running_in(repo: Path) -> bool | None:
    """True when a running `aider` works in `repo`, False when none does, None when a process that
    looks like aider would not say where it works (another user's)."""
    global _seen
    with _lock:
        if _seen is None or time.monotonic() - _seen[0] > FRESH_FOR:
            _seen = (time.monotonic(), *_aider_folders())
        _, folders, unsure = _seen
    if os.path.realpath(repo) in folders:
        return True
    return None if unsure else False
