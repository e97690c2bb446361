"""The tasks of a session as a forest: sub-agent handoffs nest under the task that handed off.

A handoff child may live in another (often closed) session; it still nests under its parent.
The tasks pane and `memtui export` draw the same forest from `build_task_tree`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from memtui.core.model import Id, TaskInfo


@dataclass
class TaskTree:
    """Tasks of one session (or the orphans), handoff children nested.

    `roots` are ids of `tasks` nobody in the tree handed off to; `children` maps a task id to
    its sub-agent tasks (sorted by id); `handed_from` maps a root handed off from a task in
    another session to that task's id; `by_id` holds every task met, children included.
    """

    tasks: list[TaskInfo]
    roots: list[Id]
    children: dict[Id, list[TaskInfo]] = field(default_factory=dict)
    handed_from: dict[Id, Id] = field(default_factory=dict)
    by_id: dict[Id, TaskInfo] = field(default_factory=dict)


def _id_order(task: TaskInfo) -> str:
    return str(task.id) if isinstance(task.id, str) else f"{task.id:012d}"


def build_task_tree(source: Any, session_id: Id | None, *,
                    cancelled: Callable[[], bool] = lambda: False) -> TaskTree:
    """The handoff forest of a session's tasks (None: the orphans).

    Follows handoff references parent → child breadth-first, into other sessions too; a
    reference cycle is met once; a dangling reference is skipped. `cancelled` is polled
    between tasks so a worker can stop early (the tree is then partial).
    """
    tasks = list(source.tasks(session_id))
    by_id: dict[Id, TaskInfo] = {t.id: t for t in tasks}
    children: dict[Id, list[TaskInfo]] = {}
    parent_of: dict[Id, Id] = {}
    queue = list(tasks)
    while queue and not cancelled():
        task = queue.pop(0)
        for ref in source.references(task.id):
            if ref.kind != "handoff" or ref.from_task != task.id or ref.to_task in parent_of:
                continue
            child = by_id.get(ref.to_task)
            if child is None:
                try:
                    child = source.task(ref.to_task)
                except KeyError:
                    continue  # a dangling reference: nothing to show
                by_id[child.id] = child
                queue.append(child)
            children.setdefault(task.id, []).append(child)
            parent_of[child.id] = task.id
    roots = [t.id for t in tasks if t.id not in parent_of]
    if not roots and tasks:  # a handoff cycle inside the session: every task at the top
        roots = [t.id for t in tasks]
    handed_from: dict[Id, Id] = {}
    for root in roots:
        for ref in source.references(root):
            if ref.kind == "handoff" and ref.to_task == root and ref.from_task not in by_id:
                handed_from[root] = ref.from_task
    for kids in children.values():
        kids.sort(key=_id_order)
    return TaskTree(tasks, roots, children, handed_from, by_id)


def task_subtree(source: Any, task_id: Id, *, cancelled: Callable[[], bool] = lambda: False) -> TaskTree:
    """One task and every task it handed off to, transitively (cycles met once)."""
    root = source.task(task_id)
    by_id: dict[Id, TaskInfo] = {root.id: root}
    children: dict[Id, list[TaskInfo]] = {}
    queue = [root]
    while queue and not cancelled():
        task = queue.pop(0)
        for ref in source.references(task.id):
            if ref.kind != "handoff" or ref.from_task != task.id or ref.to_task in by_id:
                continue
            try:
                child = source.task(ref.to_task)
            except KeyError:
                continue
            by_id[child.id] = child
            children.setdefault(task.id, []).append(child)
            queue.append(child)
    handed_from = {root.id: ref.from_task for ref in source.references(root.id)
                   if ref.kind == "handoff" and ref.to_task == root.id}
    for kids in children.values():
        kids.sort(key=_id_order)
    return TaskTree([root], [root.id], children, handed_from, by_id)
