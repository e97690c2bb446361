"""Where OpenCode keeps its store: `opencode.db` in its data folder (`$XDG_DATA_HOME/opencode/`,
else `~/.local/share/opencode/`); the database or that folder given as PATH; and, for a
workspace, the sessions of that database that ran in it. Whether a file is OpenCode's database is
asked here (its tables), without importing the reader."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.sources.found import Looking, Source
from memtui.core.sqlite_readonly import connect_readonly, is_sqlite, table_names

if TYPE_CHECKING:
    from memtui.core.agents.opencode.source import OpenCodeSource

KIND = "opencode"
DB_NAME = "opencode.db"
TABLES = {"session", "message", "part"}


def looks_like_opencode_db(path: Path) -> bool:
    """An SQLite file holding OpenCode's session, message and part tables."""
    if not is_sqlite(path):
        return False
    try:
        conn = connect_readonly(path)
        try:
            return TABLES <= table_names(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def _open(db: Path, workspace: Path | None = None) -> OpenCodeSource:
    from memtui.core.agents.opencode.source import OpenCodeSource  # the reader: once a store is opened

    return OpenCodeSource(db, workspace_filter=workspace)


def _store(db: Path, path: Path, workspace: Path | None = None) -> Source:
    return Source(KIND, path, lambda: _open(db, workspace), label="OpenCode")


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
    return [_store(db, db.parent, workspace)] if _ran_in(db, workspace) else []


def _ran_in(db: Path, workspace: Path) -> bool:
    """Whether a session of the database recorded `workspace` as its directory (the sessions the
    reader's workspace filter keeps), asked of the session table alone."""
    target = os.path.realpath(workspace)
    try:
        conn = connect_readonly(db)
        try:
            return any(os.path.realpath(d or "") == target for (d,) in conn.execute("SELECT DISTINCT directory FROM session"))
        finally:
            conn.close()
    except sqlite3.Error:
        return False
