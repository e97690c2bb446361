"""Lifecycle GC, the writes: one short transaction per task, then bounded blob sweeps."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from memtui.core.gc.plan import GcPlan, live_set, plan_gc
from memtui.core.gc.records import LIVE_EDGES
from memtui.core.memory_source import Capability
from memtui.core.model import UNFINISHED
from memtui.core.store.gc_queries import BlobKey, Hook

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
    result.page_size = store.page_size()
    result.freelist_before = store.freelist_pages()
    total = len(todo)
    throttle = _Throttle(hold, pause)

    def report(phase: str, done: int) -> None:
        if progress is not None:
            progress(GcProgress(phase, done, total, result.bytes))

    for start in range(0, total, batch):
        freed: set[BlobKey] = set()
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
    result.freelist_after = store.freelist_pages()
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


def _collect_task(store: "AgentStore", task: int, live: set[int], result: GcResult, hook: Hook | None,
                  freed: set[BlobKey]) -> bool:
    """One task's heavy rows in one transaction; False (nothing changed) if it became live."""
    with store.transaction():
        state = store.root_state(task)
        if state is None or state.collected or state.status in UNFINISHED or state.pinned or state.current:
            return False
        # Referenced by a live task, or by one that became a root since the live set was read.
        for parent in store.referrers(task, LIVE_EDGES):
            if parent.task in live or parent.status in UNFINISHED or parent.pinned or parent.current:
                return False
        gone = store.collect_task_rows(task, hook)
    freed.update(gone.contents)
    result.entries += gone.entries
    result.checkpoints += gone.checkpoints
    result.steps += gone.steps
    result.bytes += gone.payload_bytes
    return True


def _sweep_blobs(store: "AgentStore", batch: int, result: GcResult, report: Callable[[], None],
                 throttle: _Throttle, candidates: set[BlobKey] | None) -> None:
    """Delete blobs no entry references and no delta uses as its base, in batches.

    `candidates` are the contents of the entries just deleted (None: every blob, for loose
    blobs an interrupted pass left). Deeper deltas go first; a deleted delta's base becomes
    a candidate in turn, and a base a surviving delta needs stays. Each batch re-checks
    its conditions inside its own transaction, so a writer that just reused a content wins.
    """
    if candidates is None:
        candidates = store.unused_blobs()
    deleted: set[BlobKey] = set()
    while candidates:
        by_depth = store.blob_depths(sorted(candidates))
        bases: set[BlobKey] = set()
        for depth in sorted(by_depth, reverse=True):
            keys = by_depth[depth]
            for start in range(0, len(keys), batch):
                with throttle, store.transaction():
                    gone = store.delete_unused_blobs(keys[start:start + batch])
                deleted.update(h for h, _, _ in gone)
                result.blobs += len(gone)
                result.bytes += sum(stored for _, _, stored in gone)
                bases.update(base for _, base, _ in gone if base is not None)
                report()
        # Re-examine a base once a dependent is gone, even if it was skipped this round.
        candidates = bases - deleted
