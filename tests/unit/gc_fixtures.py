"""Stores built through the recorder API for the GC and stats tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from memtui.core.store import AgentStore
from memtui.core.store.team import TeamStore


class TickClock:
    """A fixed clock that moves one second per reading."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def new_store(where: Path | Callable[..., AgentStore]) -> AgentStore:
    """A new store on a TickClock: in `where`/ws, or made by `where` (the open_new_store fixture:
    SQLite and PostgreSQL)."""
    if callable(where):
        return where(TickClock())
    return AgentStore.open(where / "ws", clock=TickClock())


def task_with_edit(store: AgentStore, session: int, title: str, path: str = "a.py",
                   before: bytes | None = None, after: bytes | None = None, parent: int | None = None,
                   finish: str | None = "completed") -> int:
    """A task with two steps and one checkpoint editing `path`; finished unless finish=None."""
    t = store.start_task(session, title, parent_task_id=parent)
    store.record_step(t, "read_file", {"path": path}, "x" * 200)
    step = store.record_step(t, "edit_file", {"path": path}, {"ok": True})
    after = after if after is not None else f"{title}\n".encode() * 40
    store.record_checkpoint(t, step, {path: (before, after)})
    if finish:
        store.finish_task(t, finish, summary=f"{title} done")
    return t


def version(n: int) -> bytes:
    """Content n of a file: mostly shared lines, so later versions delta well."""
    return "".join(f"line {i} {'changed ' * (i == n % 50)}{n if i == n % 50 else ''}\n"
                   for i in range(200)).encode()


def counts(store: AgentStore, task: int) -> tuple[int, int, int]:
    """(steps, checkpoints, entries) of one task."""
    return (
        store.query("SELECT COUNT(*) FROM step WHERE task_id = ?", (task,))[0][0],
        store.query("SELECT COUNT(*) FROM checkpoint WHERE task_id = ?", (task,))[0][0],
        store.query("SELECT COUNT(*) FROM checkpoint_entry e JOIN checkpoint c ON c.id = e.checkpoint_id"
                   " WHERE c.task_id = ?", (task,))[0][0],
    )


# Rows that would point at nothing: the same questions on either engine (PostgreSQL checks its
# foreign keys as it writes; SQLite's are asked besides, with its own integrity check).
DANGLING = (
    "SELECT COUNT(*) FROM checkpoint_entry e LEFT JOIN checkpoint c ON c.id = e.checkpoint_id WHERE c.id IS NULL",
    "SELECT COUNT(*) FROM checkpoint c LEFT JOIN task t ON t.id = c.task_id WHERE t.id IS NULL",
    "SELECT COUNT(*) FROM step s LEFT JOIN task t ON t.id = s.task_id WHERE t.id IS NULL",
    "SELECT COUNT(*) FROM checkpoint_entry e LEFT JOIN blob b ON b.id = e.before_blob"
    " WHERE e.before_blob IS NOT NULL AND b.id IS NULL",
    "SELECT COUNT(*) FROM checkpoint_entry e LEFT JOIN blob b ON b.id = e.after_blob"
    " WHERE e.after_blob IS NOT NULL AND b.id IS NULL",
    "SELECT COUNT(*) FROM blob d LEFT JOIN blob b ON b.id = d.base WHERE d.base IS NOT NULL AND b.id IS NULL",
    "SELECT COUNT(*) FROM blob d LEFT JOIN pack p ON p.id = d.pack WHERE d.pack IS NOT NULL AND p.id IS NULL",
)


def healthy(store: AgentStore) -> bool:
    if any(store.query(sql)[0][0] for sql in DANGLING):
        return False
    if isinstance(store, TeamStore):
        return True
    return (store.query("PRAGMA integrity_check") == [("ok",)]
            and store.query("PRAGMA foreign_key_check") == [])


def heavy_bytes(store: AgentStore) -> int:
    """Step payloads plus stored blob bytes: what GC accounting is measured against."""
    return (store.query("SELECT COALESCE(SUM(payload_bytes), 0) FROM step")[0][0]
            + store.query("SELECT COALESCE(SUM(stored), 0) FROM blob")[0][0])


def read_all_entries(store: AgentStore) -> int:
    n = 0
    for (entry_id,) in store.query("SELECT id FROM checkpoint_entry"):
        store._cache.clear()
        store.read_entry(entry_id)
        n += 1
    return n
