"""Lifecycle GC: every task of the store marked root / live / reclaimable / collected, by
session, for the preview screen. A root says why in the same words as `gc --dry-run`:
"root: pinned", "root: current, running"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtui.core.display import counted, human_bytes
from memtui.core.gc.plan import GcPlan
from memtui.core.gc.records import Root

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


STATES = ("root", "live", "reclaimable", "collected")


@dataclass(frozen=True)
class GcTaskRow:
    """One task as the GC preview shows it."""

    task: int
    session: int | None
    title: str
    status: str
    pinned: bool
    state: str  # one of STATES
    label: str  # "root: current, running", "root: pinned", "live via #8 (handoff)", …
    bytes: int  # reclaimable: what goes; live: step payloads it keeps; collected: 0
    explanation: str


@dataclass(frozen=True)
class GcSessionRow:
    """A session with its tasks in the preview (id None: the orphans)."""

    id: int | None
    title: str
    status: str
    tasks: tuple[GcTaskRow, ...]

    @property
    def reclaimable_bytes(self) -> int:
        return sum(t.bytes for t in self.tasks if t.state == "reclaimable")

    def count(self, state: str) -> int:
        return sum(1 for t in self.tasks if t.state == state)


def heavy_rows(store: "AgentStore") -> dict[str, int]:
    """Rows of the tables GC empties (steps, checkpoints, entries, blobs): what a pass's figures
    are a share of."""
    return store.heavy_rows()._asdict()


def preview_rows(store: "AgentStore", plan: GcPlan) -> list[GcSessionRow]:
    """Sessions (newest activity first, orphans last) with every task marked for the preview."""
    by_session: dict[int | None, list[GcTaskRow]] = {}
    roots = {r.task: r for r in plan.roots}
    for task, session, title, status, pinned in store.task_marks():
        by_session.setdefault(session, []).append(_task_row(plan, roots, task, session, title, status, bool(pinned)))
    out = [GcSessionRow(sid, title, status, tuple(by_session.pop(sid, ())))
           for sid, title, status in store.session_marks()]
    orphans = by_session.pop(None, [])
    if orphans:
        out.append(GcSessionRow(None, "orphans (session deleted)", "deleted", tuple(orphans)))
    return out


def _task_row(plan: GcPlan, roots: dict[int, Root], task: int, session: int | None, title: str, status: str,
              pinned: bool) -> GcTaskRow:
    live = plan.live_task(task)
    if live is not None:
        kept = plan.kept_payload.get(task, 0)
        if live.is_root:
            state, label = "root", f"root: {', '.join(roots[task].kinds)}"
        else:
            state, label = "live", f"live via #{live.chain[-2]} ({live.via[-1]})"
        return GcTaskRow(task, session, title, status, pinned, state, label, kept, live.reason)
    gone = plan.reclaimable_task(task)
    if gone is not None:
        what = (f"would remove {counted(gone.steps, 'step')}, {counted(gone.checkpoints, 'checkpoint')},"
                f" {counted(gone.entries, 'entry', 'entries')} and"
                f" {counted(gone.blobs, 'stored content')}: {human_bytes(gone.bytes)}")
        return GcTaskRow(task, session, title, status, pinned, "reclaimable", "reclaimable", gone.bytes,
                         f"{plan.explain(task)}.\n{what}")
    return GcTaskRow(task, session, title, status, pinned, "collected", "collected", 0, plan.explain(task))
