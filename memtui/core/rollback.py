"""Rollback: put files back the way a checkpoint, a task or a sub-agent round found them.

    plan = plan_rollback(store, task=7)          # reads the store and the disk, writes nothing
    for f in plan.files: print(f.path, f.action, f.status, f.reason)
    result = apply_rollback(store, plan)         # writes, records an undo checkpoint, pins the task

Semantics. The entries in scope are taken in recording order (checkpoint, then entry). Each
file goes back to the *before* of the earliest entry for it (absent → the file is deleted);
the file is expected to hold the *after* of the latest entry for it (absent → expected
missing). A file that holds something else is a conflict and is left alone unless forced.

Safety. Containment (memtui.core.containment) is checked first: a path that is absolute,
holds `..`, or resolves (through a symlinked file or parent directory) outside the workspace
root refuses the whole rollback before anything is written. Nothing under `.agent/` is ever
written. Content that fails verification stops that one file. Writes are atomic
(memtui.core.atomic: temp file in the same directory, fsync, rename, mode kept); the loop
re-reads the disk before every file, so re-running a rollback that was interrupted finishes
it ("already restored" for what was done). A task's scope leaves out the checkpoints memtui
recorded itself (labels "rollback" and "undo"): they are undone with `undo=`, and counting
them would turn the files an interrupted rollback had not yet written into conflicts.
Each file is read once more just before its rename or unlink: one the agent wrote after the
rollback read it (while the undo was being recorded) is kept, reported as a conflict (forced
or not) and dropped from the undo, which holds only what the rollback really replaced.

Undo. Before writing, the rollback is recorded as a checkpoint (label "rollback", or "undo"
for an undo) on the task it acted on — before = the disk, after = what is restored — and
that task is pinned so GC keeps both the undo and what it refers to.

This module plans (reading the store and the disk); memtui.core.rollback_apply writes; the
records both share (FilePlan, RollbackPlan) are in memtui.core.rollback_records. All of them
are importable from here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from memtui.core.atomic import write_atomic
from memtui.core.containment import PathCheck, check_path
from memtui.core.display import counted
from memtui.core.errors import ContentError, PathEscape, RollbackError
from memtui.core.memory_source import Capability, MemorySource, RollbackHooks, default_rollback_root
from memtui.core.model import CheckpointInfo, EntryInfo, Id
from memtui.core.paths import normalise_path
from memtui.core.rollback_apply import FileResult, RollbackResult, apply_rollback, preview_rollback
from memtui.core.rollback_records import ROLLBACK_LABELS, FilePlan, RollbackPlan, read_disk

__all__ = [
    "FilePlan",
    "FileResult",
    "PathCheck",
    "RollbackError",
    "RollbackPlan",
    "RollbackResult",
    "apply_rollback",
    "check_path",
    "plan_entries",
    "plan_rollback",
    "preview_rollback",
    "write_atomic",
]


def _same_file_key(path: Any) -> str:
    try:
        return normalise_path(path)
    except PathEscape:
        return repr(path)  # refused later, file by file


# --------------------------------------------------------------------------- planning
def plan_rollback(store: MemorySource, *, entry: Id | None = None, checkpoint: Id | None = None, task: Id | None = None,
                  undo: Id | None = None, root: str | Path | None = None, force: bool = False) -> RollbackPlan:
    """Plan the rollback of one entry, checkpoint, task (with its handoff sub-agents) or an undo.

    Exactly one of `entry`, `checkpoint`, `task`, `undo` is given. `store` is any MemorySource
    (memtui's AgentStore, a Claude Code or Codex adapter); `root` defaults to `store.workspace`.
    Nothing is written; the disk is read to find conflicts.
    """
    chosen = [(k, v) for k, v in (("entry", entry), ("checkpoint", checkpoint), ("task", task), ("undo", undo))
              if v is not None]
    if len(chosen) != 1:
        raise RollbackError("say what to roll back: exactly one of entry, checkpoint, task or undo")
    scope, scope_id = chosen[0]
    notes: list[str] = []
    if scope == "entry":
        info = _lookup(store, "entry", scope_id)
        cp = _lookup(store, "checkpoint", info.checkpoint_id)
        entries, task_id, tasks, cps = [(cp.task_id, info)], cp.task_id, (cp.task_id,), (cp.id,)
    elif scope in ("checkpoint", "undo"):
        cp = _lookup(store, "checkpoint", scope_id)
        if scope == "undo" and cp.label not in ROLLBACK_LABELS:
            raise RollbackError(f"checkpoint {scope_id} was not recorded by a rollback; "
                                f"roll it back as a checkpoint instead")
        entries = [(cp.task_id, e) for e in store.checkpoint_entries(cp.id)]
        task_id, tasks, cps = cp.task_id, (cp.task_id,), (cp.id,)
        if not entries:
            notes.append(f"checkpoint {cp.id} has no entries")
    else:
        _lookup(store, "task", task)  # an unknown id is an error, not "nothing to roll back"
        tasks = tuple(handoff_closure(store, task))
        task_id = task
        # memtui's own rollback/undo records are not the task's edits: counting them would make
        # a re-run of an interrupted rollback see every file it had not yet written as a conflict.
        all_cps = [c for t in tasks for c in store.checkpoints(t) if c.label not in ROLLBACK_LABELS]
        all_cps = _recording_order(all_cps)
        cps = tuple(c.id for c in all_cps)
        entries = [(c.task_id, e) for c in all_cps for e in store.checkpoint_entries(c.id)]
        for t in tasks:
            info = _task_or_none(store, t)
            if info is not None and info.collected:
                notes.append(f"task {t} was collected by GC: its edits can no longer be rolled back")
        if len(tasks) > 1:
            notes.append(f"includes {counted(len(tasks) - 1, 'sub-agent task')} by handoff: "
                         + ", ".join(str(t) for t in tasks[1:]))
    # A source without rollback hooks (Capability.ROLLBACK's part) is rolled back under the
    # root given, its workspace or its task's folder, its paths as recorded, with no undo.
    hooks = store.part(Capability.ROLLBACK) if store.has_part(Capability.ROLLBACK) else None
    root_path = hooks.rollback_root(task_id, root) if hooks else default_rollback_root(store, task_id, root)
    if hooks is not None and (root is None or root_path == store.workspace):  # a transcript store says where its paths are restored
        notes[:0] = [n for n in (hooks.rollback_note(task_id, root_path),) if n]
    # A home whose sessions worked in different folders records absolute paths: each is made
    # relative to its task's session folder (or to the root) when it lies under it.
    restored = [_restored(hooks, e, t, root_path) if hooks else e for t, e in entries]
    plan = plan_entries(store, restored, root=root_path, force=force, scope=scope, scope_id=scope_id,
                        task_id=task_id)
    return replace(plan, tasks=tuple(tasks), checkpoints=tuple(cps), notes=tuple(notes) + plan.notes)


def _restored(hooks: RollbackHooks, entry: EntryInfo, task_id: Id, root: Path) -> EntryInfo:
    path = hooks.restore_path(entry.path, task_id, root)
    return entry if path == entry.path else replace(entry, path=path)


ESCAPE_HINT = ("To restore the files inside the workspace, roll them back one at a time (r on a changed file;"
               " memtui rollback --entry ID).")


def plan_entries(source: MemorySource, entries: Sequence[EntryInfo], *, root: str | Path, force: bool = False,
                 scope: str = "entries", scope_id: Id | None = None, task_id: Id | None = None) -> RollbackPlan:
    """Plan the rollback of `entries`, given in recording order, against the disk under `root`."""
    root_path = Path(root).expanduser()
    if not root_path.is_dir():
        raise RollbackError(f"workspace root {root_path} is not a directory")
    root_path = root_path.resolve()
    by_path: dict[str, list[EntryInfo]] = {}
    for e in entries:
        # "a.txt" and "./a.txt" (foreign stores) are one file; it is shown as first recorded.
        by_path.setdefault(_same_file_key(e.path), []).append(e)
    files = [_plan_file(source, root_path, group[0].path, group, force) for group in by_path.values()]
    notes: tuple[str, ...] = ()
    escapes = [f.path for f in files if f.escapes]
    if escapes:
        notes = (f"refused: {len(escapes)} path(s) lead outside {root_path}: " + ", ".join(map(repr, escapes))
                 + f"; nothing will be written. {ESCAPE_HINT}",)
        files = [f if f.escapes else replace(f, refusal="not written: the rollback is refused because other"
                                                        " paths lead outside the workspace root") for f in files]
    return RollbackPlan(scope, scope_id, task_id, root_path, tuple(files), force=force, notes=notes)


def _plan_file(source: Any, root: Path, path: str, group: list[EntryInfo], force: bool) -> FilePlan:
    ids = tuple(e.id for e in group)
    first, last = group[0], group[-1]
    recorded_action = "delete" if first.kind == "added" else "create" if last.kind == "deleted" else "write"
    checked = check_path(root, path)
    base = FilePlan(path, ids, checked.resolved, refusal=checked.refusal, escapes=checked.escapes, force=force,
                    recorded_action=recorded_action)
    if checked.refusal is not None:
        return base
    unknown = next((e for e, known in ((first, first.before_known), (last, last.after_known)) if not known), None)
    if unknown is not None:  # a store that reads one side only (for the diff) never restores a guess
        return replace(base, error=f"the store does not hold this change's contents: {unknown.unknown_reason or 'unknown'}")
    try:
        target, recorded = source.read_entry(first.id)
        if last is not first:
            recorded = source.read_entry(last.id)[1]
    except ContentError as exc:
        return replace(base, error=f"stored content cannot be trusted: {exc}")
    except KeyError as exc:
        return replace(base, error=f"entry is gone from the store: {exc}")
    try:
        disk = read_disk(checked.resolved)
    except OSError as exc:
        return replace(base, error=f"cannot read the file: {exc.strerror or exc}")
    return replace(base, target=target, recorded=recorded, disk=disk)


def handoff_closure(source: Any, task_id: Id) -> list[Id]:
    """`task_id` and every task it handed work to, transitively (breadth first; cycles end)."""
    order: list[Id] = [task_id]
    seen = {task_id}
    i = 0
    while i < len(order):
        current = order[i]
        i += 1
        for ref in source.references(current):
            if ref.kind == "handoff" and ref.from_task == current and ref.to_task not in seen:
                seen.add(ref.to_task)
                order.append(ref.to_task)
    return order


def _recording_order(cps: Iterable[CheckpointInfo]) -> list[CheckpointInfo]:
    cps = list(cps)
    if all(isinstance(c.id, int) for c in cps):
        return sorted(cps, key=lambda c: c.id)
    # Foreign stores with string ids: their time, then the order they were listed in.
    return sorted(cps, key=lambda c: (c.created_at is not None, c.created_at.timestamp() if c.created_at else 0))


def _lookup(store: MemorySource, kind: str, key: Id) -> Any:
    getter = {"entry": store.entry, "checkpoint": store.checkpoint, "task": store.task}[kind]
    try:
        return getter(key)
    except (KeyError, StopIteration):  # UnknownId is a KeyError
        raise RollbackError(f"no {kind} {key}") from None


def _task_or_none(store: Any, task_id: Id) -> Any:
    try:
        return store.task(task_id)
    except Exception:  # a foreign source may not know the task; notes are best effort
        return None
