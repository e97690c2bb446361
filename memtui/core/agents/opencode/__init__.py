"""OpenCode: sessions in the SQLite `opencode.db` of its data folder
(`$XDG_DATA_HOME/opencode/`, `~/.local/share/opencode/`), read-only; its AGENTS.md chain."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent, discovery_in

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.opencode.chain import opencode_chain

    return opencode_chain(root, cwd, env)


AGENT = Agent(kind="opencode", label="OpenCode", chain=_chain, chain_label="OpenCode",
              discovery=discovery_in(__name__ + ".discovery", for_workspace=True))
