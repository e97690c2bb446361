"""The team store: memtui's store on a PostgreSQL server (`memtui postgresql://…`).

The same tables, statements and read model as agent.db (AgentStore, its SQL put into
PostgreSQL's words by memtui.core.store.dialect), plus where each row came from: an `origin`
per pushed session (machine, user, agent kind, the session's id there and the store's path)
named by its session and tasks, and a `push_cursor` per source file pushed (memtui.core.team).
Contents are content-addressed `bytea` kept out of line uncompressed (`STORAGE EXTERNAL`: a
zstd frame compresses no further), one row per distinct content across every machine.

What differs from a store on this machine is its capabilities: no freelist, VACUUM of a file
or change watch (a server is not a file), and no rollback — files are rolled back only on the
machine that owns them, against its own store (`rollback_command`).
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

import peewee
from peewee import PostgresqlDatabase

from memtui.core import content as codec
from memtui.core.atomic import check_writes_allowed
from memtui.core.errors import MemtuiError, ReadOnlyStore, SchemaTooNew, StoreNotFound
from memtui.core.memory_source import WRITING, Capability
from memtui.core.model import StepInfo
from memtui.core.store import NATIVE_CAPABILITIES, AgentStore, Clock, ContentCache, utcnow, schema
from memtui.core.store.dialect import POSTGRES
from memtui.core.store.models import build_models
from memtui.core.store.paths import is_team_url, shown_url, team_folder
from memtui.core.store.pushed import SessionPush
from memtui.core.store.reads import COMMON_STEP_COLUMNS
from memtui.core.store.team_migrate import (CREATE_LOCK, FIRST_TEAM_SCHEMA, STEP_USAGE_COLUMNS, TEAM_SCHEMA_VERSION,
                                            USAGE_SCHEMA, create_team, upgrade_team)
from memtui.core.store.team_search import TeamSearch
from memtui.core.usage.tokens import Tokens

__all__ = ["TeamStore", "is_team_url", "shown_url", "team_folder", "TEAM_CAPABILITIES"]

TEAM_CAPABILITIES = NATIVE_CAPABILITIES - {Capability.ROLLBACK, Capability.VACUUM, Capability.LIVE,
                                           Capability.STATS, Capability.EDIT_MEMORY} | {Capability.ORIGIN}
"""A team store is browsed, searched, pinned and collected; files are rolled back on the machine
that owns them, and a server has no file to vacuum, watch or count free pages of. Each session
names the machine and agent it was pushed from (ORIGIN)."""

_USAGE_SQL = ", ".join(("model", *STEP_USAGE_COLUMNS))


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc)


def _tokens(counts: tuple) -> Tokens | None:
    """A step's tokens by kind from its usage columns (None: pushed with in/out only)."""
    return None if counts[0] is None else Tokens(*(c or 0 for c in counts))


class _TeamDatabase(PostgresqlDatabase):
    """A PostgreSQL database with the store's float columns as double precision (epoch seconds)."""

    def refresh(self) -> None:
        """Nothing to do: each statement on the server sees what was committed before it."""


def connect(url: str, readonly: bool) -> _TeamDatabase:
    """A peewee database for the team store at `url` (psycopg 3), thread-local connections.
    Read-only: every transaction the server runs for it is READ ONLY."""
    try:
        import psycopg  # noqa: F401  (peewee reaches PostgreSQL through it: an extra, memtui[team])
    except ImportError:
        raise MemtuiError("the team store needs psycopg, PostgreSQL's driver: pip install 'memtui[team]'") from None
    options: dict[str, Any] = {"options": "-c default_transaction_read_only=on"} if readonly else {}
    return _TeamDatabase(url, field_types={"FLOAT": "DOUBLE PRECISION"}, prefer_psycopg3=True,
                         connect_timeout=10, **options)


def open_error(exc: Exception, url: str) -> MemtuiError:
    """The one line for a server that cannot be reached or refuses us."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreNotFound(f"cannot open the team store at {shown_url(url)}: {first}")


class TeamStore(TeamSearch, AgentStore, SessionPush):
    """memtui's store on a PostgreSQL server. `TeamStore.open(url)`; close with `close()`."""

    label = "memtui team"
    undo_kept_in = "store"
    capabilities = TEAM_CAPABILITIES
    _dialect = POSTGRES
    blob_cols: schema.BlobColumns
    _SESSION_ORIGIN = "(SELECT o.machine || ' · ' || o.agent FROM origin o WHERE o.id = s.origin_id)"

    if TYPE_CHECKING:  # AgentStore's, which this store runs as they are

        def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]: ...

    def __init__(self, url: str, readonly: bool, clock: Clock | None = None,  # noqa: D107
                 content_limit: int = codec.DEFAULT_LIMIT, create: bool = False) -> None:
        self.url = url
        self.db_path = team_folder(url)
        self.workspace = None
        self.readonly = readonly
        self.content_limit = content_limit
        self._clock = clock or utcnow
        self._db = connect(url, readonly)
        self._m = build_models(self._db)
        self._cache = ContentCache()
        try:
            version = self._probe()
            if version is None:
                if not create or readonly:
                    raise StoreNotFound(f"no memtui store at {shown_url(url)}; create it with"
                                        f" `memtui push --team {shown_url(url)}` (a writer role)")
                version = self._create()
            elif version < TEAM_SCHEMA_VERSION and not readonly:
                version = self._upgrade()
            self.team_schema = version
            self.search_by = self._searched_by() if version >= 9 else None
        except (peewee.DatabaseError, peewee.InterfaceError) as exc:
            self._db.close()
            raise open_error(exc, url) from None
        except BaseException:
            self._db.close()
            raise
        # The record tables are agent.db's of this memtui's schema (the read model asks it);
        # the team store's own changes are counted by `team_schema` (team_migrate).
        self._schema = schema.SCHEMA_VERSION
        self.blob_cols = schema.blob_columns(schema.SCHEMA_VERSION)

    @classmethod
    def open(cls, path, readonly: bool = False, clock: Clock | None = None,  # type: ignore[override]
             content_limit: int = codec.DEFAULT_LIMIT, create: bool | None = None) -> "TeamStore":
        """Open the team store at `path` (a postgresql:// URL). A writer creates its tables on
        an empty database unless `create=False`; a reader never does."""
        create = (not readonly) if create is None else create and not readonly
        return cls(str(path), readonly, clock, content_limit, create=create)

    def _probe(self) -> int | None:
        tables = {r[0] for r in self._db.execute_sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()}
        if "memtui_schema" not in tables:
            if tables & set(schema.CORE_TABLES):
                raise MemtuiError(f"{shown_url(self.url)} holds tables named as memtui's but no memtui store")
            return None
        rows = self._db.execute_sql("SELECT version FROM memtui_schema").fetchall()
        version = rows[0][0] if rows else 0
        if version > TEAM_SCHEMA_VERSION:
            raise SchemaTooNew(f"the team store at {shown_url(self.url)} was written by a newer memtui (team schema"
                               f" {version}, this one reads up to {TEAM_SCHEMA_VERSION}); upgrade memtui")
        if version < FIRST_TEAM_SCHEMA:
            raise MemtuiError(f"the team store at {shown_url(self.url)} has team schema {version}, older than any"
                              f" this memtui upgrades (from {FIRST_TEAM_SCHEMA})")
        return version

    def _create(self) -> int:
        """The tables, indexes and schema version, in one transaction (PostgreSQL's DDL is
        transactional: a creation cut short leaves nothing). Two writers creating at once: the
        second waits on an advisory lock, then finds the first one's tables."""
        with self._db.atomic():
            self._db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (CREATE_LOCK,))
            found = self._probe()  # another writer made it while this one waited for the lock
            if found is not None:
                return found
            create_team(self._db, self._m, up_to=TEAM_SCHEMA_VERSION)
        return TEAM_SCHEMA_VERSION

    def _upgrade(self) -> int:
        """An older team store brought up to this memtui's schema, in one transaction under the
        creation lock (another writer upgrading meanwhile: this one finds it done). A role that
        may not change the tables (not their owner) leaves it as it is: the new schema only adds
        indexes, so it is written as before and searched through an index on this machine."""
        try:
            with self._db.atomic():
                self._db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (CREATE_LOCK,))
                version = self._probe()
                assert version is not None  # the table was there before the lock
                upgrade_team(self._db, version, up_to=TEAM_SCHEMA_VERSION)
        except peewee.ProgrammingError as exc:
            if "permission denied" not in str(exc) and "must be owner" not in str(exc):
                raise
            return self._probe() or FIRST_TEAM_SCHEMA
        return TEAM_SCHEMA_VERSION

    def _searched_by(self) -> str:
        """"trigrams" when the trigram indexes are there, else "words" (team_search)."""
        rows = self._db.execute_sql("SELECT 1 FROM pg_indexes WHERE schemaname = current_schema()"
                                    " AND indexname = 'step_search_trgm'").fetchall()
        return "trigrams" if rows else "words"

    # ----------------------------------------------------------------- what it is
    def describe(self) -> str:
        return f"the team store at {shown_url(self.url)}"

    def instead(self, capability: Capability) -> str:
        if capability is Capability.ROLLBACK:  # also read-only: no rollback here ever, it is the same answer
            return ("files are rolled back only on the machine that owns them: run `memtui rollback PATH --checkpoint ID`"
                    " there, against its own store (`memtui log` of the team store names each session's machine)")
        if capability in (Capability.STATS, Capability.VACUUM):
            return "a server has no file to count free pages of or vacuum; ask PostgreSQL (VACUUM (VERBOSE))"
        if capability is Capability.LIVE:
            return "a team store is read as it is when asked (reopen it to see newer pushes)"
        return super().instead(capability)

    def watched_databases(self) -> list[Path]:
        return []

    def delete_unused_blobs(self, keys: list) -> list:
        """As on agent.db, in a savepoint: a pusher that referenced one of these contents after
        this GC read it as unused makes the delete fail on the reference (ON DELETE RESTRICT);
        then none of the batch goes, the pass goes on, and a later pass looks at them again."""
        try:
            with self._db.atomic():
                return super().delete_unused_blobs(keys)
        except peewee.IntegrityError:
            return []

    def page_size(self) -> int:
        """No pages of a file to count (GC's result says 0 freelist pages on a team store)."""
        return 0

    def freelist_pages(self) -> int:
        return 0

    # ------------------------------------------------------------------ reads
    def query(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        """Rows of one read-only statement (in a READ ONLY transaction: a write is refused)."""
        if self._db.in_transaction():
            return self._sql(sql, params)
        with self._db.atomic():
            self._db.execute_sql("SET TRANSACTION READ ONLY")
            return self._sql(sql, params)

    def task_origins(self, task_ids: Iterable[Any]) -> dict[str, str]:
        """"machine · agent" of each pushed task among `task_ids`, by id as text (search hits
        name their machine with it)."""
        ids = sorted({int(t) for t in task_ids if str(t).isdigit()})
        found: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            found.update((str(task), origin) for task, origin in self._sql(
                "SELECT t.id, o.machine || ' · ' || o.agent FROM task t JOIN origin o ON o.id = t.origin_id"
                f" WHERE t.id IN ({','.join('?' * len(chunk))})", chunk))
        return found

    def step_columns(self) -> str:
        """Each step's model and tokens by kind where pushed with them: a page of steps is one
        statement."""
        if self.team_schema < USAGE_SCHEMA:
            return ""
        return "".join(f", s.{column}" for column in ("model", *STEP_USAGE_COLUMNS))

    def step_from_row(self, r: tuple, **more: Any) -> StepInfo:
        if len(r) > COMMON_STEP_COLUMNS:
            more = {"model": r[COMMON_STEP_COLUMNS], "usage": _tokens(r[COMMON_STEP_COLUMNS + 1:]), **more}
        return super().step_from_row(r, **more)

    def step_usage(self, task_id: int) -> list[StepInfo]:  # type: ignore[override]
        """The task's steps' model, tokens by kind, recorded cost and time (memtui.core.usage
        prices them as it prices the machine's own: the same figures)."""
        if self.team_schema < USAGE_SCHEMA:
            return super().step_usage(task_id)
        rows = self._sql(f"SELECT id, task_id, seq, tool, tokens_in, tokens_out, cost, created_at, {_USAGE_SQL}"
                         " FROM step WHERE task_id = ? AND (tokens_in > 0 OR tokens_out > 0 OR cost > 0"
                         " OR usage_input IS NOT NULL) ORDER BY seq", (task_id,))
        return [StepInfo(r[0], r[1], r[2], r[3], None, None, tokens_in=r[4], tokens_out=r[5], cost=r[6],
                         created_at=_when(r[7]), model=r[8], usage=_tokens(r[9:])) for r in rows]

    def change_signature(self) -> str:
        """Changes whenever rows are added, collected or pinned (the search index asks)."""
        row = self._sql("SELECT (SELECT COALESCE(MAX(id), 0) FROM step), (SELECT COUNT(*) FROM task),"
                        " (SELECT COALESCE(MAX(updated_at), 0) FROM task), (SELECT COALESCE(MAX(collected_at), 0)"
                        " FROM task), (SELECT COALESCE(MAX(id), 0) FROM message)")[0]
        return "|".join(map(str, row))

    def index_folder(self) -> Path:
        return self.db_path

    @contextmanager
    def reading_mapped(self) -> Iterator[None]:
        with self.snapshot():
            yield

    # ------------------------------------------------------------------ writes
    @contextmanager
    def writer(self) -> Iterator["TeamStore"]:
        """This store when opened for writing, else a write connection of its own (never
        creating the tables) closed on leaving the block. The role must be allowed to write
        (the README's writer GRANTs); a read-only role's write fails on its first statement."""
        if self.withheld & WRITING:
            raise ReadOnlyStore(f"{self.describe()}: no writes, {self.withheld_why or 'read-only'}")
        check_writes_allowed(shown_url(self.url))
        if not self.readonly:
            yield self
            return
        writer = type(self)(self.url, False, self._clock, self.content_limit, create=False)
        try:
            yield writer
        finally:
            writer.close()

    def connection(self):  # type: ignore[override]
        raise ReadOnlyStore(f"{self.describe()}: no raw connection (VACUUM and checkpoints are the server's)")

    def _writable(self) -> None:
        if self.readonly:
            raise ReadOnlyStore(f"{self.describe()} is open read-only (write through `store.writer()`)")

    # ------------------------------------------------------------------ rollback elsewhere
    def origin_of_checkpoint(self, checkpoint_id: int) -> tuple[str, str, str, str] | None:
        """(machine, agent, session id there, store path there) of the session a checkpoint was
        recorded in, if it was pushed (None for one recorded here or an orphan's)."""
        rows = self._sql("SELECT o.machine, o.agent, o.session_key, o.store_path FROM checkpoint c"
                         " JOIN task t ON t.id = c.task_id JOIN origin o ON o.id = t.origin_id WHERE c.id = ?",
                         (checkpoint_id,))
        return tuple(rows[0]) if rows else None  # type: ignore[return-value]

    def rollback_command(self, checkpoint_id: int) -> str:
        """What to run, and where, to roll back a checkpoint of the team store: on the machine
        that recorded it, against that machine's own store (the team store writes no files)."""
        origin = self.origin_of_checkpoint(checkpoint_id)
        if origin is None:
            return (f"checkpoint {checkpoint_id} names no machine; roll it back from the store it was recorded in"
                    " (`memtui rollback PATH --checkpoint ID`)")
        machine, agent, session, store_path = origin
        return (f"on {machine}: memtui rollback {store_path} --checkpoint ID (the {agent} session {session};"
                " ID as `memtui log` there lists it: checkpoint ids are that store's own)")
