"""Claude Code: transcripts under `~/.claude/projects/`, sub-agent files, file-history backups,
the process registry, the CLAUDE.md chain and the home's cleanup inventory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent

if TYPE_CHECKING:
    from memtui.core.memory.chain import AgentChain


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.claude_code.chain import claude_chain

    return claude_chain(root, cwd, env, managed)


AGENT = Agent(kind="claude-code", label="Claude Code", chain=_chain, chain_label="Claude Code")
