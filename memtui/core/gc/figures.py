"""The header's three GC figures without building a plan: live tasks, reclaimable tasks and
the bytes a pass would free — the same numbers `plan_gc` gives, from three queries.

    live         the recursive live-set query (roots and what they reach)
    reclaimable  task rows and their counters: not live, still holding anything
    bytes        their step payloads and inline contents (counters), plus every blob the live
                 set does not keep (one query): each such blob is freed by some reclaimable
                 task or is loose, exactly as the plan attributes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


def gc_figures(store: "AgentStore") -> dict[str, int]:
    """{"live", "reclaimable", "reclaimable_bytes"} as `plan_gc` would count them."""
    with store.snapshot():
        live = store.live_task_ids()
        reclaimable = payload = 0
        for task, _, _, collected_at, steps, step_bytes, checkpoints, entries, legacy, _ in store.task_counters():
            if task not in live and (collected_at is None or steps or checkpoints):
                reclaimable += 1
                payload += (step_bytes if steps else 0) + (legacy if entries else 0)
        freed = store.blob_bytes_freed_without(sorted(live))
    return {"live": len(live), "reclaimable": reclaimable, "reclaimable_bytes": payload + freed}
