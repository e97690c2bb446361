"""Whether an `aider` process is running in a repository: Aider writes no end to a session, so its
processes are the only record of one still open (psutil: each process's command line and working
folder; nothing is written, nothing is signalled)."""

from __future__ import annotations

import os
from pathlib import Path


def aider_running_in(repo: Path) -> bool | None:
    """True when a running `aider` works in `repo`, False when none does, None when a process that
    looks like aider would not say where it works (another user's)."""
    import psutil  # only when asked: listing processes is not free

    target = os.path.realpath(repo)
    unsure = False
    for proc in psutil.process_iter(["cmdline"]):
        argv = proc.info.get("cmdline") or []
        if not any(os.path.basename(a) == "aider" for a in argv[:2]) and "aider.main" not in argv[:3]:
            continue
        try:
            if os.path.realpath(proc.cwd()) == target:
                return True
        except (psutil.AccessDenied, psutil.ZombieProcess):
            unsure = True
        except (psutil.Error, OSError):
            continue
    return None if unsure else False
