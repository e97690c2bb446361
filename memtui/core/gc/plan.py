"""Lifecycle GC, the pure read: roots, the live set and what a pass would free."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from memtui.core.gc.explain import WhyFacts
from memtui.core.gc.plan_json import json_pieces
from memtui.core.gc.records import LIVE_EDGES, LiveTask, ReclaimableTask, Root
from memtui.core.memory_source import Capability
from memtui.core.store.gc_queries import BlobKey

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


@dataclass(frozen=True)
class GcPlan:
    """What a GC pass would do; built by `plan_gc`, consumed by `apply_gc` and the preview."""

    roots: tuple[Root, ...]
    live: tuple[LiveTask, ...]
    reclaimable: tuple[ReclaimableTask, ...]
    loose_blobs: int = 0  # blobs no entry needs now (left by an earlier interrupted pass)
    loose_bytes: int = 0
    collected: int = 0  # tasks collected by earlier passes (not listed)
    tasks_total: int = 0
    live_bytes: int = 0  # step payloads + blobs the live set keeps
    kept_payload: dict = field(default_factory=dict, repr=False, compare=False)  # live task -> step bytes
    titles: dict | None = field(default=None, repr=False, compare=False)  # task -> title (plan_gc(titles=True))
    _why: WhyFacts | None = field(default=None, repr=False, compare=False)
    _live_index: dict = field(default_factory=dict, repr=False, compare=False)
    _reclaim_index: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def reclaimable_bytes(self) -> int:
        """Everything `apply_gc` frees: the reclaimable tasks' bytes plus loose blobs."""
        return sum(t.bytes for t in self.reclaimable) + self.loose_bytes

    def live_task(self, task_id: int) -> LiveTask | None:
        return self._live_index.get(task_id)

    def reclaimable_task(self, task_id: int) -> ReclaimableTask | None:
        return self._reclaim_index.get(task_id)

    def explain(self, task_id: int) -> str:
        """Why a task is live, why it may go, or that it was collected already."""
        live = self._live_index.get(task_id)
        if live is not None:
            return live.reason
        gone = self._reclaim_index.get(task_id)
        if gone is not None:
            return self._why.sentence(gone) if self._why is not None else gone.status
        return "collected: its steps and checkpoints were removed by an earlier GC"

    def totals(self) -> dict[str, int]:
        return {
            "steps": sum(t.steps for t in self.reclaimable),
            "checkpoints": sum(t.checkpoints for t in self.reclaimable),
            "entries": sum(t.entries for t in self.reclaimable),
            "blobs": sum(t.blobs for t in self.reclaimable) + self.loose_blobs,
        }

    def to_json(self) -> dict:
        """The `memtui gc --dry-run --json` document (each listed task with its "title" when the
        plan was read with titles). `json_text()` writes the same document, compact, in pieces."""
        doc = {
            "roots": [{"task": r.task, "kind": r.kind, "kinds": list(r.kinds)} for r in self.roots],
            "live": [{"task": t.task, "reason": t.reason, "root": t.root, "chain": list(t.chain)}
                     for t in self.live],
            "reclaimable": [t.to_json() for t in self.reclaimable],
            "reclaimable_bytes": self.reclaimable_bytes,
            "loose_blobs": self.loose_blobs,
            "loose_bytes": self.loose_bytes,
            "live_bytes": self.live_bytes,
            "collected": self.collected,
            "tasks": self.tasks_total,
        }
        if self.titles is not None:
            for row in (*doc["live"], *doc["reclaimable"]):
                row["title"] = self.titles.get(row["task"], "")
        return doc

    def json_text(self) -> Iterator[str]:
        """`to_json()` as compact JSON text (separators "," and ":", non-ASCII kept), in pieces
        of a few thousand rows: a 100,000-task plan is written without building its document."""
        tail = {"reclaimable_bytes": self.reclaimable_bytes, "loose_blobs": self.loose_blobs,
                "loose_bytes": self.loose_bytes, "live_bytes": self.live_bytes, "collected": self.collected,
                "tasks": self.tasks_total}
        return json_pieces(self.roots, self.live, self.reclaimable, self.titles, tail)


# ------------------------------------------------------------------------ live set
def find_roots(store: "AgentStore") -> dict[int, Root]:
    """Every root task with all its root kinds, in task order."""
    kinds: dict[int, tuple[str, ...]] = {}
    for task, kind in store.root_rows():  # in ROOT_KINDS order: each tuple is ordered by priority
        kinds[task] = kinds.get(task, ()) + (kind,)
    return {task: Root(task, k[0], k) for task, k in sorted(kinds.items())}


_LEVELS_BEFORE_BULK = 16


def live_set(store: "AgentStore", roots: dict[int, Root] | None = None) -> dict[int, LiveTask]:
    """The live tasks: a breadth-first walk from all roots at once over handoff/depends edges.

    Each level's outgoing edges come from one indexed query (most references are
    `supersedes`, which the walk never needs to read); past a few levels the remaining
    edges are loaded at once. Every task is visited once, so a reference cycle ends the
    walk instead of looping, and each live task gets its shortest chain from a root.
    """
    roots = find_roots(store) if roots is None else roots
    # parent pointers: task -> (previous task, reference kind, root)
    seen: dict[int, tuple[int | None, str, int]] = {r: (None, "", r) for r in roots}
    frontier = list(roots)
    children: dict[int, list[tuple[int, str]]] | None = None
    level = 0
    while frontier:
        level += 1
        if children is None and level > _LEVELS_BEFORE_BULK:
            children = {}
            for src, dst, kind in store.references_of_kinds(LIVE_EDGES):
                children.setdefault(src, []).append((dst, kind))
        if children is None:
            edges = store.references_from(frontier, LIVE_EDGES)
        else:
            edges = [(src, dst, kind) for src in frontier for dst, kind in children.get(src, ())]
        nxt = []
        for src, dst, kind in edges:
            if dst not in seen:
                seen[dst] = (src, kind, seen[src][2])
                nxt.append(dst)
        frontier = nxt
    out: dict[int, LiveTask] = {}
    for task in sorted(seen):
        prev, kind, root = seen[task]
        if prev is None:
            out[task] = LiveTask(task, root, roots[root].kind, (task,), ())
            continue
        chain, via = [task], []
        while prev is not None:
            chain.append(prev)
            via.append(kind)
            prev, kind, _ = seen[prev]
        out[task] = LiveTask(task, root, roots[root].kind, tuple(reversed(chain)), tuple(reversed(via)))
    return out


def live_set_sql(store: "AgentStore") -> set[int]:
    """The same live set from one recursive SQL query (no reasons): the benchmark's yardstick."""
    return store.live_task_ids()


# ---------------------------------------------------------------------------- plan
def plan_gc(store: "AgentStore", *, titles: bool = False) -> GcPlan:
    """Roots, live set with reasons, and the reclaimable tasks with exact byte accounting;
    with `titles`, every listed task's title too (read by the same query as its counters).

    A pure read: works on a store opened read-only. All queries run in one read transaction,
    so the figures describe one consistent state of the database.
    """
    store.require_declared(Capability.GC)
    with store.snapshot():  # a read transaction: one consistent state, no write lock
        return _plan(store, titles)


_NOTHING = (0, 0)


def _plan(store: "AgentStore", with_titles: bool) -> GcPlan:
    roots = find_roots(store)
    live = live_set(store, roots)
    blob_owned, loose, live_blob_bytes = _blob_accounting(store, sorted(live))

    # One pass over the task rows: a live task's kept bytes, or a reclaimable row, or one
    # collected earlier (nothing left to list).
    reclaimable, kept, titles, collected = [], {}, {}, 0
    for task, session, status, collected_at, steps, step_bytes, cps, entries, legacy_bytes, title in \
            store.task_counters(with_titles):
        step_bytes = step_bytes if steps else 0
        legacy_bytes = legacy_bytes if entries else 0
        if task in live:
            kept[task] = step_bytes + legacy_bytes
        elif collected_at is None or steps or cps:
            blobs, blob_bytes = blob_owned.get(task, _NOTHING)
            reclaimable.append(ReclaimableTask(task, session, status, session is None, steps, cps, entries,
                                               step_bytes + legacy_bytes, blobs, blob_bytes))
        else:
            collected += 1
            continue
        if with_titles:
            titles[task] = title
    tasks_total = len(kept) + len(reclaimable) + collected
    if len(kept) < len(live):  # a reference to a task that no longer exists
        kept = {t: kept.get(t, 0) for t in live}
    index = {r.task: r for r in reclaimable}
    return GcPlan(
        roots=tuple(roots.values()), live=tuple(live.values()), reclaimable=tuple(reclaimable),
        loose_blobs=loose[0], loose_bytes=loose[1], collected=collected, tasks_total=tasks_total,
        live_bytes=live_blob_bytes + sum(kept.values()), _live_index=live, _reclaim_index=index,
        kept_payload=kept, titles=titles if with_titles else None, _why=WhyFacts(store, index.keys()))


def _blob_accounting(store: "AgentStore", live: list[int]) -> tuple[dict[int, list[int]], list[int], int]:
    """Blobs freed per reclaimable task (each counted once), loose blobs [count, bytes] and the
    stored bytes the live set keeps.

    Every blob the live set does not keep is freed (store.blobs_freed_without). Its owner is
    the task that recorded it first; a blob no entry references goes with the owner of a
    delta built on it, else it is loose.
    """
    rows = store.blobs_freed_without(live)
    total = store.stored_blob_bytes()
    owner_of = {h: task for h, _, _, task in rows}
    dependents: dict[BlobKey, list[BlobKey]] = {}
    for h, base, _, _ in rows:
        if base is not None:
            dependents.setdefault(base, []).append(h)

    def owner(h: BlobKey, seen: frozenset = frozenset()) -> int | None:
        task = owner_of.get(h)
        if task is not None or h in seen or len(seen) > 64:  # a malformed base cycle ends here
            return task
        found = [o for d in dependents.get(h, ()) if (o := owner(d, seen | {h})) is not None]
        owner_of[h] = min(found) if found else None
        return owner_of[h]

    owned: dict[int, list[int]] = {}
    loose = [0, 0]
    for h, _, size, _ in rows:
        task = owner(h)
        slot = loose if task is None else owned.setdefault(task, [0, 0])
        slot[0] += 1
        slot[1] += size
    return owned, loose, total - sum(size for _, _, size, _ in rows)
