"""Claude Code: transcripts under `~/.claude/projects/`, sub-agent files, file-history backups,
the process registry, the CLAUDE.md chain and the home's cleanup inventory."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from memtui.core.agents.agent import Agent, HomeCleanup, discovery_in

if TYPE_CHECKING:
    from memtui.core.cleanup.files import FileInfo
    from memtui.core.cleanup.inventory import Inventory
    from memtui.core.memory.chain import AgentChain
    from memtui.core.memory_source import MemorySource


def _chain(root: Path, cwd: Path, env: Mapping[str, str], managed: Iterable[Path] | None) -> AgentChain:
    from memtui.core.agents.claude_code.chain import claude_chain

    return claude_chain(root, cwd, env, managed)


def _is_home(path: Path) -> bool:
    return (path / "projects").is_dir()


def _inventory(home: Path, cache: Path | None) -> Inventory:
    from memtui.core.agents.claude_code.cleanup import inventory_claude

    return inventory_claude(home, cache)


def _open_session(home: Path, files: list[FileInfo]) -> MemorySource:
    from memtui.core.agents.claude_code.source import ClaudeCodeSource

    return ClaudeCodeSource([files[0].path], home=home, path=files[0].path)


def _restore_note(home: Path, age_days: float) -> str:
    from memtui.core.agents.claude_code.cleanup import cleanup_period_days

    days = cleanup_period_days(home)
    if age_days <= days:
        return ""
    return (f"its files are {int(age_days)} days old and Claude Code deletes transcripts older than cleanupPeriodDays"
            f" ({days}) when it starts: raise cleanupPeriodDays in {home / 'settings.json'} to keep it there")


AGENT = Agent(kind="claude-code", label="Claude Code", chain=_chain, chain_label="Claude Code",
              cleanup=HomeCleanup(is_home=_is_home, layout="projects/", inventory=_inventory, open_session=_open_session,
                                  restore_note=_restore_note),
              discovery=discovery_in(__name__ + ".discovery", for_workspace=True))
