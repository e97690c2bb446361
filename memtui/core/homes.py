"""Which agent's home a folder is, and what is in it: the agents whose homes keep files per
session (Claude Code, Codex, …) declare their layout and inventory in their package
(`HomeCleanup`); this module asks the registry, so cleanup never names an agent."""

from __future__ import annotations

from pathlib import Path

from memtui.core.agents import Agent, all_agents
from memtui.core.agents.agent import HomeCleanup
from memtui.core.cleanup.inventory import Inventory
from memtui.core.errors import MemtuiError


def cleanable_agents() -> list[Agent]:
    """The agents whose homes keep files per session, so memtui can clean them up."""
    return [a for a in all_agents() if a.cleanup is not None]


# Kinds of the agents whose homes memtui cleans up ("claude-code", "codex").
AGENTS: tuple[str, ...] = tuple(a.kind for a in cleanable_agents())


def detect_agent(home: Path) -> str:
    """The kind of the agent whose home `home` is laid out as ("claude-code" for a folder with
    projects/, "codex" for one with sessions/ or archived_sessions/); a one-line error otherwise."""
    home = Path(home)
    agents = cleanable_agents()
    for agent in agents:
        assert agent.cleanup is not None
        if agent.cleanup.is_home(home):
            return agent.kind
    layouts = " nor ".join(f"a {a.label} home (no {a.cleanup.layout})" for a in agents if a.cleanup is not None)
    raise MemtuiError(f"{home} is neither {layouts}; pass --agent to say which")


def agent_home(kind: str, path: Path) -> Path | None:
    """The home a source of that `kind` at `path` reads (`path` itself or the nearest parent
    laid out as the agent's home), or None."""
    cleanup = next((a.cleanup for a in cleanable_agents() if a.kind == kind), None)
    if cleanup is None:
        return None
    path = Path(path)
    return next((candidate for candidate in (path, *path.parents) if cleanup.is_home(candidate)), None)


def home_cleanup(kind: str) -> HomeCleanup:
    """The cleanup hooks of the agent of `kind`; a one-line error for an unknown kind."""
    for agent in cleanable_agents():
        if agent.kind == kind and agent.cleanup is not None:
            return agent.cleanup
    raise MemtuiError(f"unknown agent {kind!r} (expected one of {', '.join(AGENTS)})")


def take_inventory(home: Path, agent: str | None = None, *, cache: Path | None = None) -> Inventory:
    """The sessions and orphans of the Claude Code or Codex home at `home`. With `cache`
    (a folder of memtui's own), what was read from unchanged transcripts is reused."""
    home = Path(home).expanduser()
    if not home.is_dir():
        raise MemtuiError(f"no such folder: {home}")
    home = home.resolve()
    agent = agent or detect_agent(home)
    hooks = home_cleanup(agent)
    inventory = hooks.inventory(home, cache)
    inventory.open_session = hooks.open_session
    return inventory
