"""Listing an agent's folders cheaply, and picking the files a workspace's sessions recorded:
what discovery needs of a home before any reader is imported (the Claude Code and Codex
listers, memtui.core.sources.relist's stores read again at each reload).

`Folders` lists a folder again only when its mtime changed (a file added, removed or renamed
in it changes it); `recorded_in` keeps the files whose recorded working directory is a
workspace, each file's read once.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Iterable

__all__ = ["RACY_NS", "Folders", "recorded_in"]

RACY_NS = 1_000_000_000
"""A folder changed less than this long before it was listed is listed again next time: a file
added in the same tick of the file system's clock would leave its mtime as it was."""


class Folders:
    """Folder listings, each kept while the folder's mtime is unchanged."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[int, list[tuple[str, bool, bool]]]] = {}

    def entries(self, folder: Path) -> list[tuple[str, bool, bool]]:
        """(name, is a folder, is a symbolic link) of each entry, sorted by name; [] when
        `folder` is not one."""
        try:
            mtime = os.stat(folder).st_mtime_ns
            known = self._known.get(folder)
            if known is not None and known[0] == mtime:
                return known[1]
            with os.scandir(folder) as found:
                entries = sorted((e.name, e.is_dir(), e.is_symlink()) for e in found)
        except OSError:  # gone, or not a folder
            self._known.pop(folder, None)
            return []
        if time.time_ns() - mtime > RACY_NS:
            self._known[folder] = (mtime, entries)
        return entries

    def files(self, folder: Path, suffix: str = "") -> list[Path]:
        return [folder / name for name, is_dir, _ in self.entries(folder)
                if not is_dir and name.endswith(suffix) and not name.startswith(".")]

    def folders(self, folder: Path, links: bool = True) -> list[Path]:
        """The sub-folders; `links` False leaves out links to folders (a walk down a tree must:
        a link to a folder above would list the same files again under ever longer paths)."""
        return [folder / name for name, is_dir, is_link in self.entries(folder)
                if is_dir and not name.startswith(".") and (links or not is_link)]


def recorded_in(workspace: Path, paths: Iterable[Path], cwd_of: Callable[[Path], str | None],
                cwds: dict[Path, str] | None = None) -> list[Path]:
    """The `paths` whose recorded working directory (`cwd_of`) is `workspace`. `cwds`: what was
    found before (resolved), for a listing made again: each file's cwd is read once (a file
    that records none yet is asked again)."""
    target = os.path.realpath(workspace)
    cwds = {} if cwds is None else cwds
    out = []
    for path in paths:
        if path not in cwds:
            cwd = cwd_of(path)
            if cwd is None:
                continue
            cwds[path] = os.path.realpath(cwd)
        if cwds[path] == target:
            out.append(path)
    return out
