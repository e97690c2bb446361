"""Why a reclaimable task may go: the facts, read with the plan, and the sentence, written only
when someone asks (the GC screen's side pane, a task's detail)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.core.gc.records import ReclaimableTask

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


class WhyFacts:
    """What the sentences of a plan's reclaimable tasks say: the references to them and which
    session each is the current task of. Read (in one snapshot) when the first sentence is
    asked for — the CLI's --json never asks, the GC screen asks for every row at once."""

    def __init__(self, store: "AgentStore", candidates: set[int]) -> None:
        self._store, self._candidates = store, candidates
        self._facts: tuple[dict[int, int], dict[int, list[int]], dict[int, int]] | None = None

    def _load(self) -> tuple[dict[int, int], dict[int, list[int]], dict[int, int]]:
        if self._facts is None:
            superseded: dict[int, int] = {}
            referrers: dict[int, list[int]] = {}
            with self._store.snapshot():
                for src, dst, kind in self._store.reference_rows():
                    if dst in self._candidates:
                        if kind == "supersedes":
                            superseded.setdefault(dst, src)
                        else:
                            referrers.setdefault(dst, []).append(src)
                current = self._store.current_task_sessions()
            self._facts = superseded, referrers, current
        return self._facts

    def sentence(self, task: ReclaimableTask) -> str:
        """What the task is, and that nothing live reaches it."""
        superseded, referrers, current = self._load()
        parts = [task.status]
        if task.session is None:
            parts.append("orphan (its session was deleted)")
        elif current.get(task.task) == task.session:
            parts.append(f"current task of closed session {task.session}")
        if task.task in superseded:
            parts.append(f"superseded by #{superseded[task.task]}")
        refs = sorted(set(referrers.get(task.task, ())))
        tail = (f"referenced only by reclaimable tasks {', '.join(f'#{r}' for r in refs)}" if refs
                else "no live task references it")
        return f"{', '.join(parts)}; not a root, {tail}"
