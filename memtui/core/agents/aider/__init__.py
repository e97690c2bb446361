"""Aider: the chat history it keeps in each repository (`.aider.chat.history.md`, with
`.aider.input.history`), the git commits it made there (the file changes), and the files its
`.aider.conf.yml` has it read at start (`read:`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent, discovery_in

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.aider.chain import aider_chain

    return aider_chain(root, cwd, env)


# No cleanup: the history is one file per repository, not one per session (the source says so).
AGENT = Agent(kind="aider", label="Aider", chain=_chain, chain_label="Aider",
              discovery=discovery_in(__name__ + ".discovery", inside=True, for_workspace=True))
