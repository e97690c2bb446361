"""Codex: rollouts under `~/.codex/sessions/`, their applied patches, thread titles, the AGENTS.md
chain and the home's cleanup inventory."""

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
    from memtui.core.agents.codex.chain import codex_chain

    return codex_chain(root, cwd, env)


def _is_home(path: Path) -> bool:
    return (path / "sessions").is_dir() or (path / "archived_sessions").is_dir()


def _inventory(home: Path, cache: Path | None) -> Inventory:
    from memtui.core.agents.codex.cleanup import inventory_codex

    return inventory_codex(home, cache)


def _open_session(home: Path, files: list[FileInfo]) -> MemorySource:
    from memtui.core.agents.codex.source import CodexSource

    return CodexSource([f.path for f in files], home=home, path=files[0].path)


AGENT = Agent(kind="codex", label="Codex", chain=_chain, chain_label="Codex",
              cleanup=HomeCleanup(is_home=_is_home, layout="sessions/", inventory=_inventory, open_session=_open_session),
              discovery=discovery_in(__name__ + ".discovery", for_workspace=True))
