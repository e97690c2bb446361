"""Lifecycle GC, the writes: one short transaction per task, then bounded blob sweeps."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from memtui.core.gc.plan import GcPlan, live_set, plan_gc
from memtui.core.memory_source import Capability
from memtui.core.store import packs

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


@dataclass(frozen=True)
class GcProgress:
    """Reported after every task and every blob batch."""

    phase: str  # "tasks" | "blobs"
    tasks_done: int
    tasks_total: int
    bytes_freed: int


@dataclass
class GcResult:
    """What a GC pass removed."""

    tasks: int = 0
    skipped: list[int] = field(default_factory=list)  # planned, but live by the time of apply
    steps: int = 0
    checkpoints: int = 0
    entries: int = 0
    blobs: int = 0
    bytes: int = 0  # step payloads + inline contents + stored bytes of deleted blobs
    freelist_before: int = 0
    freelist_after: int = 0
    page_size: int = 0
    cancelled: bool = False
    seconds: float = 0.0

    @property
    def pages_freed(self) -> int:
        return self.freelist_after - self.freelist_before

    def to_json(self) -> dict:
        return {"tasks": self.tasks, "skipped": self.skipped, "steps": self.steps,
                "checkpoints": self.checkpoints, "entries": self.entries, "blobs": self.blobs,
                "bytes": self.bytes, "freelist_before": self.freelist_before,
                "freelist_after": self.freelist_after, "page_size": self.page_size,
                "cancelled": self.cancelled, "seconds": round(self.seconds, 3)}


Hook = Callable[[str, int], None]


def apply_gc(store: "AgentStore", plan: GcPlan | None = None, batch: int = 200,
             progress: Callable[[GcProgress], None] | None = None,
             cancel: Callable[[], bool] | None = None, max_tasks: int | None = None,
             hook: Hook | None = None, hold: float = 0.02, pause: float = 0.01) -> GcResult:
    """Collect the reclaimable tasks of `plan` (a fresh plan when None), then sweep blobs.

    Each task is one transaction: its entries, checkpoints and steps go together, and
    `collected_at` is set, or nothing of it changes. The live set is recomputed first and
    each task's own root status is checked again inside its transaction, so a task pinned,
    resumed or referenced since the preview is skipped. After every `batch` tasks the blobs
    they freed are deleted in transactions of at most `batch` blobs. After `hold` seconds
    spent in write transactions GC sleeps `pause` seconds, so a concurrent writer polling
    through its busy timeout gets the lock soon. `cancel()` is checked between tasks;
    `max_tasks` bounds one pass. `hook(stage, task)` is for tests (fault injection) and runs
    inside the task's transaction. The writes go through `store.writer()`: a store browsed
    read-only gets a write connection of its own for the pass.
    """
    store.require_declared(Capability.GC)
    with store.writer() as writer:
        return _apply(writer, plan, batch, progress, cancel, max_tasks, hook, hold, pause)


def _apply(store: "AgentStore", plan: GcPlan | None, batch: int, progress: Callable[[GcProgress], None] | None,
           cancel: Callable[[], bool] | None, max_tasks: int | None, hook: Hook | None, hold: float,
           pause: float) -> GcResult:
    started = time.monotonic()
    batch = max(1, batch)
    if plan is None:
        plan = plan_gc(store)
        fresh_live = {t.task for t in plan.live}
    else:  # the plan may be stale: what became live since is skipped
        fresh_live = set(live_set(store))
    todo = [t for t in plan.reclaimable if t.task not in fresh_live]
    result = GcResult(skipped=[t.task for t in plan.reclaimable if t.task in fresh_live])
    if max_tasks is not None:
        todo = todo[:max(max_tasks, 0)]  # a negative slice bound would mean "all but the last"
    result.page_size = _pragma(store, "page_size")
    result.freelist_before = _pragma(store, "freelist_count")
    total = len(todo)
    throttle = _Throttle(hold, pause)

    def report(phase: str, done: int) -> None:
        if progress is not None:
            progress(GcProgress(phase, done, total, result.bytes))

    for start in range(0, total, batch):
        freed: set[bytes] = set()
        for done, item in enumerate(todo[start:start + batch], start + 1):
            if cancel is not None and cancel():
                result.cancelled = True
                break
            with throttle:
                collected = _collect_task(store, item.task, fresh_live, result, hook, freed)
            if collected:
                result.tasks += 1
            else:
                result.skipped.append(item.task)
            report("tasks", done)
        _sweep_blobs(store, batch, result, lambda: report("blobs", result.tasks), throttle, freed)
        if result.cancelled:
            break
    if plan.loose_blobs and not result.cancelled:
        _sweep_blobs(store, batch, result, lambda: report("blobs", result.tasks), throttle, None)
    result.freelist_after = _pragma(store, "freelist_count")
    result.seconds = time.monotonic() - started
    return result


class _Throttle:
    """Counts time spent holding the write lock; sleeps `pause` after every `hold` of it."""

    def __init__(self, hold: float, pause: float) -> None:
        self.hold, self.pause, self.held, self._t0 = hold, pause, 0.0, 0.0

    def __enter__(self) -> None:
        self._t0 = time.monotonic()

    def __exit__(self, *exc: object) -> None:
        self.held += time.monotonic() - self._t0
        if self.pause > 0 and self.held >= self.hold:
            time.sleep(self.pause)
            self.held = 0.0


def _pragma(store: "AgentStore", name: str) -> int:
    return store.query(f"PRAGMA {name}")[0][0]


def _collect_task(store: "AgentStore", task: int, live: set[int], result: GcResult, hook: Hook | None,
                  freed: set[bytes]) -> bool:
    """One task's heavy rows in one transaction; False (nothing changed) if it became live."""
    with store.transaction():
        row = store.query(
            "SELECT t.status, t.pinned, s.status = 'open' AND s.current_task_id = t.id FROM task t"
            " LEFT JOIN session s ON s.id = t.session_id WHERE t.id = ?", (task,))
        if not row or row[0][0] in ("running", "waiting_user") or row[0][1] or row[0][2]:
            return False
        # Referenced by a live task, or by one that became a root since the live set was read.
        for parent, status, pinned, current in store.query(
                "SELECT p.id, p.status, p.pinned, s.status = 'open' AND s.current_task_id = p.id"
                " FROM task_ref r JOIN task p ON p.id = r.from_task LEFT JOIN session s ON s.id = p.session_id"
                " WHERE r.to_task = ? AND r.kind IN ('handoff', 'depends')", (task,)):
            if parent in live or status in ("running", "waiting_user") or pinned or current:
                return False
        # A writer's store is at the current schema: the task's counters hold what goes.
        payload = store.query("SELECT step_bytes + legacy_bytes FROM task WHERE id = ?", (task,))[0][0]
        key, before, after = store.blob_cols
        hashes = store.query(f"SELECT e.{before}, e.{after} FROM checkpoint c JOIN checkpoint_entry e"
                             " ON e.checkpoint_id = c.id WHERE c.task_id = ?", (task,)) if key else []
        if hook:
            hook("entries", task)
        entries = store.execute("DELETE FROM checkpoint_entry WHERE checkpoint_id IN"
                                 " (SELECT id FROM checkpoint WHERE task_id = ?)", (task,)).rowcount
        if hook:
            hook("checkpoints", task)
        checkpoints = store.execute("DELETE FROM checkpoint WHERE task_id = ?", (task,)).rowcount
        if hook:
            hook("steps", task)
        steps = store.execute("DELETE FROM step WHERE task_id = ?", (task,)).rowcount
        store.execute("UPDATE task SET collected_at = ?, step_count = 0, step_bytes = 0, checkpoint_count = 0,"
                      " entry_count = 0, entry_bytes = 0, legacy_bytes = 0 WHERE id = ?", (store.now(), task))
        if hook:
            hook("commit", task)
    freed.update(h for pair in hashes for h in pair if h is not None)
    result.entries += entries
    result.checkpoints += checkpoints
    result.steps += steps
    result.bytes += payload
    return True


def _sweep_blobs(store: "AgentStore", batch: int, result: GcResult, report: Callable[[], None],
                 throttle: _Throttle, candidates: set[bytes] | None) -> None:
    """Delete blobs no entry references and no delta uses as its base, in batches.

    `candidates` are the contents of the entries just deleted (None: every blob, for loose
    blobs an interrupted pass left). Deeper deltas go first; a deleted delta's base becomes
    a candidate in turn, and a base a surviving delta needs stays. Each batch re-checks
    its conditions inside its own transaction, so a writer that just reused a content wins.
    """
    key, before, after = store.blob_cols
    if key is None:
        return
    packed = store.schema_version >= 7
    pack = "pack" if packed else "NULL"
    cond = (f" AND NOT EXISTS (SELECT 1 FROM checkpoint_entry e WHERE e.{before} = blob.{key})"
            f" AND NOT EXISTS (SELECT 1 FROM checkpoint_entry e WHERE e.{after} = blob.{key})"
            f" AND NOT EXISTS (SELECT 1 FROM blob d WHERE d.base = blob.{key})")
    if candidates is None:
        candidates = {h for h, _ in store.query(f"SELECT {key}, depth FROM blob WHERE 1" + cond)}
    deleted: set = set()
    while candidates:
        by_depth: dict[int, list[bytes]] = {}
        ordered = sorted(candidates)
        for start in range(0, len(ordered), 500):  # bound parameters (hashes of schema 2–3 are BLOBs)
            chunk = ordered[start:start + 500]
            for h, depth in store.query(
                    f"SELECT {key}, depth FROM blob WHERE {key} IN ({','.join('?' * len(chunk))})", chunk):
                by_depth.setdefault(depth, []).append(h)
        bases: set[bytes] = set()
        for depth in sorted(by_depth, reverse=True):
            hashes = by_depth[depth]
            for start in range(0, len(hashes), batch):
                chunk = hashes[start:start + batch]
                with throttle, store.transaction():
                    gone = store.execute(f"DELETE FROM blob WHERE {key} IN ({','.join('?' * len(chunk))})"
                                         + cond + f" RETURNING {key}, base, stored, {pack}", chunk).fetchall()
                    if packed:  # the packs that held their frames keep only the live ones
                        packs.repack(store.execute, {p for *_, p in gone if p is not None})
                deleted.update(h for h, *_ in gone)
                result.blobs += len(gone)
                result.bytes += sum(size for _, _, size, _ in gone)
                bases.update(base for _, base, *_ in gone if base is not None)
                report()
        # Re-examine a base once a dependent is gone, even if it was skipped this round.
        candidates = bases - deleted
