"""What each agent loads at start: a tab per agent, a summary line, the chain in load order
(memtui.ui.widgets.chain_list) and the agent's problems.

`reload()` builds the chains in a worker (a failure goes to the screen's worker report);
`ChainPanel.Loaded` is posted when they are shown. Switching tabs posts
`ChainPanel.AgentChanged`; the list's own messages (`ChainList.FileHighlighted`,
`ChainList.FileChosen`) bubble through. `grants` are the chain's files: the only files
outside the workspace the screen may save.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, Tab, Tabs
from textual.worker import Worker

from memtui.core.loaded_memory import AGENTS, loaded_chains
from memtui.core.memory.chain import AgentChain, chain_paths
from memtui.ui.commands import bindings
from memtui.core.display import human_bytes, sanitize
from memtui.ui.widgets.chain_list import ChainList
from memtui.ui.workers import forward_worker_state


def chain_summary(chain: AgentChain) -> str:
    """One line: how much the agent loads at start, from how many files, what waits."""
    start = [f for f in chain.files if f.loaded_bytes]
    on_demand = sum(1 for f in chain.files if f.on_demand)
    cut = sum(1 for f in chain.files if f.truncated)
    parts = [f"{chain.label} loads {human_bytes(chain.total_loaded_bytes)} (~{chain.total_tokens:,} tokens) "
             f"from {len(start)} file{'s' if len(start) != 1 else ''} at start"]
    if cut:
        parts.append(f"{cut} cut off")
    if on_demand:
        parts.append(f"{on_demand} on demand")
    if chain.problems:
        parts.append(f"{len(chain.problems)} problem{'s' if len(chain.problems) != 1 else ''}")
    return " · ".join(parts)


class ChainPanel(Vertical):
    """Tabs for Claude Code, Codex and memtui over one agent's chain and problems."""

    BINDINGS = bindings("chain")

    class Loaded(Message):
        """Fresh chains are shown."""

    class _Built(Message):
        def __init__(self, chains: list[AgentChain]) -> None:
            super().__init__()
            self.chains = chains

    class AgentChanged(Message):
        """Another agent's tab was chosen."""

        def __init__(self, agent: str) -> None:
            super().__init__()
            self.agent = agent

    def __init__(self, workspace: Path, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.workspace = Path(workspace)
        self.chains: dict[str, AgentChain] = {}
        self.grants: frozenset[Path] = frozenset()
        self.agent = next(iter(AGENTS))

    def compose(self) -> ComposeResult:
        yield Tabs(*(Tab(label, id=f"chain-tab-{agent}") for agent, label in AGENTS.items()), id="chain-tabs")
        yield Static(id="chain-summary", markup=False)
        yield ChainList(self.workspace, id="chain-list")
        yield Static(id="chain-problems", markup=False)

    @property
    def chain(self) -> AgentChain | None:
        return self.chains.get(self.agent)

    @property
    def list(self) -> ChainList:
        return self.query_one(ChainList)

    def reload(self) -> None:
        """Build every agent's chain again (after a save, or when the panel opens)."""
        self._build()

    @work(thread=True, exclusive=True, group="chain-load", exit_on_error=False,
          description="read what each agent loads at start")
    def _build(self) -> None:
        self.post_message(self._Built(loaded_chains(self.workspace)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_state(self, event)

    @on(_Built)
    def _built(self, event: _Built) -> None:
        event.stop()
        self.show(event.chains, keep=self.list.highlighted_path)
        self.post_message(self.Loaded())

    def show(self, chains: list[AgentChain], keep: Path | None = None) -> None:
        """Show chains; stay on the current agent and on `keep` if listed."""
        self.chains = {c.agent: c for c in chains}
        self.grants = frozenset(chain_paths(chains))
        self._show_agent(keep)

    def select_agent(self, agent: str) -> None:
        self.query_one(Tabs).active = f"chain-tab-{agent}"

    def action_next_agent(self) -> None:
        """The next agent's chain."""
        names = list(AGENTS)
        self.select_agent(names[(names.index(self.agent) + 1) % len(names)])

    def _show_agent(self, keep: Path | None = None) -> None:
        chain = self.chain
        summary = self.query_one("#chain-summary", Static)
        problems = self.query_one("#chain-problems", Static)
        if chain is None:
            summary.update("reading the chain…")
            problems.display = False
            return
        summary.update(chain_summary(chain))
        self.list.show(chain, keep)
        problems.update("\n".join(
            f"⚠ {sanitize(p.file.name)}{'' if p.line is None else f':{p.line}'}  {p.rule}: {sanitize(p.message)}" for p in chain.problems))
        problems.display = bool(chain.problems)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        agent = (event.tab.id or "").removeprefix("chain-tab-")
        if agent in AGENTS and agent != self.agent:
            self.agent = agent
            self._show_agent()
            self.post_message(self.AgentChanged(agent))
