"""What a source can do beyond being read: `Capability`, and the one-line refusal `Unsupported`
of an action a source does not declare (what it can't, and what to do instead).

The UI and the CLI ask `source.can(Capability.X)` (memtui.core.memory_source) and offer only
what a source can do; a verb asked for anyway gets `Unsupported`.
"""

from __future__ import annotations

from enum import Enum
from typing import Protocol

from memtui.core.errors import MemtuiError

__all__ = ["Capability", "NATIVE_ONLY", "Unsupported", "WRITING", "default_instead"]


class Capability(str, Enum):
    """What a source can do beyond being read. The value is the name the CLI's JSON prints."""

    DIFF = "diff"
    """It records file changes with their contents: checkpoints, entries, diffs."""
    ROLLBACK = "rollback"
    """Recorded file versions can be written back into its workspace (and undone)."""
    GC = "gc"
    """Lifecycle GC: collect the heavy data of tasks no live root reaches."""
    PIN = "pin"
    """Tasks can be pinned, so GC keeps them."""
    STATS = "stats"
    """Database size, freelist and per-table statistics."""
    VACUUM = "vacuum"
    """VACUUM / incremental vacuum / WAL checkpoint of its database file."""
    SEARCH = "search"
    """Its records are indexed by memory search (memory documents always are)."""
    ITEMS = "items"
    """It keeps memory items: facts, snippets, notes or history rows."""
    CURATE = "curate"
    """Memory items can be deleted (curated)."""
    EDIT_MEMORY = "edit-memory"
    """The memory documents of its workspace may be edited from memtui."""
    RESUME = "resume"
    """Its sessions can be resumed in the agent that recorded them (`claude --resume ID`)."""
    LIVE = "live"
    """Changes can be followed as they happen (memtui.core.live.watch_source polls them cheaply)."""
    CLEANUP = "cleanup"
    """Its agent's home can be cleaned up: old sessions archived (restorable) or deleted."""
    ORIGIN = "origin"
    """Its sessions name the machine and agent they were pushed from (a team store): listed,
    filtered and usage grouped by them."""
    SQLITE_STATS = "sqlite-stats"
    """Size, freelist and bytes per table of the SQLite files another agent keeps (`sqlite_files`,
    read-only: OpenCode's opencode.db, a Codex home's *.sqlite, the Cline CLI's sessions.db)."""

    @property
    def doing(self) -> str:
        """What the capability does, as the end of "… can't <doing>"."""
        return _DOING[self]


_DOING: dict[Capability, str] = {
    Capability.DIFF: "show file changes (it records none)",
    Capability.ROLLBACK: "roll files back",
    Capability.GC: "collect garbage (GC)",
    Capability.PIN: "pin tasks",
    Capability.STATS: "show database statistics",
    Capability.VACUUM: "vacuum its database",
    Capability.SEARCH: "search its records",
    Capability.ITEMS: "list memory items (facts, snippets, notes)",
    Capability.CURATE: "delete memory items",
    Capability.EDIT_MEMORY: "edit memory documents",
    Capability.RESUME: "resume a session in its agent",
    Capability.LIVE: "follow changes as they happen",
    Capability.CLEANUP: "clean up an agent home",
    Capability.ORIGIN: "tell sessions apart by the machine they came from",
    Capability.SQLITE_STATS: "show database statistics",
}

WRITING = frozenset({Capability.ROLLBACK, Capability.GC, Capability.PIN, Capability.VACUUM,
                     Capability.CURATE, Capability.EDIT_MEMORY, Capability.CLEANUP})
"""What writes: a source opened read-only (`memtui open/serve --read-only`) withholds these."""

NATIVE_ONLY = frozenset({Capability.GC, Capability.PIN, Capability.STATS, Capability.VACUUM,
                         Capability.SEARCH})
"""What only memtui's own store does: a foreign source is told to open an agent.db instead."""


class Declaring(Protocol):
    """What a refusal reads of a source (a `MemorySource`)."""

    capabilities: frozenset[Capability]
    withheld: frozenset[Capability]
    withheld_why: str

    def describe(self) -> str: ...

    def instead(self, capability: Capability) -> str: ...


class Unsupported(MemtuiError):
    """An action the source does not declare a capability for (one line: what, and instead)."""

    def __init__(self, source: Declaring, capability: Capability) -> None:
        self.source = source
        self.capability = capability
        super().__init__(f"{source.describe()} can't {capability.doing}: {source.instead(capability)}")


def default_instead(source: Declaring, capability: Capability) -> str:
    """What to do instead of `capability` when `source` has no word of its own (a source may
    say more in its `instead`)."""
    if capability in source.withheld and capability in source.capabilities:
        return source.withheld_why or "it is turned off for this session"
    if capability is Capability.RESUME:
        return "only Claude Code, Codex, Gemini CLI, OpenCode, Aider and Cline CLI sessions can be resumed in their agent"
    if capability in (Capability.STATS, Capability.SQLITE_STATS):
        return ("it keeps no SQLite file to measure; `memtui stats` reads memtui's own store (.agent/agent.db)"
                " and the SQLite files other agents keep (OpenCode's opencode.db, a Codex home's *.sqlite)")
    if capability in NATIVE_ONLY:
        return ("it works on memtui's own store only; open a workspace with .agent/agent.db"
                " (`memtui sources PATH` lists the stores a folder holds)")
    if capability is Capability.CURATE:
        return "memtui deletes RA.Aid's key facts, snippets and research notes only; open a .ra-aid store"
    if capability is Capability.ITEMS:
        return "memory items are kept by RA.Aid (.ra-aid/pk.db) and JSONL session stores; open one of those"
    if capability is Capability.CLEANUP:
        return ("cleanup archives sessions of a home that keeps a file per session (Claude Code, Codex, Gemini CLI);"
                " open ~/.claude, ~/.codex or ~/.gemini (or a project of theirs)")
    if capability is Capability.ORIGIN:
        return ("every session of a store on this machine comes from this machine; a team store"
                " (`memtui push --team URL` from each machine) names each session's machine")
    if capability is Capability.ROLLBACK and Capability.DIFF not in source.capabilities:
        return ("it records no file contents to put back; roll back from a store that does"
                " (memtui's own, Claude Code, Codex, Gemini CLI, OpenCode, Aider)")
    if capability is Capability.ROLLBACK:
        return ("its recorded paths have no single workspace to restore into; open the project folder"
                " (memtui PROJECT) or a memtui workspace")
    return "open a store that records it (`memtui sources PATH` lists what each store holds)"
