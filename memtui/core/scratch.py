"""Scratch folders: files memtui hands to another program for a while (the $EDITOR's copy of a
memory document, the demo workspace the app runs on without a PATH).

Each is a pid-named temp folder (`atomic.temp_dir`) under memtui's own cache,
`$XDG_CACHE_HOME/memtui/scratch` — never in a workspace or an agent's home. It is removed when
the work is done; if memtui is killed first, the next memtui that makes a scratch folder or
opens a workspace (`sweep_scratch`) removes it once its process is gone, never before.
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from memtui.core.atomic import remove_stale_temp_dirs, temp_dir
from memtui.core.places import cache_dir


def scratch_root() -> Path:
    """Where scratch folders are made: `$XDG_CACHE_HOME/memtui/scratch`."""
    return cache_dir() / "scratch"


def sweep_scratch() -> list[Path]:
    """Remove the scratch folders of memtui processes that are gone; the folders removed."""
    return remove_stale_temp_dirs(scratch_root())


def make_scratch(name: str) -> Path:
    """A new, empty scratch folder of this process (mode 0700), named after `name`; the
    caller removes it (`shutil.rmtree`) — or the sweep does, once this process is gone."""
    root = scratch_root()
    root.mkdir(parents=True, exist_ok=True)
    remove_stale_temp_dirs(root)
    folder = temp_dir(root / name)
    folder.mkdir(mode=0o700)
    return folder


@contextmanager
def scratch_folder(name: str) -> Iterator[Path]:
    """`make_scratch(name)`, removed with all it holds when the block ends."""
    folder = make_scratch(name)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
