"""The team store's schema: its version in `memtui_schema`, how a new store is made, and the
upgrades of an older one — each in one transaction (PostgreSQL's DDL is transactional: an
upgrade cut short, by kill -9 or a lost connection, leaves the old schema whole).

Team schema history (its own numbers from 8 on; agent.db's are memtui.core.store.schema's):
  8  the first team store: agent.db's tables of schema 8 (made from memtui.core.store.models),
     `origin` and `push_cursor`, contents `STORAGE EXTERNAL` (its number was agent.db's).
  9  search on the server (memtui.core.store.team_search): the record-text functions and GIN
     trigram indexes (pg_trgm), or full-text ones where pg_trgm cannot be had.
 10  each step's model and its tokens by kind (STEP_USAGE_COLUMNS: uncached input, output, cache
     reads, 5-minute and 1-hour cache writes, reasoning; NULL where the agent recorded in/out
     only), so a team store's usage is grouped by model and priced as the machine's own is.
     Every session's fingerprint and every push cursor is cleared: the next push of each
     machine sends its sessions again and fills them (task ids, pins and GC's work are kept).
A store of a newer team schema is refused; an older one is read as it is (search then goes
through an index on this machine, as before 9) and upgraded when a writer opens it. A change of
agent.db's tables needs a step here too: the team store is made from the same models.
"""

from __future__ import annotations

from typing import Callable

from memtui.core.store import schema
from memtui.core.store.dialect import POSTGRES
from memtui.core.store.team_search import install_search

__all__ = ["TEAM_SCHEMA_VERSION", "FIRST_TEAM_SCHEMA", "STEP_USAGE_COLUMNS", "USAGE_SCHEMA", "TEAM_TABLES", "CREATE_LOCK", "create_team", "upgrade_team"]

TEAM_SCHEMA_VERSION = 10
FIRST_TEAM_SCHEMA = 8
USAGE_SCHEMA = 10
"""The first team schema whose steps keep their model and tokens by kind."""
STEP_USAGE_COLUMNS = ("usage_input", "usage_output", "usage_cache_read", "usage_cache_write_5m",
                      "usage_cache_write_1h", "usage_reasoning")
"""A step's tokens by kind (memtui.core.usage.Tokens, in its fields' order), from schema 10."""
CREATE_LOCK = 0x6D656D747569  # "memtui": the advisory lock creating or upgrading the tables takes

# Beyond the tables of agent.db (made from memtui.core.store.models): where rows came from, and
# how far each machine's files were pushed.
TEAM_TABLES = (
    "CREATE TABLE IF NOT EXISTS memtui_schema (version integer NOT NULL)",
    "CREATE TABLE IF NOT EXISTS origin (id serial PRIMARY KEY, machine text NOT NULL, user_name text NOT NULL,"
    " agent text NOT NULL, session_key text NOT NULL, store_path text NOT NULL, title text NOT NULL DEFAULT '',"
    " fingerprint text NOT NULL DEFAULT '', pushed_at double precision NOT NULL, UNIQUE (machine, agent, store_path, session_key))",
    "ALTER TABLE session ADD COLUMN IF NOT EXISTS origin_id integer UNIQUE REFERENCES origin (id) ON DELETE SET NULL",
    "ALTER TABLE task ADD COLUMN IF NOT EXISTS origin_id integer REFERENCES origin (id) ON DELETE SET NULL",
    "CREATE INDEX IF NOT EXISTS task_origin ON task (origin_id)",
    # The task's id in its store there: references across that store's sessions are joined by it.
    "ALTER TABLE task ADD COLUMN IF NOT EXISTS origin_task text",
    "CREATE INDEX IF NOT EXISTS task_origin_task ON task (origin_task)",
    "CREATE TABLE IF NOT EXISTS push_cursor (machine text NOT NULL, file_path text NOT NULL, size bigint NOT NULL,"
    " mtime_ns bigint NOT NULL, inode bigint NOT NULL, pushed_at double precision NOT NULL,"
    " PRIMARY KEY (machine, file_path))",
    # Each content once, also while two machines push the same file at once (the second waits,
    # then its insert fails and its session is retried: it finds the content then).
    "CREATE UNIQUE INDEX IF NOT EXISTS blob_hash ON blob (hash)",
    # Contents are zstd frames or raw bytes chosen because they did not compress: kept out of
    # line as they are, never compressed again by the server.
    "ALTER TABLE blob ALTER COLUMN data SET STORAGE EXTERNAL",
    "ALTER TABLE pack ALTER COLUMN data SET STORAGE EXTERNAL",
)

Execute = Callable[[str], object]


def _to_9(execute: Execute, trigrams: bool) -> None:
    install_search(execute, trigrams)


def _to_10(execute: Execute, trigrams: bool) -> None:
    execute("ALTER TABLE step ADD COLUMN model text NOT NULL DEFAULT '', "
            + ", ".join(f"ADD COLUMN {column} bigint" for column in STEP_USAGE_COLUMNS))
    # What was pushed before has no model: the next push of each machine sends it again.
    execute("UPDATE origin SET fingerprint = ''")
    execute("DELETE FROM push_cursor")


UPGRADES: dict[int, Callable[[Execute, bool], None]] = {8: _to_9, 9: _to_10}
"""The step from each team schema to the next."""


def create_team(db, models, up_to: int = TEAM_SCHEMA_VERSION, trigrams: bool = True) -> None:
    """A new team store in the open transaction: the first schema's tables, then every upgrade
    up to `up_to` (one path for new and old stores: a new one is an old one upgraded)."""
    db.create_tables(models.all)
    for statement in (*schema.INDEXES, *TEAM_TABLES):
        db.execute_sql(POSTGRES.sql(statement), ())
    db.execute_sql("INSERT INTO memtui_schema (version) VALUES (%s)", (FIRST_TEAM_SCHEMA,))
    upgrade_team(db, FIRST_TEAM_SCHEMA, up_to, trigrams)


def upgrade_team(db, version: int, up_to: int = TEAM_SCHEMA_VERSION, trigrams: bool = True) -> None:
    """Bring a team store of schema `version` up to `up_to`, in the open transaction (the caller
    holds CREATE_LOCK and read `version` under it)."""
    def execute(sql: str) -> object:
        return db.execute_sql(sql, ())

    for step in range(version, up_to):
        UPGRADES[step](execute, trigrams)
    if up_to != version:
        db.execute_sql("UPDATE memtui_schema SET version = %s", (up_to,))
