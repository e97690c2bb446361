"""Every agent memtui reads, one package each: everything memtui knows of that agent lives in
its package (discovery, the typed index and reader, checkpoints and rollback hooks, cleanup
inventory, memory chain, resume command, process registry). The engines around them (GC,
search, usage, export, cleanup plan/apply, the chain runner, rollback) are agent-neutral and
ask an agent through its `AGENT` (an `Agent`) and the public interfaces of its source.

Adding an agent: a package beside these whose `__init__` defines `AGENT`, and its name in
`PACKAGES`. Packages are imported on demand, so opening one agent's store never loads the
others.
"""

from __future__ import annotations

from importlib import import_module

from memtui.core.agents.agent import Agent

PACKAGES: tuple[str, ...] = ("claude_code", "codex", "memtui", "ra_aid", "jsonl", "gemini_cli", "opencode", "aider", "cline")


def agent_named(package: str) -> Agent:
    """The `Agent` of one package of `PACKAGES` (imported now if it was not yet)."""
    if package not in PACKAGES:
        raise KeyError(package)
    found: Agent = import_module(f"{__name__}.{package}").AGENT
    return found


def all_agents() -> list[Agent]:
    """Every registered agent, in `PACKAGES` order."""
    return [agent_named(p) for p in PACKAGES]


def agent_of_kind(kind: str) -> Agent:
    """The agent whose source kind is `kind` ("claude-code", "codex", …); KeyError if none."""
    for candidate in all_agents():
        if candidate.kind == kind:
            return candidate
    raise KeyError(kind)


__all__ = ["PACKAGES", "Agent", "agent_named", "agent_of_kind", "all_agents"]
