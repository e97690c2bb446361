"""Every agent's sessions in one list: what the app shows for the user's home folder (`memtui ~`),
where Claude Code, Codex, Gemini CLI, OpenCode, Cline (and any other agent found there) keep
their homes side by side.

`EveryAgent` is a read-only MemorySource over the stores discovery found: its sessions are
theirs, newest activity first, each naming its agent in `SessionInfo.origin` ("Gemini CLI");
every other read goes to the store that holds the session, task, step or file change asked
for. It declares only what reading does (diffs where the stores record contents; search where
they can be searched, each agent's store through its own index); rolling back, cleaning up,
resuming and measuring are done on one agent's store, which the app's source switcher opens.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar

from memtui.core.memory_source import Capability, MemorySource, UnknownId
from memtui.core.model import CheckpointInfo, EntryInfo, Id, MessageInfo, Problem, SessionInfo, StepInfo, TaskInfo

if TYPE_CHECKING:
    from memtui.core.sources.found import Source

__all__ = ["EveryAgent", "every_agent_entry"]

T = TypeVar("T")
KIND = "every-agent"


class EveryAgent(MemorySource):
    """The sessions of several agents' stores, merged by activity (read-only)."""

    kind = KIND
    label = "every agent"

    def __init__(self, path: Path, stores: Sequence[tuple[str, MemorySource]]) -> None:
        self.path = Path(path)
        self.stores = list(stores)
        """(agent label, open store) of each store found, in discovery order."""
        self._owner: dict[str, MemorySource] = {}
        """Which store holds a session or task id, as listed."""
        self._sessions: list[SessionInfo] | None = None
        self._capabilities: frozenset[Capability] | None = None

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """Diffs, where every store records file contents; search, where a store can search its
        sessions (`searched_stores`). Asked at every key the footer shows: once per listing."""
        if self._capabilities is None:
            can = {Capability.DIFF} if all(s.can(Capability.DIFF) for _, s in self.stores) else set()
            if any(s.can(Capability.SEARCH) for _, s in self.stores):
                can.add(Capability.SEARCH)
            self._capabilities = frozenset(can)
        return self._capabilities

    def searched_stores(self) -> Sequence[tuple[str, MemorySource]]:
        """Each agent's store that can search its sessions, named by its agent: searched each
        through its own index (memtui.core.memory.search_agents), as `memtui search ~` does."""
        return [(label, store) for label, store in self.stores if store.can(Capability.SEARCH)]

    def instead(self, capability: Capability) -> str:
        return (f"it lists every agent's sessions at {self.path}; open one agent's store for that (the source"
                f" switcher, or a path `memtui sources {self.path}` lists)")

    def describe(self) -> str:
        return f"the agents' stores at {self.path} ({', '.join(label for label, _ in self.stores)})"

    # -- summary ----------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """The counts every store reports, summed (sessions): a name only some agents count means
        something else in each (OpenCode's tasks, Claude Code's prompts), so it is not added up."""
        each = [store.counts() for _, store in self.stores]
        shared = [name for name in each[0] if all(name in counts for counts in each[1:])] if each else []
        return {name: sum(counts[name] for counts in each) for name in shared}

    def problems(self) -> list[Problem]:
        return [p for _, store in self.stores for p in store.problems()]

    def close(self) -> None:
        for _, store in self.stores:
            store.close()

    def reload(self) -> None:
        for _, store in self.stores:
            store.reload()
        self._sessions = None
        self._capabilities = None
        self._owner.clear()

    # -- sessions ---------------------------------------------------------------------------
    def sessions(self) -> Sequence[SessionInfo]:
        """Every store's sessions, newest activity first, each with its agent as `origin`; a
        session id two stores share is listed once (the first store's)."""
        if self._sessions is None:
            merged: list[SessionInfo] = []
            for label, store in self.stores:
                for session in store.sessions():
                    key = str(session.id)
                    if key in self._owner:
                        continue
                    self._owner[key] = store
                    if session.current_task_id is not None:  # its title is looked up for the first paint
                        self._owner.setdefault(f"task:{session.current_task_id}", store)
                    merged.append(dataclasses.replace(session, origin=session.origin or label))
            merged.sort(key=lambda s: s.updated_at, reverse=True)
            self._sessions = merged
        return self._sessions

    def tasks(self, session_id: Id | None) -> Sequence[TaskInfo]:
        if session_id is None:  # orphans: every store's
            found = [t for _, store in self.stores for t in self._learn(store, store.tasks(None))]
            return found
        self.sessions()
        store = self._owner.get(str(session_id))
        if store is None:
            return []
        return self._learn(store, store.tasks(session_id))

    def _learn(self, store: MemorySource, tasks: Sequence[TaskInfo]) -> Sequence[TaskInfo]:
        for task in tasks:
            self._owner.setdefault(f"task:{task.id}", store)
        return tasks

    def tasks_by_id(self, task_ids: Sequence[Id]) -> list[TaskInfo]:
        """The tasks with these ids, each asked of the store that listed it (a session's current
        task: the sessions pane's titles), else of the store that knows it."""
        self.sessions()
        found: dict[str, TaskInfo] = {}
        by_store: dict[int, tuple[MemorySource, list[Id]]] = {}
        for task_id in task_ids:
            store = self._owner.get(f"task:{task_id}")
            if store is None:
                try:
                    store = self._task_store(task_id)
                except UnknownId:
                    continue
            by_store.setdefault(id(store), (store, []))[1].append(task_id)
        for store, ids in by_store.values():
            found.update((str(t.id), t) for t in store.tasks_by_id(ids))
        return [found[str(t)] for t in task_ids if str(t) in found]

    def _task_store(self, task_id: Id) -> MemorySource:
        known = self._owner.get(f"task:{task_id}")
        if known is not None:
            return known
        for _, store in self.stores:
            try:
                store.task(task_id)
            except (UnknownId, KeyError):
                continue
            self._owner[f"task:{task_id}"] = store
            return store
        raise UnknownId(f"no task {task_id!r} in {self.path}")

    def _first(self, read: Callable[[MemorySource], T], what: str) -> T:
        """What the first store that knows the id answers."""
        for _, store in self.stores:
            try:
                return read(store)
            except (UnknownId, KeyError):
                continue
        raise UnknownId(f"no {what} in {self.path}")

    # -- by task ----------------------------------------------------------------------------
    def task(self, task_id: Id) -> TaskInfo:
        return self._task_store(task_id).task(task_id)

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> Sequence[StepInfo]:
        return self._task_store(task_id).steps(task_id, offset, limit)

    def step_usage(self, task_id: Id) -> Sequence[StepInfo]:
        return self._task_store(task_id).step_usage(task_id)

    def step_totals(self, task_id: Id) -> dict[str, float | None]:
        return self._task_store(task_id).step_totals(task_id)

    def references(self, task_id: Id) -> Sequence[Any]:
        return self._task_store(task_id).references(task_id)

    def checkpoints(self, task_id: Id) -> Sequence[CheckpointInfo]:
        return self._task_store(task_id).checkpoints(task_id)

    def messages(self, task_id: Id) -> Sequence[MessageInfo]:
        return self._task_store(task_id).messages(task_id)

    def thinking(self, task_id: Id) -> Sequence[MessageInfo]:
        return self._task_store(task_id).thinking(task_id)

    def workspace_root(self, task_id: Id) -> Path | None:
        return self._task_store(task_id).workspace_root(task_id)

    def token_usage(self, session_id: Id) -> dict | None:
        self.sessions()
        store = self._owner.get(str(session_id))
        return None if store is None else store.token_usage(session_id)

    # -- by id ------------------------------------------------------------------------------
    def step(self, step_id: Id) -> StepInfo:
        return self._first(lambda s: s.step(step_id), f"step {step_id!r}")

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        return self._first(lambda s: s.checkpoint(checkpoint_id), f"checkpoint {checkpoint_id!r}")

    def checkpoint_entries(self, checkpoint_id: Id) -> Sequence[EntryInfo]:
        return self._first(lambda s: (s.checkpoint(checkpoint_id), s.checkpoint_entries(checkpoint_id))[1],
                           f"checkpoint {checkpoint_id!r}")

    def entry(self, entry_id: Id) -> EntryInfo:
        return self._first(lambda s: s.entry(entry_id), f"file change {entry_id!r}")

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        return self._first(lambda s: (s.entry(entry_id), s.read_entry(entry_id))[1], f"file change {entry_id!r}")


def every_agent_entry(path: Path, found: Sequence[Source]) -> Source | None:
    """A discovery entry listing every agent's sessions of the stores `found` at `path` (the
    user's home folder), or None when they are one agent's (nothing to merge)."""
    from memtui.core.sources.found import Source

    agents = [s for s in found if s.kind not in ("memtui", "memory-files")]
    if len({s.kind for s in agents}) < 2 or len(agents) != len(found):
        return None
    return Source(KIND, Path(path), lambda: EveryAgent(path, [(s.label or s.kind, s.open()) for s in agents]),
                  label="every agent")
