"""Other agents' stores read through the same read model: discovery and one adapter per store.

    from memtui.core.sources import discover
    for source in discover("~/code/project"):
        store = source.open()          # a MemorySource
        print(source.kind, source.counts(), store.sessions()[:1])

    source = open_source("~/code/project")   # the one `memtui PATH` shows (memtui.open)

Kinds: memtui (native agent.db), memory-files, ra-aid, jsonl-sessions, claude-code, codex.
Adapters never write; curation of RA.Aid memory is the explicit `ra_aid_curate.plan_curate` /
`ra_aid_curate.apply_curate` pair.
"""

from __future__ import annotations

from memtui.core.memory_source import Capability, MemorySource, Unsupported
from memtui.core.sources.base import SourceAdapter, SourceEntryInfo
from memtui.core.sources.discovery import KINDS, Source, discover, find_source, open_source

__all__ = ["KINDS", "Capability", "MemorySource", "Source", "SourceAdapter", "SourceEntryInfo", "Unsupported", "discover", "find_source",
           "open_source"]
