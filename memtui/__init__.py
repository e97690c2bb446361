"""memtui: see, edit and safely clean up the external memory of AI coding agents."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["AgentStore", "__version__"]


def __getattr__(name: str):
    # Lazy so that `import memtui` stays cheap and free of side effects.
    if name == "AgentStore":
        from memtui.core.store import AgentStore

        return AgentStore
    raise AttributeError(name)
