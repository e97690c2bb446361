"""Workspaces the reliability trials run against, built through the real recorder API."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import harness  # noqa: F401  (puts tests/unit on the path for the shared fixtures)
from gc_fixtures import TickClock  # a clock that moves one second per reading

from memtui.core.store import AgentStore

__all__ = ["RollbackWorld", "TickClock", "file_state", "gc_workspace", "rollback_workspace", "text"]


def text(seed: int, lines: int = 60) -> bytes:
    """A file's content: mostly shared lines, so versions delta against each other."""
    return "".join(f"line {i} of a source file {'edited ' + str(seed) if i == seed % lines else ''}\n"
                   for i in range(lines)).encode()


def gc_workspace(root: Path, tasks: int = 240, files: int = 3) -> Path:
    """A store whose finished tasks of a closed session are reclaimable: steps with payloads
    and checkpoints over shared paths (delta chains), plus a pinned task and an open session
    that GC must keep. Returns the agent.db path."""
    root.mkdir(parents=True, exist_ok=True)
    with AgentStore.open(root, clock=TickClock()) as store:
        old = store.start_session("Old work")
        with store.transaction():
            for n in range(tasks):
                t = store.start_task(old, f"task {n}")
                store.record_step(t, "read_file", {"path": "a.py"}, "x" * 300)
                step = store.record_step(t, "edit_file", {"n": n}, {"ok": True})
                store.record_checkpoint(t, step, {f"src/f{k}.py": (text(n + k), text(n + k + 1))
                                                  for k in range(files)})
                store.finish_task(t, "completed", summary=f"task {n} done")
                if n % 40 == 0:
                    store.pin(t)
        store.close_session(old)
        now = store.start_session("Current")
        t = store.start_task(now, "in progress")
        store.record_step(t, "read_file", {"path": "a.py"}, "y" * 100)
        return store.db_path


@dataclass(frozen=True)
class RollbackWorld:
    root: Path
    task: int
    before: dict[str, bytes | None]  # what the rollback restores
    after: dict[str, bytes | None]  # what the task left (on disk before the rollback)
    modes: dict[str, int]


def rollback_workspace(root: Path, files: int = 400) -> RollbackWorld:
    """A task that edited `files` files (some created, some deleted, some executable); the
    disk holds what it left."""
    root.mkdir(parents=True, exist_ok=True)
    before: dict[str, bytes | None] = {}
    after: dict[str, bytes | None] = {}
    modes: dict[str, int] = {}
    for i in range(files):
        rel = f"pkg{i % 8}/mod{i}.py"
        before[rel] = None if i % 25 == 0 else text(i, 40 + i % 30)
        after[rel] = None if i % 31 == 0 else text(i + 1000, 40 + i % 30)
        if before[rel] is None and after[rel] is None:
            after[rel] = b"created by the task\n"
        modes[rel] = 0o755 if i % 10 == 3 else 0o644
    for rel, data in after.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if data is not None:
            p.write_bytes(data)
            os.chmod(p, modes[rel])
    with AgentStore.open(root, clock=TickClock()) as store:
        s = store.start_session("Refactor")
        t = store.start_task(s, "rename everything")
        step = store.record_step(t, "edit_files", {"n": files}, "ok")
        store.record_checkpoint(t, step, {rel: (before[rel], after[rel]) for rel in before})
        store.finish_task(t, "completed")
    return RollbackWorld(root, t, before, after, modes)


def file_state(world: RollbackWorld) -> dict[str, tuple[bytes | None, int | None]]:
    out = {}
    for rel in world.before:
        p = world.root / rel
        if p.exists():
            out[rel] = (p.read_bytes(), os.stat(p).st_mode & 0o777)
        else:
            out[rel] = (None, None)
    return out
