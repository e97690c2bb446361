"""Lifecycle GC: keep what can still be operated on (DESIGN.md §3).

`plan_gc(store)` is a pure read. Roots are the current task of each open session, every
running or waiting_user task (orphans included) and every pinned task; the live set is the
roots plus every task reachable from them through handoff and depends references, parent →
child. Every other task that still holds heavy data (steps, checkpoints, entries) is
reclaimable; its `bytes` are the step payloads and inline legacy contents of those rows plus
the stored bytes of the blobs nothing else would need any more — neither an entry of a
surviving task nor, transitively, a surviving delta as its base. A blob shared by several
reclaimable tasks counts toward the one that recorded it first, so the per-task figures add up to what
`apply_gc` frees.

`apply_gc(store, plan)` removes each task's steps, checkpoints and entries in one short
transaction (its row, references, messages, questions and summary stay; `collected_at` is
set), then sweeps the blobs no entry needs, dependents before their delta bases, in bounded
batches. A base that a surviving delta needs is kept rather than re-encoding the dependent.
"""

from memtui.core.gc.apply import GcProgress, GcResult, Hook, apply_gc
from memtui.core.gc.figures import gc_figures
from memtui.core.gc.plan import GcPlan, find_roots, live_set, live_set_sql, plan_gc
from memtui.core.gc.records import LIVE_EDGES, ROOT_KINDS, LiveTask, ReclaimableTask, Root
from memtui.core.gc.preview import STATES, GcSessionRow, GcTaskRow, heavy_rows, preview_rows

__all__ = [
    "LIVE_EDGES",
    "ROOT_KINDS",
    "STATES",
    "GcPlan",
    "GcProgress",
    "GcResult",
    "GcSessionRow",
    "GcTaskRow",
    "Hook",
    "LiveTask",
    "ReclaimableTask",
    "Root",
    "apply_gc",
    "find_roots",
    "gc_figures",
    "heavy_rows",
    "live_set",
    "live_set_sql",
    "plan_gc",
    "preview_rows",
]
