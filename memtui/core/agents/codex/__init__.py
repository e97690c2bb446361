"""Codex: rollouts under `~/.codex/sessions/`, their applied patches, thread titles, the AGENTS.md
chain and the home's cleanup inventory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.codex.chain import codex_chain

    return codex_chain(root, cwd, env)


AGENT = Agent(kind="codex", label="Codex", chain=_chain, chain_label="Codex")
