"""Rollback, the writes: carry out a plan of memtui.core.rollback — re-check each file against
the disk, record the undo, restore atomically.

    result = apply_rollback(store, plan)     # writes, records an undo checkpoint, pins the task
    preview = preview_rollback(plan)         # the dry run: what apply would report

The semantics and the safety rules are described in memtui.core.rollback.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memtui.core.atomic import check_writes_allowed, file_mode, fsync_dir, sweep_directories, write_atomic
from memtui.core.containment import check_path
from memtui.core.memory_source import Capability, MemorySource
from memtui.core.model import Id
from memtui.core.rollback_records import FilePlan, RollbackPlan, read_disk

__all__ = ["FileResult", "RollbackResult", "apply_rollback", "preview_rollback"]


@dataclass(frozen=True)
class FileResult:
    """What happened to one file (or, in a dry run, would happen)."""

    path: str
    action: str  # write | create | delete
    status: str  # done | conflict | refused | error | would-restore
    reason: str = ""


@dataclass(frozen=True)
class RollbackResult:
    """The outcome of `apply_rollback` or `preview_rollback`."""

    files: tuple[FileResult, ...]
    undo_checkpoint: Id | None = None
    pinned_task: Id | None = None
    dry_run: bool = False
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Every file was (or would be) restored, or there was nothing to do."""
        good = ("done", "would-restore")
        return all(f.status in good for f in self.files)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.files:
            out[f.status] = out.get(f.status, 0) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "files": [{"path": f.path, "action": f.action, "status": f.status, "reason": f.reason}
                      for f in self.files],
            "undo_checkpoint": self.undo_checkpoint,
            "pinned_task": self.pinned_task,
            "dry_run": self.dry_run,
            "notes": list(self.notes),
        }


def preview_rollback(plan: RollbackPlan) -> RollbackResult:
    """The dry run: what `apply_rollback` would report, with nothing written."""
    files = tuple(FileResult(f.path, f.action, "would-restore" if f.status == "ready" else f.status, f.reason)
                  for f in plan.files)
    notes = plan.notes + (("dry run: nothing was written",) if plan.files else ("nothing to roll back",))
    return RollbackResult(files, None, None, dry_run=True, notes=notes)


def apply_rollback(store: MemorySource, plan: RollbackPlan, *, record: bool = True) -> RollbackResult:
    """Carry out `plan`: re-check each file against the disk, record the undo, write atomically.

    The disk is read again here (the user may have looked at the plan for a while): a file now
    at its target is "done, already restored"; one that changed since is a conflict unless the
    plan is forced. The files to change are recorded first as one checkpoint labelled
    `plan.label` on `plan.task_id`, and that task is pinned, so even a crash midway leaves an
    undo behind. Just before each rename or unlink the file is read again: one no longer holding
    what was read (and recorded) is left alone as a conflict and its undo entry dropped. A
    read-only AgentStore gets a write connection of its own for this.
    """
    if plan.refused:
        files = tuple(FileResult(f.path, f.action, "refused", f.reason) for f in plan.files)
        return RollbackResult(files, notes=plan.notes)
    results: dict[str, FileResult] = {}
    escapes: list[str] = []
    todo: list[tuple[FilePlan, bytes | None, int | None]] = []
    for f in plan.files:
        if f.status in ("refused", "error"):
            results[f.path] = FileResult(f.path, f.action, f.status, f.reason)
            continue
        checked = check_path(plan.root, f.path)  # the tree may have changed since planning
        if checked.refusal is not None:
            results[f.path] = FileResult(f.path, f.action, "refused", checked.refusal)
            if checked.escapes:
                escapes.append(f.path)
            continue
        now = replace(f, resolved=checked.resolved)
        try:
            disk = read_disk(checked.resolved)
            mode = file_mode(checked.resolved)
        except OSError as exc:
            results[f.path] = FileResult(f.path, f.action, "error", f"cannot read the file: {exc.strerror or exc}")
            continue
        now = replace(now, disk=disk)
        if now.status in ("done", "conflict"):
            results[f.path] = FileResult(f.path, now.action, now.status, now.reason)
            continue
        todo.append((now, disk, mode))

    if escapes:
        note = (f"refused: {len(escapes)} path(s) now lead outside {plan.root}: " + ", ".join(map(repr, escapes))
                + "; nothing was written")
        files = tuple(results[f.path] if f.path in escapes else
                      FileResult(f.path, f.action, "refused", "not written: the rollback is refused because other"
                                                              " paths lead outside the workspace root")
                      for f in plan.files)
        return RollbackResult(files, notes=plan.notes + (note,))

    notes = list(plan.notes)
    undo_id = pinned = None
    # Temp files an earlier, killed rollback left beside these files go first (each folder once).
    sweep_directories(f.resolved.parent for f in plan.files if f.resolved is not None and f.refusal is None)
    with ExitStack() as stack:
        writer = _writer(store, stack) if todo and record else None
        if todo and record:
            undo_id, pinned, note = _record_undo(writer, plan, todo)
            notes.append(note)
        failed: list[str] = []
        for f, disk, mode in todo:
            if check_path(plan.root, f.path).resolved != f.resolved:  # a link swapped in since the check
                failed.append(f.path)
                results[f.path] = FileResult(f.path, f.action, "error", "the path changed while rolling back")
                continue
            try:
                _restore(f.resolved, f.target, mode, disk)
            except _ChangedMeanwhile:
                failed.append(f.path)
                results[f.path] = FileResult(f.path, f.action, "conflict", _CHANGED_MEANWHILE)
                continue
            except OSError as exc:
                failed.append(f.path)
                results[f.path] = FileResult(f.path, f.action, "error", f"cannot write: {exc.strerror or exc}")
                continue
            results[f.path] = FileResult(f.path, f.action, "done", f.reason if f.conflict else "")
        if failed and undo_id is not None:
            writer.remove_entries(undo_id, failed)
    files = tuple(results[f.path] for f in plan.files)
    if not plan.files:
        notes.append("nothing to roll back")
    return RollbackResult(files, undo_id, pinned, notes=tuple(notes))


def _writer(store: MemorySource, stack: ExitStack) -> Any:
    """The store's writer, which records the undo (a store browsed read-only hands out a write
    connection of its own, with its clock and content limit); None for a store that keeps no
    undo (`undo_kept_in`)."""
    hooks = store.part(Capability.ROLLBACK) if store.has_part(Capability.ROLLBACK) else None
    if hooks is None or not hooks.undo_kept_in:
        return None
    return stack.enter_context(hooks.writer())


def _record_undo(writer: Any, plan: RollbackPlan, todo: list[tuple[FilePlan, bytes | None, int | None]]
                 ) -> tuple[Id | None, Id | None, str]:
    """Record the changes about to be made as a checkpoint and pin its task (id, pinned, note)."""
    if writer is None or plan.task_id is None:
        return None, None, "no undo recorded: this store cannot record checkpoints"
    changes = {f.path: (disk, f.target) for f, disk, _mode in todo}
    with writer.transaction():
        cp = writer.record_checkpoint(plan.task_id, None, changes, label=plan.label)
        writer.pin(plan.task_id)
    if writer.undo_kept_in == "state":  # a transcript store: nothing of it to pin
        return cp, None, f"undo recorded as checkpoint {cp} in memtui's state folder"
    note = (f"undo recorded as checkpoint {cp}; task {plan.task_id} is pinned so GC keeps it"
            f" (unpin the task to let it go)")
    return cp, plan.task_id, note


_CHANGED_MEANWHILE = ("conflict: the file changed on disk while rolling back; left alone"
                      " (roll back again to see it)")


class _ChangedMeanwhile(Exception):
    """The file no longer holds what the rollback read (and recorded in the undo)."""


def _restore(path: Path | None, content: bytes | None, mode: int | None, disk: bytes | None) -> None:
    """Make `path` hold `content` (None → no file), atomically, if it still holds `disk` (the
    bytes read before the undo was recorded; None → no file): read again just before the
    rename or unlink, so a write by the agent meanwhile is kept (_ChangedMeanwhile)."""
    assert path is not None

    def still_as_read() -> None:
        if read_disk(path) != disk:
            raise _ChangedMeanwhile(path)

    if content is None:
        check_writes_allowed(path)
        still_as_read()
        try:
            os.unlink(path)
        except FileNotFoundError:
            return
        fsync_dir(path.parent)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, content, mode, before_replace=still_as_read, sweep=False)
