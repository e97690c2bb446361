"""Cline: the task folders of its VS Code extension and of the `cline` CLI (`tasks/<taskId>/`:
ui_messages.json, api_conversation_history.json, task_metadata.json), read-only; its rules
(the global Rules folder, `.clinerules`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent, discovery_in

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.cline.chain import cline_chain

    return cline_chain(root, cwd, env)


AGENT = Agent(kind="cline", label="Cline", chain=_chain, chain_label="Cline",
              discovery=discovery_in(__name__ + ".discovery", for_workspace=True))
