"""What the agent-neutral engines may ask of an agent, declared by each agent package.

An `Agent` is a small record of hooks; a hook an agent does not have is None, and the engine
offers nothing for it (as capabilities do for a source). Hooks import their implementation
when called, so reading the registry stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

if TYPE_CHECKING:
    from memtui.core.cleanup.files import FileInfo
    from memtui.core.cleanup.inventory import Inventory
    from memtui.core.memory.chain import AgentChain
    from memtui.core.memory_source import MemorySource

ChainHook = Callable[[Path, Path, Mapping[str, str], "Iterable[Path] | None"], "AgentChain"]


@dataclass(frozen=True)
class HomeCleanup:
    """How memtui cleans up an agent home whose files are kept per session.

    is_home: whether a folder is laid out as the agent's home (e.g. has projects/).
    layout: what that layout is, for a refusal ("no projects/").
    inventory: every session and orphan in a home (read-only), given memtui's cache folder.
    open_session: a source reading one session's files (to count its tasks when archiving).
    """

    is_home: Callable[[Path], bool]
    layout: str
    inventory: Callable[[Path, "Path | None"], "Inventory"]
    open_session: Callable[[Path, "list[FileInfo]"], "MemorySource"]


@dataclass(frozen=True)
class Agent:
    """One agent memtui reads.

    kind: the source kind `memtui sources` prints ("claude-code").
    label: the agent's name for people ("Claude Code").
    chain: builds the memory documents the agent loads at start for (workspace, cwd, env,
        managed paths), or None when the agent loads none memtui knows of.
    chain_label: how the loaded-memory view names that chain.
    cleanup: how its home is cleaned up, archived and restored, or None when its files are
        not kept per session.
    """

    kind: str
    label: str
    chain: ChainHook | None = None
    chain_label: str = ""
    cleanup: HomeCleanup | None = None
