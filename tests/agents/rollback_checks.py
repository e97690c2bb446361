"""Checks every agent's rollback on its real checkpoint data must pass (Gemini CLI's chats and
shadow git, OpenCode's snapshots): newer work is a conflict left alone; an undo, kept in memtui's
state folder, puts back the exact bytes."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from memtui.core.discovery import discover
from memtui.core.rollback import plan_rollback
from memtui.core.rollback_apply import apply_rollback


def opened(store: Path, root: Path | None):
    [found] = discover(store)
    source = found.open()
    return source.with_root(root) if root is not None else source


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def newer_work_is_a_conflict_left_alone(store: Path, workspace: Path, task_of: Callable) -> None:
    """`task_of(source)`: the task to roll back; a file it changed, written again since, is kept."""
    source = opened(store, workspace)
    task = task_of(source)
    plan = plan_rollback(source, task=task.id)
    edited = next(f.path for f in plan.files if f.status == "ready")
    (workspace / edited).write_text("newer work the agent never saw\n")
    result = apply_rollback(source, plan_rollback(source, task=task.id))
    [conflict] = [f for f in result.files if f.path == edited]
    assert conflict.status == "conflict" and "force to overwrite" in conflict.reason
    assert (workspace / edited).read_text() == "newer work the agent never saw\n"


def an_undo_puts_back_the_exact_bytes(store: Path, workspace: Path, task_of: Callable,
                                      then: Callable | None = None) -> None:
    """Roll back `task_of(source)`, then undo it from a later memtui: every file's bytes as
    before. `then(source, task, undo)` checks more between the two."""
    source = opened(store, workspace)
    task = task_of(source)
    (workspace / "untouched.bin").write_bytes(bytes(range(256)))
    before = files(workspace)
    result = apply_rollback(source, plan_rollback(source, task=task.id))
    assert result.ok and files(workspace) != before
    undo = result.undo_checkpoint
    if then is not None:
        then(source, task, undo)
    state = Path(os.environ["XDG_STATE_HOME"]) / "memtui" / "undo"
    assert [p for p in state.rglob(f"{undo}.json")], "the undo is not in memtui's state folder"
    again = opened(store, workspace)  # a later memtui finds the undo too
    assert apply_rollback(again, plan_rollback(again, undo=undo)).ok
    assert {k: hashlib.sha256(v).hexdigest() for k, v in files(workspace).items()} == \
        {k: hashlib.sha256(v).hexdigest() for k, v in before.items()}
