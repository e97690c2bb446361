"""Containment: where a recorded, untrusted path may be written in a workspace.

A path that is absolute, holds `..`, or resolves (through a symlinked file or parent
directory) outside the workspace root escapes, and an escape refuses a whole rollback before
anything is written. Paths under `.agent/` (memtui's own store) resolve but are never written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memtui.core.errors import PathEscape
from memtui.core.paths import relative_parts
from memtui.core.store import AGENT_DIR


@dataclass(frozen=True)
class PathCheck:
    """Where a recorded path lands on disk, or why it may not be written."""

    resolved: Path | None
    refusal: str | None = None
    escapes: bool = False  # an escape refuses the whole rollback; other refusals only the file


def check_path(root: Path, path: str) -> PathCheck:
    """Resolve a recorded (untrusted) path under `root`, refusing anything that leads out.

    `root` must already be resolved (`Path.resolve()`). Symlinks inside the root that point
    inside it are followed: the file written is the one the agent edited through the link.
    """
    try:
        parts = relative_parts(path, root)
    except PathEscape as exc:
        return PathCheck(None, str(exc), escapes=True)
    # Walk the components so the message can name the symlink that leads out.
    current = root
    for i, part in enumerate(parts):
        current = current / part
        real = Path(os.path.realpath(current))
        if not _inside(root, real):
            what = "file" if i == len(parts) - 1 else "parent directory"
            shown = "/".join(parts[: i + 1])
            return PathCheck(None, f"{what} {shown!r} is a symlink leading outside the workspace root (to {real})",
                             escapes=True)
    real = Path(os.path.realpath(root.joinpath(*parts)))
    if real == root:
        return PathCheck(None, "resolves to the workspace root itself", escapes=True)
    agent = root / AGENT_DIR
    if parts[0].casefold() == AGENT_DIR or real == agent or agent in real.parents:
        return PathCheck(real, "under .agent/: a rollback never writes there")
    return PathCheck(real)


def _inside(root: Path, real: Path) -> bool:
    """`real` is `root` or below it (both already resolved)."""
    return real == root or root in real.parents
