"""Every failure of a verb as one line on stderr (exit 2): memtui's own errors, SQLite's,
and the operating system's — never a traceback."""

from __future__ import annotations

import errno
import sqlite3
import sys
from pathlib import Path

from memtui.core.errors import MemtuiError, damaged
from memtui.core.sqlite_readonly import is_sqlite


def failures() -> tuple[type[BaseException], ...]:
    """What `describe` turns into one line: memtui's errors, the OS's, SQLite's — and peewee's
    wrappers of those when a verb loaded peewee (not imported just for this: `memtui --help`
    and the app start faster without it)."""
    peewee = sys.modules.get("peewee")
    wrapped = (peewee.DatabaseError, peewee.InterfaceError) if peewee is not None else ()
    return (MemtuiError, OSError, sqlite3.Error, *wrapped)


def _database_file(path: str | Path | None) -> Path | None:
    if path is None:
        return None
    from memtui.core.store.paths import store_of

    path = Path(path).expanduser()
    return store_of(path) or path


def describe(exc: BaseException, path: str | Path | None = None) -> str:
    """One line for the user: what failed and why (permission, lock, damage, missing)."""
    if isinstance(exc, MemtuiError):
        return str(exc)
    if isinstance(exc, OSError):
        where = exc.filename or path or ""
        if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"{where}: permission denied (the folder or file is read-only for you)"
        if isinstance(exc, FileNotFoundError):
            return f"{where} does not exist"
        if exc.errno == errno.ENOSPC:
            return f"{where}: the disk is full"
        return f"{where}: {exc.strerror or exc}"
    text = str(exc)
    db = _database_file(path)
    if "locked" in text or "busy" in text:
        return f"{db or 'the database'} is locked by another process; try again"
    if "readonly" in text or "read-only" in text:
        return f"{db or 'the database'} is read-only for you: cannot write ({text})"
    if "malformed" in text or "not a database" in text:
        if db is not None and db.is_file() and not is_sqlite(db):
            return f"{db} is not a SQLite database"
        return str(damaged(db or "the database", text))
    if "unable to open" in text:
        return f"cannot open {db or 'the database'} ({text})"
    return f"database error: {text}"
