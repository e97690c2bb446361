"""Where OpenCode keeps its store: `opencode.db` in its data folder (`$XDG_DATA_HOME/opencode/`,
else `~/.local/share/opencode/`); the database or that folder given as PATH; and, for a
workspace, the sessions of that database that ran in it."""

from __future__ import annotations

from pathlib import Path

from memtui.core.sources.found import Looking, Source
from memtui.core.agents.opencode.source import DB_NAME, OpenCodeSource, looks_like_opencode_db

KIND = "opencode"


def _store(db: Path, path: Path, workspace: Path | None = None) -> Source:
    return Source(KIND, path, lambda: OpenCodeSource(db, workspace_filter=workspace), label="OpenCode")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """`opencode.db` itself, or the data folder holding it; None for anything else."""
    db = path if path.is_file() else path / DB_NAME
    if db.name != DB_NAME or not db.is_file() or not looks_like_opencode_db(db):
        return None
    return [_store(db, path)]


def for_workspace(workspace: Path, looking: Looking) -> list[Source]:
    """The sessions of the user's OpenCode database that ran in `workspace` (all of them when
    `workspace` is the user's home folder)."""
    data = looking.home("XDG_DATA_HOME", ".local/share")
    if data is None:
        return []
    db = data / "opencode" / DB_NAME
    if not db.is_file() or not looks_like_opencode_db(db):
        return []
    if looking.user_home:
        return [_store(db, db.parent)]
    source = OpenCodeSource(db, workspace_filter=workspace)
    found = bool(source.sessions())
    source.close()
    return [_store(db, db.parent, workspace)] if found else []
