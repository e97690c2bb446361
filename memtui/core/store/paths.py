"""Where a store lives: locating agent.db for a workspace directory or a database file."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from memtui.core.errors import StoreNotFound
from memtui.core.places import cache_dir

AGENT_DIR = ".agent"
DB_NAME = "agent.db"
TEAM_SCHEMES = ("postgresql://", "postgres://")
"""A PATH that begins so names a team store on a PostgreSQL server (memtui.core.store.team)."""


def is_team_url(path: object) -> bool:
    """Whether PATH names a team store (a postgresql:// URL) rather than a file or folder."""
    return isinstance(path, str) and path.startswith(TEAM_SCHEMES)


def locate(path: Path, create: bool) -> tuple[Path, Path]:
    """(agent.db path, workspace root) for a workspace directory or a database file."""
    path = path.expanduser()
    if path.is_dir() or (create and not path.exists() and path.suffix != ".db"):
        if path.name == AGENT_DIR and (path / DB_NAME).exists():
            return path / DB_NAME, path.parent
        db = path / AGENT_DIR / DB_NAME
        if not db.exists():
            if not create:
                raise StoreNotFound(f"no memtui store in {path} (expected {AGENT_DIR}/{DB_NAME}); try `memtui demo`")
            db.parent.mkdir(parents=True, exist_ok=True)
        return db, path
    if path.exists():
        return path, workspace_of(path)
    if not create:
        raise StoreNotFound(f"{path} does not exist")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path, workspace_of(path)


def workspace_of(db_path: Path) -> Path:
    """The workspace of a database file: the folder holding `.agent/`, else the file's folder."""
    return db_path.parent.parent if db_path.parent.name == AGENT_DIR else db_path.parent


def store_in(workspace: Path) -> Path:
    """Where memtui keeps the store of `workspace`: `<workspace>/.agent/agent.db` (it may not exist)."""
    return workspace / AGENT_DIR / DB_NAME


def store_of(path: Path) -> Path | None:
    """The agent.db of memtui's own store PATH is or holds — a workspace with `.agent/agent.db`,
    its `.agent` folder, or that file itself — else None (any other file is for discovery to
    name: an RA.Aid pk.db is SQLite too)."""
    if path.is_dir():
        for db in (store_in(path), path / DB_NAME if path.name == AGENT_DIR else None):
            if db is not None and db.is_file():
                return db
        return None
    if path.name == DB_NAME and path.parent.name == AGENT_DIR and path.is_file():
        return path
    return None


def shown_url(url: str) -> str:
    """The URL without its password, as memtui prints it."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}@{host}" if parts.username else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def team_folder(url: str) -> Path:
    """What this machine keeps of a team store (its search index): a folder of memtui's cache
    named by the URL's hash. Not made until something is written there."""
    return cache_dir() / "team" / hashlib.sha256(shown_url(url).encode()).hexdigest()[:16]
