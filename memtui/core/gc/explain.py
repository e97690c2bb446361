"""Why a reclaimable task may go: the facts, read with the plan, and the sentence, written only
when someone asks (the GC screen's side pane, a task's detail)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.core.gc.plan import ReclaimableTask
    from memtui.core.store import AgentStore


class WhyFacts:
    """What the sentence of a reclaimable task says, read with the plan (same snapshot); the
    sentence itself is written when asked for (`GcPlan.explain`), not for every task up front."""

    def __init__(self, superseded: dict[int, int], referrers: dict[int, list[int]], current: dict[int, int]) -> None:
        self.superseded, self.referrers, self.current = superseded, referrers, current

    @classmethod
    def read(cls, store: "AgentStore", candidates: set[int]) -> "WhyFacts":
        superseded: dict[int, int] = {}
        referrers: dict[int, list[int]] = {}
        if candidates:
            for src, dst, kind in store.query("SELECT from_task, to_task, kind FROM task_ref"):
                if dst in candidates:
                    if kind == "supersedes":
                        superseded.setdefault(dst, src)
                    else:
                        referrers.setdefault(dst, []).append(src)
        current = dict(store.query("SELECT current_task_id, id FROM session WHERE current_task_id IS NOT NULL"))
        return cls(superseded, referrers, current)

    def sentence(self, task: "ReclaimableTask") -> str:
        """What the task is, and that nothing live reaches it."""
        parts = [task.status]
        if task.session is None:
            parts.append("orphan (its session was deleted)")
        elif self.current.get(task.task) == task.session:
            parts.append(f"current task of closed session {task.session}")
        if task.task in self.superseded:
            parts.append(f"superseded by #{self.superseded[task.task]}")
        refs = sorted(set(self.referrers.get(task.task, ())))
        tail = (f"referenced only by reclaimable tasks {', '.join(f'#{r}' for r in refs)}" if refs
                else "no live task references it")
        return f"{', '.join(parts)}; not a root, {tail}"
