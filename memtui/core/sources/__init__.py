"""What every agent's source is built from: the adapter base classes and the agent-neutral
pieces their readers share (JSON Lines streaming, typed field reads, timestamps, transcript
roots and undo, archived sessions, re-listing). Agents live in `memtui.core.agents`; finding
the store a path means is `memtui.core.discovery`:

    from memtui.core.discovery import discover
    for source in discover("~/code/project"):
        store = source.open()          # a MemorySource
        print(source.kind, source.counts(), store.sessions()[:1])

Adapters never write; curation of RA.Aid memory is the explicit
`memtui.core.agents.ra_aid.curate` plan/apply pair.
"""

from __future__ import annotations

from memtui.core.memory_source import Capability, MemorySource, Unsupported
from memtui.core.sources.base import SourceAdapter, SourceEntryInfo

__all__ = ["Capability", "MemorySource", "SourceAdapter", "SourceEntryInfo", "Unsupported"]
