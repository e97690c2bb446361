"""OpenCode: sessions in the SQLite `opencode.db` of its data folder
(`$XDG_DATA_HOME/opencode/`, `~/.local/share/opencode/`), read-only."""

from __future__ import annotations

from memtui.core.agents.agent import Agent, discovery_in

AGENT = Agent(kind="opencode", label="OpenCode",
              discovery=discovery_in(__name__ + ".discovery", for_workspace=True))
