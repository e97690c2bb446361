"""Lifecycle GC, the records a plan is made of: roots, live tasks and why, reclaimable tasks."""

from __future__ import annotations

from typing import NamedTuple

ROOT_KINDS = ("current", "running", "waiting", "pinned")  # priority when a task is several
LIVE_EDGES = ("handoff", "depends")

_ROOT_WORDS = {
    "current": "current task of an open session",
    "running": "running",
    "waiting": "waiting for the user",
    "pinned": "pinned",
}


# Root and LiveTask are immutable named tuples rather than dataclasses: a plan builds one per
# live task (10,000 at the 100,000-task benchmark) and tuples are several times cheaper.
class Root(NamedTuple):
    """A task that is live by itself; `kinds` lists every reason, `kind` the first of them."""

    task: int
    kind: str
    kinds: tuple[str, ...]


class LiveTask(NamedTuple):
    """A live task and why: the root it hangs from and the references leading to it."""

    task: int
    root: int
    root_kind: str
    chain: tuple[int, ...]  # root … task; (task,) for a root
    via: tuple[str, ...]  # reference kinds along the chain, len(chain) - 1

    @property
    def is_root(self) -> bool:
        return len(self.chain) == 1

    @property
    def reason(self) -> str:
        """One line: 'root: pinned' or 'via handoff from #12 (root: running): #12 → #15'."""
        if self.is_root:
            return f"root: {_ROOT_WORDS[self.root_kind]}"
        hops = "".join(f" -{kind}-> #{task}" for kind, task in zip(self.via, self.chain[1:], strict=True))
        return f"reachable from #{self.root} ({_ROOT_WORDS[self.root_kind]}): #{self.root}{hops}"


class ReclaimableTask(NamedTuple):
    """A task whose heavy data would go, with what exactly would be removed (a named tuple,
    like LiveTask: a plan of the 100,000-task benchmark holds 90,000 of them). Why it may go:
    `GcPlan.explain(task)`."""

    task: int
    session: int | None
    status: str
    orphan: bool
    steps: int
    checkpoints: int
    entries: int
    payload_bytes: int  # step args/results and inline (legacy) entry contents
    blobs: int  # blobs freed with it (a shared one counts toward the task that recorded it first)
    blob_bytes: int

    @property
    def bytes(self) -> int:
        return self.payload_bytes + self.blob_bytes

    def to_json(self) -> dict:
        return {"task": self.task, "session": self.session, "status": self.status, "orphan": self.orphan,
                "steps": self.steps, "checkpoints": self.checkpoints, "entries": self.entries,
                "blobs": self.blobs, "bytes": self.bytes}
