"""Opening what the user named: memtui's own store, or another agent's store found for it.

`open_workspace` runs in the app's opening worker (it may index whole transcripts);
`opening_failure` turns what went wrong into the notice the user sees instead of a
traceback: a title, what happened, what to do.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

from memtui.core.errors import NotAStore, SchemaTooNew, StoreLocked, StoreNotFound


def is_store(source: Any) -> bool:
    """True for memtui's own store (an AgentStore). Asked of another agent's store, it loads no
    peewee (0.3-1 s before the first paint of an agent's home): no AgentStore was made where
    its module was never imported."""
    store = sys.modules.get("memtui.core.store.agent_store")
    return store is not None and isinstance(source, store.AgentStore)


def open_workspace(path: Path, *, root: Path | None = None,
                   opener: Callable[[], Any] | None = None) -> tuple[Any, Any | None]:
    """The open source for `path` (memtui.core.resolve: the store every verb means by it) and,
    when it is another agent's store, its discovery entry (`memtui.core.discovery.Source`).
    Raises MemtuiError or OSError."""
    if opener is not None:
        source = opener()
        return (source if root is None else source.with_root(root)), None
    from memtui.core.resolve import resolve

    resolved = resolve(path, root=root)  # the app browses read-only; a write opens its writer
    if root is None and resolved.entry is not None:
        every = every_agent_of(resolved.path, resolved.found)  # `memtui ~`: every agent's sessions
        if every is not None:
            source = every.open()
            source.counts()
            return source, every
    if resolved.entry is not None:
        resolved.source.counts()  # index transcripts here, not on the UI thread
    return resolved.source, resolved.entry


def every_agent_of(path: Path, found: Any) -> Any | None:
    """The discovery entry merging every agent's sessions when `path` is the user's home folder
    and the stores `found` there are several agents' (`memtui ~`), else None. The opening and
    the source switcher (S) ask it alike, so the merged list can be chosen again."""
    if not _is_user_home(path):
        return None
    from memtui.core.sources.every_agent import every_agent_entry

    return every_agent_entry(path, found)


def _is_user_home(path: Path) -> bool:
    home = os.environ.get("HOME")
    try:
        return home is not None and home != "" and Path(home).resolve() == Path(path).resolve()
    except (OSError, RuntimeError):
        return False


def tidy_workspace(source: Any) -> None:
    """Remove the temp files crashed memtui processes left: scratch folders ($EDITOR's copies)
    and, in a native store's workspace, writes' temp files. The opening worker calls it once
    the sessions are drawn: importing the memory package and walking its folders would
    otherwise hold the interpreter while the first frame is built."""
    from memtui.core.scratch import sweep_scratch

    sweep_scratch()
    if is_store(source) and source.workspace is not None:  # a team store has no workspace here
        from memtui.core.memory import sweep_workspace

        sweep_workspace(source.workspace)


def _documents_hint(path: Path) -> str:
    """A folder of memory documents only: m shows them; else the demo is the way in."""
    from memtui.core.display import counted
    from memtui.core.memory.discover import discover_documents

    found = discover_documents(path) if path.is_dir() else []
    if found:
        return f"It holds {counted(len(found), 'memory document')}: press m to read, edit and lint them."
    return "Create a demo workspace with:  memtui demo"


def opening_failure(path: Path, error: BaseException) -> tuple[str, str, str]:
    """(title, message, hint) of the notice shown when opening `path` failed."""
    if isinstance(error, StoreNotFound):
        if not path.exists():
            return "No workspace here", f"{path} does not exist.", "Create a demo workspace with:  memtui demo"
        return ("No memtui store here", f"{path} holds no .agent/agent.db and no other agent's store memtui reads"
                " (memtui sources PATH lists what it finds).", _documents_hint(path))
    if isinstance(error, (NotAStore, SchemaTooNew, StoreLocked)):
        return "Cannot read this database", str(error), ""
    if isinstance(error, OSError):
        return "Cannot open the store", f"{path}: {error.strerror or error}", ""
    return "Cannot open the store", str(error), ""
