"""Rollback, the records: what a plan says of each file, and the disk read both the plan
(memtui.core.rollback) and the writes (memtui.core.rollback_apply) check against."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from memtui.core.model import Id

__all__ = ["ROLLBACK_LABELS", "FilePlan", "RollbackPlan", "read_disk"]

ROLLBACK_LABELS = ("rollback", "undo")
"""The labels of the checkpoints memtui records itself (a rollback's undo, an undo's undo)."""


@dataclass(frozen=True)
class FilePlan:
    """One file of a rollback: what the store says, what the disk holds, what would happen."""

    path: str
    entry_ids: tuple[Id, ...]
    resolved: Path | None
    target: bytes | None = field(default=None, repr=False)  # content to restore; None → delete
    recorded: bytes | None = field(default=None, repr=False)  # after of the latest entry
    disk: bytes | None = field(default=None, repr=False)  # on disk when planned; None → missing
    refusal: str | None = None
    escapes: bool = False
    error: str | None = None
    force: bool = False
    recorded_action: str = "write"  # from the entries alone: shown when the contents were never read

    @property
    def action(self) -> str:
        """write | create | delete — what restoring does to the file as it is on disk now."""
        if self.refusal is not None or self.error is not None:
            return self.recorded_action
        if self.target is None:
            return "delete"
        return "create" if self.disk is None else "write"

    @property
    def restored(self) -> bool:
        """The disk already holds the target (nothing to do)."""
        return self.error is None and self.refusal is None and self.disk == self.target

    @property
    def conflict(self) -> bool:
        """The disk holds something other than what the latest rolled-back entry recorded."""
        return self.error is None and self.refusal is None and not self.restored and self.disk != self.recorded

    @property
    def status(self) -> str:
        """ready | done | conflict | refused | error, before anything is written."""
        if self.refusal is not None:
            return "refused"
        if self.error is not None:
            return "error"
        if self.restored:
            return "done"
        if self.conflict and not self.force:
            return "conflict"
        return "ready"

    @property
    def reason(self) -> str:
        if self.refusal is not None:
            return self.refusal
        if self.error is not None:
            return self.error
        if self.restored:
            return "already restored"
        if self.conflict:
            why = _conflict_reason(self.disk, self.recorded)
            return f"{why}; overwritten (forced)" if self.force else f"{why}; left alone (force to overwrite)"
        return ""


@dataclass(frozen=True)
class RollbackPlan:
    """Everything a rollback would do; computed without writing anything."""

    scope: str  # entry | checkpoint | task | undo | entries
    scope_id: Id | None
    task_id: Id | None  # where the undo checkpoint is recorded
    root: Path
    files: tuple[FilePlan, ...]
    tasks: tuple[Id, ...] = ()
    checkpoints: tuple[Id, ...] = ()
    force: bool = False
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return "undo" if self.scope == "undo" else "rollback"

    @property
    def escapes(self) -> tuple[str, ...]:
        """Recorded paths that lead outside the root: while any exist nothing is written."""
        return tuple(f.path for f in self.files if f.escapes)

    @property
    def refused(self) -> bool:
        return bool(self.escapes)

    @property
    def ok(self) -> bool:
        """True when applying would restore every file (or there is nothing to do)."""
        return not self.refused and all(f.status in ("ready", "done") for f in self.files)

    def with_force(self, force: bool) -> "RollbackPlan":
        """The same plan with conflicts overwritten (True) or left alone (False)."""
        return replace(self, force=force, files=tuple(replace(f, force=force) for f in self.files))

    def file(self, path: str) -> FilePlan:
        return next(f for f in self.files if f.path == path)


def _conflict_reason(disk: bytes | None, recorded: bytes | None) -> str:
    if disk is None:
        return "conflict: the file is missing, the rollback expected it"
    if recorded is None:
        return "conflict: the file exists, the rollback expected it deleted"
    return "conflict: the file changed on disk since the last recorded edit"


def read_disk(path: Path | None) -> bytes | None:
    """The file's bytes, or None when there is none. A directory is an error, not a file."""
    assert path is not None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EISDIR, "a directory is in the way")
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")  # a FIFO would block a plain read
    with open(path, "rb") as fh:
        return fh.read()
