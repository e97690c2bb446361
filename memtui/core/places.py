"""Where memtui keeps its own files: one XDG rule for every folder of its own.

All live under memtui's own XDG folders, never inside an agent's home: settings
`$XDG_CONFIG_HOME/memtui`, the cleanup archive `$XDG_DATA_HOME/memtui/archive`, pins and
rollback undo `$XDG_STATE_HOME/memtui`, and under `$XDG_CACHE_HOME/memtui` the indexes, the
kept first page, inventory summaries, a team store's search index and unpacked archived
sessions for browsing. A relative XDG value is ignored, as the spec says.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping


def _xdg(env: Mapping[str, str] | None, variable: str, default: str) -> Path:
    env = os.environ if env is None else env
    value = env.get(variable)
    if value and os.path.isabs(value):  # the spec says relative values are ignored
        return Path(value)
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / default


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """memtui's settings folder (`$XDG_CONFIG_HOME/memtui`)."""
    return _xdg(env, "XDG_CONFIG_HOME", ".config") / "memtui"


def archive_dir(env: Mapping[str, str] | None = None) -> Path:
    """The default archive folder: `$XDG_DATA_HOME/memtui/archive`."""
    return _xdg(env, "XDG_DATA_HOME", ".local/share") / "memtui" / "archive"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """memtui's own state folder (`$XDG_STATE_HOME/memtui`): pins of foreign sessions."""
    return _xdg(env, "XDG_STATE_HOME", ".local/state") / "memtui"


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """memtui's cache folder (`$XDG_CACHE_HOME/memtui`): indexes, inventory summaries, unpacked archives."""
    return _xdg(env, "XDG_CACHE_HOME", ".cache") / "memtui"


def view_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where archived sessions are unpacked for browsing (`$XDG_CACHE_HOME/memtui/archive-view`)."""
    return cache_dir(env) / "archive-view"


def private_folder(path: Path) -> Path:
    """`path` as a folder, each part memtui creates made this user's alone (0700: archived
    transcripts and pins are private); folders that exist are left as they are."""
    path = Path(path)
    missing = []
    while not path.exists():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue  # made meanwhile by another memtui
        os.chmod(folder, 0o700)  # mkdir's mode passes through the umask
    return Path(missing[0]) if missing else path
