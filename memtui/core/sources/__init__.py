"""Other agents' stores read through the same read model: discovery and one adapter per store.

    from memtui.core.sources import discover
    for source in discover("~/code/project"):
        store = source.open()          # a MemorySource
        print(source.kind, source.counts(), store.sessions()[:1])

Kinds: memtui (native agent.db), memory-files, ra-aid, jsonl-sessions, claude-code, codex.
Adapters never write; curation of RA.Aid memory is the explicit `ra_aid.plan_curate` /
`ra_aid.apply_curate` pair.
"""

from __future__ import annotations

from memtui.core.memory_source import Capability, MemorySource, Unsupported
from memtui.core.sources.base import SourceAdapter, SourceEntryInfo
from memtui.core.sources.discovery import KINDS, Source, discover

__all__ = ["KINDS", "Capability", "MemorySource", "Source", "SourceAdapter", "SourceEntryInfo", "Unsupported", "discover"]
