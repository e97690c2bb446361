"""AgentStore: the recorder API an agent harness calls, and the read model the panes use.

    store = AgentStore.open("path/to/workspace")          # creates .agent/agent.db
    sid = store.start_session("Fix the flaky test")
    tid = store.start_task(sid, "Investigate test_io")
    step = store.record_step(tid, "edit_file", {"path": "io.py"}, "ok")
    store.record_checkpoint(tid, step, {"io.py": (b"old\n", b"new\n")})
    store.finish_task(tid, "completed", summary="Fixed the race")

The boundary to the rest of memtui: reads go through the read model's named methods (or
`query()` for read-only SQL, `snapshot()` for several reads of one state); every write goes
through `with store.writer() as w:` — the store itself when opened for writing, else a
short-lived write connection to the same file with the same clock and content limit, which
never creates a store.

The package imports its peewee models only when the store is asked for (`AgentStore` and the
other names of memtui.core.store.agent_store are loaded on first use): a verb over an agent's
home (`memtui log ~/.claude`) needs `memtui.core.store.paths` alone and never loads peewee.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from memtui.core.store.paths import AGENT_DIR, DB_NAME, locate, workspace_of

if TYPE_CHECKING:
    from memtui.core.store.agent_store import NATIVE_CAPABILITIES, AgentStore, Clock, ContentCache, utcnow

__all__ = ["AgentStore", "locate", "workspace_of", "AGENT_DIR", "DB_NAME"]


def __getattr__(name: str) -> Any:
    """AgentStore and the rest of memtui.core.store.agent_store, loaded on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return vars(import_module("memtui.core.store.agent_store"))[name]
    except KeyError:
        raise AttributeError(f"module 'memtui.core.store' has no attribute {name!r}") from None
