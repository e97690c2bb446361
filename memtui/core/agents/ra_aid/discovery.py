"""Where RA.Aid keeps its store: `.ra-aid/pk.db` in a project (or the folder given with
`--project-state-dir`), or that database given as PATH."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memtui.core.sources.found import Looking, Source
from memtui.core.sqlite_readonly import connect_readonly, is_sqlite, table_names

DB = "pk.db"


def is_ra_aid_db(path: Path) -> bool:
    """True if `path` is a SQLite file with RA.Aid's tables."""
    if not (Path(path).is_file() and is_sqlite(path)):
        return False
    try:
        conn = connect_readonly(path)
        try:
            return {"human_input", "trajectory", "key_fact"} <= table_names(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def _store(db: Path) -> Source:
    def opener():
        from memtui.core.agents.ra_aid.source import RaAidSource  # the reader: once a store is opened

        return RaAidSource(db)
    return Source("ra-aid", db, opener, label="RA.Aid")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """An RA.Aid pk.db, a `.ra-aid` folder, or a folder holding RA.Aid's pk.db; else None."""
    if path.is_file():
        return [_store(path)] if is_ra_aid_db(path) else None
    db = path / DB
    if (path.name == ".ra-aid" and db.is_file()) or is_ra_aid_db(db):
        return [_store(db)]
    return None


def inside(workspace: Path, looking: Looking) -> list[Source]:
    """The project's `.ra-aid/pk.db`."""
    db = workspace / ".ra-aid" / DB
    return [_store(db)] if is_ra_aid_db(db) else []
