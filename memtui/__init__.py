"""memtui: see, edit and safely clean up the external memory of AI coding agents.

    import memtui

    with memtui.open("~/code/project") as source:   # memtui's own store, else Claude Code, Codex …
        for session in source.sessions():
            print(session.id, session.title)

`memtui.open(path)` opens, read-only, the store `memtui PATH` shows (memtui.core.resolve);
`memtui.AgentStore` records into memtui's own store. Every error is a `memtui.MemtuiError`
with a one-line message.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["AgentStore", "Capability", "MemtuiError", "__version__"]  # and open(): not star-imported, it would hide open()


def __getattr__(name: str):
    # Lazy so that `import memtui` stays cheap and free of side effects.
    if name == "AgentStore":
        from memtui.core.store import AgentStore

        return AgentStore
    if name == "open":
        from memtui.core.resolve import open_source

        return open_source
    if name == "MemtuiError":
        from memtui.core.errors import MemtuiError

        return MemtuiError
    if name == "Capability":
        from memtui.core.memory_source import Capability

        return Capability
    raise AttributeError(name)
