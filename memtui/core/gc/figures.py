"""The header's three GC figures without building a plan: live tasks, reclaimable tasks and
the bytes a pass would free — the same numbers `plan_gc` gives, from three queries.

    live         the recursive live-set query (roots and what they reach)
    reclaimable  task rows and their counters (schema 3): not live, still holding anything
    bytes        their step payloads and inline contents (counters), plus every blob the live
                 set does not keep (one query): each such blob is freed by some reclaimable
                 task or is loose, exactly as the plan attributes them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from memtui.core.gc.plan import LIVE_SET_SQL, keep_cte, plan_gc

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


def gc_figures(store: "AgentStore") -> dict[str, int]:
    """{"live", "reclaimable", "reclaimable_bytes"} as `plan_gc` would count them."""
    if store.schema_version < 3:  # an older store browsed read-only has no counters
        plan = plan_gc(store)
        return {"live": len(plan.live), "reclaimable": len(plan.reclaimable),
                "reclaimable_bytes": plan.reclaimable_bytes}
    with store.snapshot():
        live = {r[0] for r in store.query(LIVE_SET_SQL)}
        reclaimable = payload = 0
        for task, collected, steps, checkpoints, step_bytes, legacy in store.query(
                "SELECT id, collected_at IS NOT NULL, step_count, checkpoint_count, step_bytes, legacy_bytes"
                " FROM task"):
            if task not in live and (not collected or steps or checkpoints):
                reclaimable += 1
                payload += step_bytes + legacy
        freed = store.query(
            f"WITH RECURSIVE {keep_cte(store)} SELECT COALESCE(SUM(b.stored), 0) FROM blob b"
            f" WHERE b.{store.blob_cols.key} NOT IN (SELECT h FROM keep)", (json.dumps(sorted(live)),))[0][0]
    return {"live": len(live), "reclaimable": reclaimable, "reclaimable_bytes": payload + freed}
