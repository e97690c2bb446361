"""Gemini CLI: chats under `~/.gemini/tmp/<project>/chats/` (JSONL, and the older one-document
JSON), found from the Gemini home, a project folder (projects.json) or a chat file; its
GEMINI.md chain."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent, discovery_in

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.gemini_cli.chain import gemini_chain

    return gemini_chain(root, cwd, env)


AGENT = Agent(kind="gemini-cli", label="Gemini CLI", chain=_chain, chain_label="Gemini CLI",
              discovery=discovery_in(f"{__name__}.discovery", for_workspace=True))
