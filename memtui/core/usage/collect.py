"""Replies from any source's read model: each step's tokens, model and recorded cost, counted
in the turn that caused it.

A sub-agent's round is a task of its own, linked from the turn that delegated it by a handoff;
its replies are counted in that turn (the root of its handoff chain), once. A compaction is
a step of the turn it interrupted, so it is counted there already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from memtui.core.usage.prices import Pricer, shared_pricer
from memtui.core.usage.report import Group, Reply, price
from memtui.core.usage.tokens import Tokens

if TYPE_CHECKING:
    from memtui.core.memory_source import MemorySource
    from memtui.core.model import Id, SessionInfo, StepInfo, TaskInfo


ORPHANS = "(no session)"


def step_tokens(step: "StepInfo") -> Tokens:
    """A step's tokens by kind; where its store records only in/out, in and out."""
    if step.usage is not None:
        return step.usage
    return Tokens(input=step.tokens_in, output=step.tokens_out)


def step_reply(step: "StepInfo", *, agent: str, session: "SessionInfo | None", task_id: "Id",
               project: str = "", home: str = "", machine: str = "") -> Reply | None:
    """The step as a Reply (None when it used no tokens and recorded no cost)."""
    tokens = step_tokens(step)
    if not tokens and not step.cost:
        return None
    return Reply(agent, str(session.id) if session else ORPHANS, task_id, step.created_at, step.model, tokens,
                 step.cost or None, project, session.title if session else "tasks whose session was deleted", home,
                 machine)


def _roots(source: "MemorySource", tasks: list["TaskInfo"]) -> dict["Id", "Id"]:
    """Each task → the turn its replies count in: the root of its handoff chain."""
    parent: dict = {}
    for task in tasks:
        for ref in source.references(task.id):
            if ref.kind == "handoff" and ref.to_task != ref.from_task:
                parent.setdefault(ref.to_task, ref.from_task)
    roots = {}
    for task in tasks:
        seen, node = {task.id}, task.id
        while node in parent and parent[node] not in seen:
            node = parent[node]
            seen.add(node)
        roots[task.id] = node
    return roots


def session_replies(source: "MemorySource", session: "SessionInfo | None") -> Iterator[Reply]:
    """The replies of one session (None: the orphan tasks)."""
    tasks = list(source.tasks(None if session is None else session.id))
    roots = _roots(source, tasks)
    home = str(source.path)
    # A team store's session names the machine and the agent it was pushed from.
    machine = session.machine if session is not None else ""
    agent = session.agent if session is not None and machine else source.kind
    for task in tasks:
        root = source.workspace_root(task.id)
        project = str(root) if root is not None else ""
        for step in source.step_usage(task.id):
            reply = step_reply(step, agent=agent, session=session, task_id=roots[task.id],
                               project=project, home=home, machine=machine)
            if reply is not None:
                yield reply


def priced_steps(steps: "Iterable[StepInfo]", pricer: Pricer | None = None) -> "list[StepInfo]":
    """The steps with `cost` filled from the price table where their store recorded none (an
    unknown model stays at 0.0, which the panes show as "—", as an unrecorded cost)."""
    from dataclasses import replace

    pricer = pricer or shared_pricer()
    out = []
    for step in steps:
        if not step.cost and step.usage is not None and step.usage:
            cost = pricer.cost(step.model, step.usage, step.created_at)
            step = replace(step, cost=cost or 0.0)
        out.append(step)
    return out


def task_costs(source: "MemorySource", task_id: "Id", pricer: Pricer | None = None) -> tuple[Group, Group]:
    """A task's own tokens and cost, and the same with every sub-agent round it handed off
    (transitively, each task once)."""
    pricer = pricer or shared_pricer()
    own, whole = Group(str(task_id)), Group(str(task_id))
    seen, todo = {task_id}, [task_id]
    while todo:
        current = todo.pop()
        session = None
        for step in source.step_usage(current):
            reply = step_reply(step, agent=source.kind, session=session, task_id=task_id)
            if reply is None:
                continue
            item = price([reply], pricer)[0]
            whole.add(item)
            if current == task_id:
                own.add(item)
        for ref in source.references(current):
            if ref.kind == "handoff" and ref.from_task == current and ref.to_task not in seen:
                seen.add(ref.to_task)
                todo.append(ref.to_task)
    return own, whole


def source_replies(source: "MemorySource") -> Iterator[Reply]:
    """Every reply a source recorded: its sessions' and its orphan tasks'."""
    for session in source.sessions():
        yield from session_replies(source, session)
    yield from session_replies(source, None)
