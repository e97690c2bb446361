"""Where memtui's own store is (`.agent/agent.db` of a workspace, its `.agent` folder, or a
database file given as PATH) and the memory documents beside it."""

from __future__ import annotations

from pathlib import Path

from memtui.core.memory_source import MemorySource
from memtui.core.sources.found import Looking, Source
from memtui.core.sqlite_readonly import is_sqlite
from memtui.core.store.paths import AGENT_DIR, store_in, store_of


def _open(db: Path) -> MemorySource:
    from memtui.core.store import AgentStore  # peewee and the models: only when one is opened

    return AgentStore.open(db, readonly=True)


def _store(db: Path) -> Source:
    return Source("memtui", db, lambda: _open(db), label="memtui")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """Any SQLite file no other agent claimed (opening one that is no memtui store says what is
    wrong with it), or a workspace's `.agent` folder; else None."""
    if path.is_file():
        return [_store(path)] if is_sqlite(path) else None
    if path.name == AGENT_DIR and (db := store_of(path)) is not None:
        return [_store(db)]
    return None


def inside(workspace: Path, looking: Looking) -> list[Source]:
    """The workspace's own store, then its memory documents (counted for `memtui sources`)."""
    from memtui.core.agents.memtui.memory_files import MemoryFilesSource, find_memory_files

    found = [_store(db)] if (db := store_in(workspace)).is_file() else []
    files = find_memory_files(workspace)
    if files:
        found.append(Source("memory-files", workspace, lambda: MemoryFilesSource(workspace, files),
                            label="memory files"))
    return found
