"""Cline: the task folders of its VS Code extension and of the `cline` CLI (`tasks/<taskId>/`:
ui_messages.json, api_conversation_history.json, task_metadata.json), read-only."""

from __future__ import annotations

from memtui.core.agents.agent import Agent, discovery_in

AGENT = Agent(kind="cline", label="Cline", discovery=discovery_in(__name__ + ".discovery", for_workspace=True))
