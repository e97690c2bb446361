"""What the agent-neutral engines may ask of an agent, declared by each agent package.

An `Agent` is a small record of hooks; a hook an agent does not have is None, and the engine
offers nothing for it (as capabilities do for a source). Hooks import their implementation
when called, so reading the registry stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

if TYPE_CHECKING:
    from memtui.core.sources.found import Looking, Source
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
    restore_note: what a person should know after a session of `home` whose newest file is
        `age_days` old was restored (the agent may sweep it again), or "".
    """

    is_home: Callable[[Path], bool]
    layout: str
    inventory: Callable[[Path, "Path | None"], "Inventory"]
    open_session: Callable[[Path, "list[FileInfo]"], "MemorySource"]
    restore_note: Callable[[Path, float], str] = lambda home, age_days: ""


StoreAt = Callable[[Path, "Looking"], "list[Source] | None"]
Found = Callable[[Path, "Looking"], "list[Source]"]


@dataclass(frozen=True)
class Discovery:
    """Where an agent keeps its stores; memtui.core.discovery asks every agent of the registry
    in turn, so adding an agent needs no edit there.

    store_at: the store a path itself is (a file, or a folder laid out as the agent keeps it),
        or None.
    inside: the stores a workspace folder holds of the agent inside itself (`.ra-aid/pk.db`).
    for_workspace: the stores the agent keeps in its own home for a workspace (the sessions
        that worked in it).
    claims_last: asked whether a path is its store after every other agent: memtui's own store
        takes any SQLite file no other agent claims (and says what is wrong with one that is none).
    """

    store_at: StoreAt | None = None
    inside: Found | None = None
    for_workspace: Found | None = None
    claims_last: bool = False


def discovery_in(module: str, *, store_at: bool = True, inside: bool = False, for_workspace: bool = False,
                 claims_last: bool = False) -> Discovery:
    """A `Discovery` whose hooks are the functions of those names in `module` (an agent
    package's `discovery`), imported when first called: reading the registry loads no reader."""
    def hook(name: str):
        return lambda path, looking: getattr(import_module(module), name)(path, looking)
    return Discovery(store_at=hook("store_at") if store_at else None, inside=hook("inside") if inside else None,
                     for_workspace=hook("for_workspace") if for_workspace else None, claims_last=claims_last)


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
    discovery: where its stores are (`memtui PATH`, `memtui sources PATH`).
    """

    kind: str
    label: str
    chain: ChainHook | None = None
    chain_label: str = ""
    cleanup: HomeCleanup | None = None
    discovery: Discovery | None = None
