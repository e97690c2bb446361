"""Gemini CLI: chats under `~/.gemini/tmp/<project>/chats/` (JSONL, and the older one-document
JSON), found from the Gemini home, a project folder (projects.json) or a chat file; read-only."""

from __future__ import annotations

from memtui.core.agents.agent import Agent, discovery_in

AGENT = Agent(kind="gemini-cli", label="Gemini CLI",
              discovery=discovery_in(f"{__name__}.discovery", for_workspace=True))
