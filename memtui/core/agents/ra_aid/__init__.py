"""RA.Aid: its SQLite memory (`.ra-aid/pk.db`): sessions, trajectories, key facts, snippets and
notes, and the explicit curation of them."""

from __future__ import annotations

from memtui.core.agents.agent import Agent

AGENT = Agent(kind="ra-aid", label="RA.Aid")
