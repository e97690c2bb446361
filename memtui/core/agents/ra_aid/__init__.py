"""RA.Aid: its SQLite memory (`.ra-aid/pk.db`): sessions, trajectories, key facts, snippets and
notes, and the explicit curation of them."""

from __future__ import annotations

from memtui.core.agents.agent import Agent, discovery_in

AGENT = Agent(kind="ra-aid", label="RA.Aid",
              discovery=discovery_in(__name__ + ".discovery", inside=True))
