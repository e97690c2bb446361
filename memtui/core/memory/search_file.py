"""The search index file: its layout, and opening it (memtui.core.memory.search keeps it
current and asks it).

A file of another layout, or damaged, is only a cache: SearchIndex starts it again (`is_damaged`);
one another process is writing is waited for, then said to be busy (`is_busy`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memtui.core.memory.search_location import UNSAVED
from memtui.core.memory.search_plan import TOKENIZER, prepare

SCHEMA_VERSION = "6"  # 6: one `owner` column; 5: rows from the middle of their bands, either way
PAGE_SIZE = 16_384  # records of 0.5-2 KiB fill 16 KiB pages well (4 KiB pages: a fifth unused)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(rel TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER);
CREATE TABLE IF NOT EXISTS tasks(task TEXT PRIMARY KEY, sig TEXT);
CREATE TABLE IF NOT EXISTS spans(owner TEXT PRIMARY KEY, first INTEGER, last INTEGER) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS records USING fts5(
    owner UNINDEXED, text, tokenize='{TOKENIZER}', detail=none, columnsize=0);
CREATE VIRTUAL TABLE IF NOT EXISTS records_v USING fts5vocab(records, row);
CREATE TABLE IF NOT EXISTS terms(id INTEGER PRIMARY KEY, term TEXT UNIQUE);
CREATE VIRTUAL TABLE IF NOT EXISTS terms_tri USING fts5(term, content='terms', content_rowid='id',
                                                        tokenize='trigram');
"""
"""`records`: one row per record, its words indexed without positions (detail=none: smaller
and faster to build than a positional index; a term of several words is checked as a
substring over the rows holding all its words). Its rowid says the kind (search_query.BANDS), `owner` whose
record it is (OWNER: one column: each column more cost a fifth more to insert). `spans`: the
rowids of each file's and task's records of one kind (`file:REL`, `step:ID`…: they are
inserted together), so they are removed as a rowid range. `terms`: every word indexed so far,
with trigrams (`terms_tri`) to find the words containing a term."""

OWNER = {"file": "LINE:REL", "task": "TASK", "message": "TASK", "step": "TASK:STEP:SEQ"}
"""What a record's `owner` holds, by kind (ids as text; a session step's: TASK<TAB>STEP<TAB>SEQ)."""


def open_index(path: str, timeout: float) -> sqlite3.Connection:
    """A connection to the index at `path` (made, with its tables, when new), a write waiting
    `timeout` seconds for another's; raises sqlite3.DatabaseError for a file of another layout
    or a damaged one."""
    if path not in UNSAVED:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    # Autocommit: a search writes only its scratch words (temp), and a transaction left open
    # by it would keep other processes from refreshing the index. refresh() opens its own.
    conn = sqlite3.connect(path, timeout=timeout, check_same_thread=False, isolation_level=None)
    try:
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only a new file takes it
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row and row[0] != SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"search index of layout {row[0]}")
        conn.executescript(SCHEMA)
        if row is None:  # an index that has its layout is only read here (another may be writing it)
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
            conn.commit()
        prepare(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def is_damaged(exc: sqlite3.Error) -> bool:
    """SQLite found the index file damaged (or no database at all)."""
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def is_busy(exc: sqlite3.Error) -> bool:
    """SQLite gave up waiting for another connection's lock on the index."""
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
