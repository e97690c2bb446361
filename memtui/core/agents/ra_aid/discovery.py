"""Where RA.Aid keeps its store: `.ra-aid/pk.db` in a project (or the folder given with
`--project-state-dir`), or that database given as PATH."""

from __future__ import annotations

from pathlib import Path

from memtui.core.agents.ra_aid.source import RaAidSource, is_ra_aid_db
from memtui.core.sources.found import Looking, Source

DB = "pk.db"


def _store(db: Path) -> Source:
    return Source("ra-aid", db, lambda: RaAidSource(db), label="RA.Aid")


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
