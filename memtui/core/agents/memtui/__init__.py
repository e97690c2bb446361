"""memtui's own store (`.agent/agent.db`, read by memtui.core.store) and what sits beside it in a
workspace: the init.d files its runner loads and the memory documents."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent, discovery_in

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.memtui.chain import initd_chain

    return initd_chain(root, cwd)


AGENT = Agent(kind="memtui", label="memtui", chain=_chain, chain_label="memtui (init.d)",
              discovery=discovery_in(__name__ + ".discovery", inside=True, claims_last=True))
