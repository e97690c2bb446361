"""Statistics of a team store, as PostgreSQL keeps them (`memtui stats postgresql://…`).

Not the freelist of agent.db: a server has no file whose free pages memtui could count or give
back. What it has: each table's bytes with its indexes and out-of-line (TOAST) data
(`pg_total_relation_size`), its live and dead rows as the server's statistics count them
(`pg_stat_user_tables`: dead rows are what GC's deletes left until VACUUM reclaims them — the
server's autovacuum, or `VACUUM (VERBOSE)`), and how the file contents are stored, as for a
local store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from memtui.core.store.stats_queries import ContentStat
from memtui.core.store.team import TeamStore, shown_url

TABLES = ("session", "task", "task_ref", "step", "checkpoint", "checkpoint_entry", "path", "blob", "pack",
          "message", "question", "origin", "push_cursor")


@dataclass(frozen=True)
class TeamTableStat:
    name: str
    rows: int  # live rows (the server's count: it may lag a write by a moment)
    dead_rows: int  # deleted or updated rows not yet vacuumed
    bytes: int  # the table, its indexes and its out-of-line data
    toast_bytes: int  # out-of-line data alone (contents kept EXTERNAL)
    last_vacuum: str | None  # when it was last vacuumed, by hand or autovacuum (ISO), None: never


@dataclass(frozen=True)
class TeamStats:
    url: str
    database_bytes: int
    tables: tuple[TeamTableStat, ...]
    content: ContentStat
    origins: int  # pushed sessions
    machines: int

    def to_json(self) -> dict:
        doc = asdict(self)
        doc["content"]["ratio"] = round(self.content.ratio, 4)
        return doc


def team_stats(store: TeamStore) -> TeamStats:
    """Every figure in one read-only transaction."""
    with store.snapshot():
        rows = store.query(
            "SELECT c.relname, COALESCE(s.n_live_tup, 0), COALESCE(s.n_dead_tup, 0), pg_total_relation_size(c.oid),"
            " COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0),"
            " to_char(GREATEST(s.last_vacuum, s.last_autovacuum) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid"
            " WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC")
        tables = tuple(TeamTableStat(*r) for r in rows if r[0] in TABLES or r[0] == "memtui_schema")
        raw, entries = store.query("SELECT COALESCE(SUM(COALESCE(before_size, 0) + COALESCE(after_size, 0)), 0),"
                                   " COUNT(*) FROM checkpoint_entry")[0]
        stored, blobs = store.query("SELECT COALESCE(SUM(stored), 0), COUNT(*) FROM blob")[0]
        unique = store.query("SELECT COALESCE(SUM(size), 0) FROM blob WHERE id IN (SELECT before_blob FROM"
                             " checkpoint_entry UNION SELECT after_blob FROM checkpoint_entry)")[0][0]
        origins, machines = store.query("SELECT COUNT(*), COUNT(DISTINCT machine) FROM origin")[0]
        size = store.query("SELECT pg_database_size(current_database())")[0][0]
    return TeamStats(shown_url(store.url), size, tables, ContentStat(raw, unique, stored, blobs, entries),
                     origins, machines)
