"""Gemini CLI: chats under `~/.gemini/tmp/<project>/chats/` (JSONL, and the older one-document
JSON), found from the Gemini home, a project folder (projects.json) or a chat file; its
GEMINI.md chain; the home's cleanup inventory (a chat file per session)."""

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
    from memtui.core.agents.gemini_cli.chain import gemini_chain

    return gemini_chain(root, cwd, env)


def _is_home(path: Path) -> bool:
    from memtui.core.agents.gemini_cli.cleanup import is_gemini_home

    return is_gemini_home(path)


def _inventory(home: Path, cache: Path | None) -> Inventory:
    from memtui.core.agents.gemini_cli.cleanup import inventory_gemini

    return inventory_gemini(home, cache)


def _open_session(home: Path, files: list[FileInfo]) -> MemorySource:
    from memtui.core.agents.gemini_cli.source import GeminiCliSource

    return GeminiCliSource([files[0].path], home=home, path=files[0].path)


def _restore_note(home: Path, age_days: float) -> str:
    from memtui.core.agents.gemini_cli.cleanup import restore_note

    return restore_note(home, age_days)


AGENT = Agent(kind="gemini-cli", label="Gemini CLI", chain=_chain, chain_label="Gemini CLI",
              cleanup=HomeCleanup(is_home=_is_home, layout="tmp/<project>/chats/", inventory=_inventory,
                                  open_session=_open_session, restore_note=_restore_note),
              discovery=discovery_in(f"{__name__}.discovery", for_workspace=True))
