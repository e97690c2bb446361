"""What the agent-neutral engines may ask of an agent, declared by each agent package.

An `Agent` is a small record of hooks; a hook an agent does not have is None, and the engine
offers nothing for it (as capabilities do for a source). Hooks import their implementation
when called, so reading the registry stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain

ChainHook = Callable[[Path, Path, Mapping[str, str], "Iterable[Path] | None"], "AgentChain"]


@dataclass(frozen=True)
class Agent:
    """One agent memtui reads.

    kind: the source kind `memtui sources` prints ("claude-code").
    label: the agent's name for people ("Claude Code").
    chain: builds the memory documents the agent loads at start for (workspace, cwd, env,
        managed paths), or None when the agent loads none memtui knows of.
    chain_label: how the loaded-memory view names that chain.
    """

    kind: str
    label: str
    chain: ChainHook | None = None
    chain_label: str = ""
