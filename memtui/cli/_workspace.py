"""Resolve a PATH argument (workspace directory or agent.db) for the memory verbs, and open
the workspace's store read-only when there is one."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from memtui.cli._common import open_store
from memtui.core.errors import DocumentNotFound

if TYPE_CHECKING:
    from memtui.core.store import AgentStore


def workspace_root(path: str | Path) -> Path:
    """The workspace root for a directory, or for an agent.db inside `<root>/.agent/`."""
    from memtui.core.store import workspace_of

    from memtui.core.sqlite_readonly import is_sqlite

    p = Path(path).expanduser().resolve()
    if p.is_file():
        if not is_sqlite(p):
            raise DocumentNotFound(f"{path} is not a workspace folder or an agent.db")
        return workspace_of(p)
    if not p.is_dir():
        raise DocumentNotFound(f"{path} is not a workspace directory or store")
    return p


def require_workspace(root: Path, documents: list) -> None:
    """A folder with neither .agent/ nor a memory document is no workspace: a mistyped PATH
    must not read as "no findings"."""
    from memtui.core.errors import MemtuiError

    from memtui.core.store.paths import AGENT_DIR

    if not documents and not (root / AGENT_DIR).is_dir():
        raise MemtuiError(f"{root} is not a workspace: no .agent/ folder and no memory documents"
                          " (MEMORY.md, CLAUDE.md, AGENTS.md, …)")


@contextmanager
def open_store_if_any(path: str | Path) -> Iterator["AgentStore | None"]:
    """The store at PATH opened read-only — the agent.db given, or the workspace's — or None
    if it has none (memory documents work without one; store-dependent lint rules and store
    search are then skipped)."""
    from memtui.core.errors import StoreNotFound
    from memtui.core.store.paths import locate

    try:
        db, _ = locate(Path(path).expanduser().resolve(), create=False)
    except StoreNotFound:
        yield None
        return
    with open_store(db) as store:
        yield store



def agent_home_at(path: Path) -> str | None:
    """"claude-code" / "codex" when PATH is that agent's home (and holds no memtui store): laid
    out as one (core.cleanup.detect_agent) and holding its sessions or archived ones
    (discovery.store_kind_at), not a project that has a `projects/` or `sessions/` folder."""
    from memtui.core.homes import detect_agent
    from memtui.core.errors import MemtuiError
    from memtui.core.discovery import store_kind_at

    from memtui.core.store.paths import store_of

    if not path.is_dir() or store_of(path) is not None:
        return None
    try:
        kind = detect_agent(path)
    except MemtuiError:
        return None
    return kind if store_kind_at(path) == kind else None
