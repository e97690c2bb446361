"""The one seam between the store's SQL and the database engine under it.

The store's statements are written once, in the SQL both engines read (SQLite's `?`
placeholders, `TRUE`/`FALSE`, `RETURNING id`, `LIMIT ? OFFSET ?`). What differs is said
here and nowhere else:

- `sql(text)`: the statement as the engine takes it. SQLite takes it as it is; PostgreSQL
  (psycopg) gets `%s` placeholders, `%` doubled, `bytea` where SQLite says BLOB, `strpos` for
  `instr`, and an integer list given as one JSON parameter read by `json_array_elements_text`
  where SQLite reads it with `json_each`.
- `all_rows`: the LIMIT that means "no limit" (-1 in SQLite, NULL in PostgreSQL).
- `write_lock`: what `atomic()` is given for a write transaction (SQLite's BEGIN IMMEDIATE
  takes the write lock at once; PostgreSQL locks rows as it writes them).
- `skip_locked`: how GC takes a task for its transaction (`FOR UPDATE SKIP LOCKED` on
  PostgreSQL: two GCs never collide on one task).

What a whole engine can or cannot do (a freelist, VACUUM of a file, rolling files back on this
machine) is the store's capabilities, not this module's: see memtui.core.store.team.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["Dialect", "SQLITE", "POSTGRES", "INT_LIST"]

INT_LIST = "SELECT value FROM json_each(?)"
"""The rows of an integer list given as one JSON parameter (`json.dumps(ids)`): written so in a
statement, the dialect makes it what its engine reads."""


class Dialect:
    """SQLite: statements run as they are written."""

    name = "sqlite"
    all_rows: int | None = -1
    write_lock: str | None = "IMMEDIATE"
    skip_locked = ""
    lock_row = ""
    share_lock = ""
    """Appended to the writer's lookups of a content it will reference (by hash, or as a delta
    base): PostgreSQL keeps a concurrent GC from deleting it until the writer commits."""
    """Appended to a read of a row the transaction will rewrite from what it read (a pack GC
    repacks): PostgreSQL locks it first, so two GCs never rewrite one pack from stale reads."""
    """Appended to GC's read of a task's root state inside its transaction: PostgreSQL locks the
    task row, and a task another GC holds is skipped (SQLite's one writer needs no lock)."""

    def sql(self, text: str) -> str:
        return text


_PG_WORDS = (
    (INT_LIST.replace("?", "%s"), "SELECT CAST(value AS bigint) FROM json_array_elements_text(CAST(%s AS json))"),
    ("X''", "'\\x'::bytea"),
    (" AS BLOB)", " AS bytea)"),
    ("instr(", "strpos("),
)
_PLACEHOLDER = re.compile(r"\?")


class _Postgres(Dialect):
    name = "postgresql"
    all_rows = None
    write_lock = None
    skip_locked = " FOR UPDATE OF t SKIP LOCKED"
    lock_row = " FOR UPDATE"
    share_lock = " FOR KEY SHARE"

    def sql(self, text: str) -> str:
        return _pg_sql(text)


@lru_cache(maxsize=1024)
def _pg_sql(text: str) -> str:
    """A statement of the store in PostgreSQL's words (cached: most are the same few strings).
    None of the store's statements holds a `?`, `%` or these words inside a quoted literal."""
    out = _PLACEHOLDER.sub("%s", text.replace("%", "%%"))
    for sqlite_words, pg_words in _PG_WORDS:
        out = out.replace(sqlite_words, pg_words)
    return out


SQLITE = Dialect()
POSTGRES = _Postgres()
