"""OpenCode's snapshot store, read-only: `snapshot/<project>/<hash>/` under its data folder is a
git object store (its tree at the start and the finish of each model step); the loose objects
are read with zlib — nothing is run, nothing written. A workspace's own objects, named by
`objects/info/alternates`, may be gone: a file they held is then unknown."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol

from memtui.core.paths import plain_name
from memtui.core.sources.git_objects import GitObjects


class Sides(Protocol):
    """A recorded file change whose missing sides the snapshots may fill."""

    path: str
    before: bytes | None
    after: bytes | None
    before_known: bool
    after_known: bool
    reason: str


def snapshot_repos(data: Path, project_id: str) -> list[Path]:
    """The snapshot repositories OpenCode keeps for a project under its data folder `data`;
    none for a recorded project id that is not a plain name (it could lead to any repository)."""
    if not plain_name(project_id):
        return []
    folder = data / "snapshot" / project_id
    try:
        return sorted(p for p in folder.iterdir() if (p / "HEAD").is_file()) if folder.is_dir() else []
    except OSError:
        return []


def fill_from_snapshots(change: Sides, repos: list[Path], worktree: str | None, before_tree: Any,
                        after_tree: Any) -> None:
    """An edit's (or a write over an existing file's) whole before/after from OpenCode's
    snapshot trees at the start and finish of its model step, when the store holds them."""
    if not worktree or not repos or change.before_known and change.after_known:
        return
    rel = os.path.relpath(change.path, worktree)
    if rel.startswith(".."):
        return
    for repo in repos:
        if not change.before_known:
            before = _blob(repo, before_tree, rel)
            if before is not None:
                change.before, change.before_known = before, True
        if not change.after_known:
            after = _blob(repo, after_tree, rel)
            if after is not None:
                change.after, change.after_known = after, True
    if change.before_known and change.after_known:
        change.reason = ""
    elif change.after_known:
        change.reason = "OpenCode's snapshots do not hold the file as it was before"


def _blob(repo: Path, tree: Any, rel: str) -> bytes | None:
    """The file `rel` in snapshot tree `tree` of OpenCode's git repository `repo` (its loose
    objects read with zlib: nothing run, nothing written), or None when the store does not hold it."""
    if not isinstance(tree, str):
        return None
    return GitObjects(repo, packed=False).file_in_tree(tree, rel)[1]
