"""JSONL session stores: one JSON Lines file per session (the shape many agent frameworks
write), read as sessions, turns and steps."""

from __future__ import annotations

from memtui.core.agents.agent import Agent, discovery_in

AGENT = Agent(kind="jsonl-sessions", label="JSONL sessions",
              discovery=discovery_in(__name__ + ".discovery", inside=True))
