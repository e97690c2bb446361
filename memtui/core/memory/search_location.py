"""Where a search index (memtui.core.memory.search) is kept.

- A memtui store's: beside it, `<store dir>/.memtui/search.db` (normally `.agent/.memtui/`).
- An agent's own sessions (a Claude Code or Codex home, any source that is not a memtui
  store): in memtui's own cache folder, `$XDG_CACHE_HOME/memtui/search/` (`~/.cache/memtui`
  by default; the folder 0700: the index holds the sessions' text), one file per home, named
  by the home's resolved path and the kind of source. Nothing is written inside the home.
- PRIVATE (SQLite's private temporary database, built for the one search) where no file may
  be written: the process must not write (--read-only), the folder is not writable, or the
  workspace has neither a store nor an `.agent` folder (memory documents only).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from memtui.core.atomic import check_writes_allowed, is_mine
from memtui.core.errors import WritesForbidden
from memtui.core.memory_source import MemorySource
from memtui.core.store.paths import AGENT_DIR
from memtui.core.places import cache_dir

PRIVATE = ""
"""SQLite's private temporary database: its file is removed as soon as it is opened (nothing
stays on disk, even after kill -9) and its pages live there, not in memory — an index of a
large store would not fit. For one search where no index file may be written."""
UNSAVED = (PRIVATE, ":memory:")
INDEX_NAME = ".memtui/search.db"
CACHE_FOLDER = "search"
"""The folder of sessions' indexes under memtui's cache folder."""


def default_index_path(root: Path, store: MemorySource | None = None) -> str:
    """Where the index of workspace `root` (and `store`, if any) is kept: see the module."""
    try:
        check_writes_allowed()
    except WritesForbidden:
        return PRIVATE
    tables = store.record_tables() if store is not None else None
    if store is not None and tables is None:
        return cached_index_path(root, store)
    folder = tables.index_folder() if tables is not None else root / AGENT_DIR
    if not folder.is_dir():
        return PRIVATE
    return writable(folder / INDEX_NAME, folder)


def cached_index_path(root: Path, source: MemorySource, cache: Path | None = None) -> str:
    """The index of an agent's own sessions at `root`, in memtui's cache folder (made, or kept,
    0700), or PRIVATE when that folder cannot be made or written."""
    folder = (cache or cache_dir()) / CACHE_FOLDER
    home = str(Path(root).resolve())
    kind = source.kind or type(source).__name__
    key = hashlib.sha256(f"{kind}\0{home}".encode()).hexdigest()[:20]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(home).name.lstrip(".") or "root")[:40]
    try:
        if not folder.is_dir():
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.mkdir(mode=0o700, exist_ok=True)
        keep_private(folder)
    except OSError:
        return PRIVATE
    return writable(folder / f"{kind}-{name}-{key}.db", folder)


def keep_private(folder: Path) -> None:
    """Make `folder` 0700 when it is memtui's own (a real folder of this user; mkdir's mode
    passes through the umask, and one made before, or by hand, may be looser): never a
    symlink's target or a folder of someone else."""
    st = os.lstat(folder)
    if stat.S_ISDIR(st.st_mode) and is_mine(st) and stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(folder, 0o700)


def writable(target: Path, folder: Path) -> str:
    """`target` when it (or, not there yet, the folder it goes into) can be written, else PRIVATE."""
    if target.exists():
        return str(target) if os.access(target, os.W_OK) and os.access(target.parent, os.W_OK) else PRIVATE
    probe = target.parent if target.parent.is_dir() else folder
    return str(target) if os.access(probe, os.W_OK) else PRIVATE
