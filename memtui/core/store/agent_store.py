"""AgentStore (memtui.core.store re-exports it, loaded on first use): the recorder API an agent
harness calls, and the read model the panes use; see memtui.core.store."""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from memtui.core import content as codec
from memtui.core.atomic import check_writes_allowed, remove_stale_temps
from memtui.core.errors import NotAStore, ReadOnlyStore, StoreNotFound
from memtui.core.memory_source import WRITING, Capability, LiveWatch, RollbackHooks, UnknownId
from memtui.core.store import migrate, packs, schema
from memtui.core.store.models import build_models
from memtui.core.store.content_writer import ContentWriter
from memtui.core.store.dialect import SQLITE, Dialect
from memtui.core.store.gc_queries import GcQueries
from memtui.core.store.paths import AGENT_DIR, DB_NAME, locate, workspace_of
from memtui.core.store.reads import ReadModel
from memtui.core.store.recorder import Recorder
from memtui.core.store.search_queries import SearchQueries

__all__ = ["AgentStore", "locate", "workspace_of", "AGENT_DIR", "DB_NAME"]

Clock = Callable[[], datetime]

NATIVE_CAPABILITIES = frozenset({
    Capability.DIFF, Capability.ROLLBACK, Capability.GC, Capability.PIN, Capability.STATS,
    Capability.VACUUM, Capability.SEARCH, Capability.EDIT_MEMORY, Capability.LIVE})
"""Everything memtui's own store can do."""


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class ContentCache:
    """A small LRU of verified contents by hash, bounded in bytes (delta bases are hot)."""

    def __init__(self, budget: int = 64 * 1024 * 1024) -> None:
        self._items: OrderedDict[bytes, bytes] = OrderedDict()
        self._bytes = 0
        self._budget = budget
        self._lock = threading.Lock()

    def get(self, key: bytes) -> bytes | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: bytes, value: bytes) -> None:
        if len(value) > self._budget // 4:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = value
            self._bytes += len(value)
            while self._bytes > self._budget:
                _, old = self._items.popitem(last=False)
                self._bytes -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


class AgentStore(Recorder, ContentWriter, ReadModel, GcQueries, SearchQueries, RollbackHooks, LiveWatch):
    """One agent.db. Use `AgentStore.open(...)`; close with `close()` or a `with` block."""

    kind = "memtui"
    undo_kept_in = "store"
    label = "memtui"
    capabilities = NATIVE_CAPABILITIES
    _dialect: Dialect = SQLITE

    def __init__(self, db_path: Path, workspace: Path | None, readonly: bool, clock: Clock | None,
                 content_limit: int = codec.DEFAULT_LIMIT, create: bool = False) -> None:
        self.db_path = db_path
        self.workspace = workspace if workspace is not None else db_path.parent
        self.readonly = readonly
        self.content_limit = content_limit
        self._clock = clock or utcnow
        if not readonly:
            # A creation killed before it cleaned up leaves its temp database (and SQLite's log of
            # it) beside agent.db; the next writer removes it once that process is gone.
            remove_stale_temps(db_path.parent)
            if create and not db_path.exists():
                schema.create_file(db_path)
            # Refuse a file that is not a store before the write pragmas run: journal_mode=wal
            # would otherwise convert another program's database (or an empty file) into one.
            if not schema.probe_file(db_path)[1]:
                raise NotAStore(f"{db_path} holds no memtui store (an empty database); memtui only"
                                " writes into a store it created")
        self._db = schema.connect(db_path, readonly)
        self._m = build_models(self._db)
        self._cache = ContentCache()
        try:  # a file that is refused must not keep its connection open
            version, tables = schema.probe(self._db, db_path)
            if not tables:
                raise StoreNotFound(f"{db_path} holds no memtui store")
            if version < schema.SCHEMA_VERSION and not readonly:
                migrate.upgrade(self._db, self._m, version)
                version = schema.SCHEMA_VERSION
        except BaseException:
            self._db.close()
            raise
        self._set_schema(version)

    def _set_schema(self, version: int) -> None:
        self._schema = version
        self.blob_cols = schema.blob_columns(version)  # how entries and deltas reference contents

    @property
    def schema_version(self) -> int:
        """The schema the file has. A store browsed read-only at an older schema asks the file
        again each time (a header read) and follows an upgrade another process made meanwhile:
        its reads would otherwise ask the old layout (a packed frame read as an empty one)."""
        if self.readonly and self._schema < schema.SCHEMA_VERSION:
            version = self._sql("PRAGMA user_version", ())[0][0]
            if version != self._schema:
                self._cache.clear()  # contents were keyed by hash before schema 4
                self._set_schema(version)
        return self._schema

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | Path, readonly: bool = False, clock: Clock | None = None,
             content_limit: int = codec.DEFAULT_LIMIT, create: bool | None = None) -> "AgentStore":
        """Open a workspace directory or an agent.db.

        A missing store is created in write mode, unless `create=False` (then, as in read-only
        mode, it is StoreNotFound: a maintenance verb must not leave an empty store behind).
        An existing file that is not a memtui store is never turned into one (NotAStore).
        """
        create = (not readonly) if create is None else create and not readonly
        db_path, workspace = locate(Path(path), create=create)
        return cls(db_path, workspace, readonly, clock, content_limit, create=create)

    def close(self) -> None:
        self._db.close()

    @property
    def path(self) -> Path:  # type: ignore[override]
        """The database file (MemorySource.path)."""
        return self.db_path

    def record_tables(self) -> "AgentStore":
        """This store: memory search reads its tables set-wise (memtui.core.store.search_queries)."""
        return self

    def watched_databases(self) -> list[Path]:
        return [self.db_path]

    def watched_files(self) -> list[Path]:
        return []  # the database and its log are watched as a database

    def __enter__(self) -> "AgentStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def needs_upgrade(self) -> bool:
        """True when the file has an older schema (read-only browsing of an older store)."""
        return self.schema_version < schema.SCHEMA_VERSION

    # ------------------------------------------------------------------- reads
    def query(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        """Rows of one read-only statement, on this store's connection (SQLite refuses a write:
        the statement runs with `query_only` on)."""
        if self.readonly:
            return self._sql(sql, params)
        conn = self._db.connection()
        conn.execute("PRAGMA query_only = 1")
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.execute("PRAGMA query_only = 0")

    @contextmanager
    def snapshot(self) -> Iterator["AgentStore"]:
        """Several reads of one consistent state: a read transaction (no write lock)."""
        if self._db.in_transaction():
            yield self
            return
        with self._db.atomic():  # a deferred BEGIN
            yield self

    @contextmanager
    def reading(self) -> Iterator["AgentStore"]:
        """For a worker thread: this thread's connection, closed afterwards (a long-lived
        read-only connection would go on seeing the state it first read)."""
        if not self._db.is_closed():
            yield self
            return
        self._db.connect()
        try:
            yield self
        finally:
            if not self._db.is_closed():  # a writer may have closed it already
                self._db.close()

    def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        if self.readonly:
            self._db.refresh()
        return self._db.execute_sql(self._dialect.sql(sql), params).fetchall()

    def _run(self, sql: str, params: tuple | list = ()) -> Any:
        """One statement on this store's connection, its cursor returned (the recorder's writes)."""
        return self._db.execute_sql(self._dialect.sql(sql), params)

    # ------------------------------------------------------------------ writes
    @contextmanager
    def writer(self) -> Iterator["AgentStore"]:
        """The one way to write: this store when it was opened for writing; otherwise a write
        connection of its own to the same file (same clock and content limit, busy timeout,
        never creating a store, refusing a file that is not one), closed on leaving the block.
        An older store is upgraded by its first writer. Afterwards this thread's read-only
        connection is reopened on the next read, so it sees what was written.

        A store whose writing capabilities were withheld (`--read-only`) refuses here too, so a
        write path that forgot to ask its capability still writes nothing."""
        if self.withheld & WRITING:
            raise ReadOnlyStore(f"{self.db_path}: no writes, {self.withheld_why or 'read-only'}")
        check_writes_allowed(self.db_path)
        if not self.readonly:
            yield self
            return
        writer = type(self)(self.db_path, self.workspace, False, self._clock, self.content_limit, create=False)
        try:
            yield writer
        finally:
            writer.close()
            if not self._db.is_closed() and not self._db.in_transaction():
                self._db.close()
            if writer.schema_version != self.schema_version:  # the writer upgraded the file
                self._cache.clear()
                self._set_schema(writer.schema_version)

    def now(self) -> float:
        """The store's clock, as the epoch seconds its rows are stamped with."""
        return self._clock().timestamp()

    def _writable(self) -> None:
        if self.readonly:
            raise ReadOnlyStore(f"{self.db_path} is open read-only (write through `store.writer()`)")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (BEGIN IMMEDIATE): group many writes for speed and atomicity."""
        self._writable()
        if self._db.in_transaction():
            yield  # inside a caller's transaction: all or nothing with it, no savepoint per call
            return
        with self._db.atomic(*filter(None, [self._dialect.write_lock])):
            yield

    def execute(self, sql: str, params: tuple | list = ()) -> Any:
        """One write statement (maintenance: GC deletes); only on a writer."""
        self._writable()
        return self._run(sql, params)

    def connection(self) -> sqlite3.Connection:
        """This thread's raw write connection, for statements that cannot run in a transaction
        (VACUUM, checkpoints) and a progress handler; only on a writer."""
        self._writable()
        return self._db.connection()

    # ----------------------------------------------------------------- content
    def read_blob(self, key: int | bytes | str) -> bytes:
        """The verified raw bytes of one content, by the key entries hold (`blob_cols.key`: an
        integer id from schema 4) or by its hash (bytes or hex); CorruptContent /
        ContentTooLarge otherwise."""
        if isinstance(key, (bytes, str, bytearray, memoryview)):
            blob_hash = codec.hash_key(key)
            if self.blob_cols.key == "hash":
                return self._read_blob(blob_hash, ())
            rows = self._sql(f"SELECT id FROM blob WHERE {schema.by_hash_sql(self.schema_version)}",
                             schema.by_hash(blob_hash, self.schema_version))
            if not rows:
                raise codec.CorruptContent(f"content {blob_hash.hex()[:12]} is missing from the store")
            key = rows[0][0]
        return self._read_blob(key, ())

    def _read_blob(self, key: int | bytes, chain: tuple) -> bytes:
        # `chain`: the deltas above this one. Written chains are ≤ MAX_CHAIN objects; a longer
        # or cyclic one is corruption, reported before it can exhaust the stack.
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        by_id = self.blob_cols.key == "id"
        if self.schema_version >= 7:  # loose or in a pack
            rows = self._sql(packs.READ_SQL, (key,))
        elif by_id:
            rows = self._sql("SELECT codec, data, size, base, hash FROM blob WHERE id = ?", (key,))
        else:
            rows = self._sql("SELECT codec, data, size, base, hash FROM blob WHERE hash = ?", (key,))
        if not rows:
            name = f"#{key}" if by_id else bytes(key).hex()[:12]
            raise codec.CorruptContent(f"content {name} is missing from the store")
        kind, data, size, base, blob_hash = rows[0]
        codec.check_chain(blob_hash, chain)
        below = chain + (blob_hash,)
        out = codec.decode(kind, data, size, blob_hash, lambda b: self._read_blob(b, below), base,
                           self.content_limit)
        self._cache.put(key, out)
        return out

    def read_entry(self, entry_id: int) -> tuple[bytes | None, bytes | None]:
        """(before, after) bytes of one checkpoint entry; None where that side is absent."""
        cols = self.blob_cols
        refs = f", {cols.before}, {cols.after}" if cols.key else ", NULL, NULL"
        rows = self._sql(f"SELECT before_legacy, after_legacy{refs} FROM checkpoint_entry WHERE id = ?",
                         (entry_id,))
        if not rows:
            raise UnknownId(f"no checkpoint entry {entry_id}")
        before_legacy, after_legacy, bk, ak = rows[0]
        try:
            before = self._read_blob(bk, ()) if bk is not None else codec.decode_legacy(before_legacy, self.content_limit)
            after = self._read_blob(ak, ()) if ak is not None else codec.decode_legacy(after_legacy, self.content_limit)
        except codec.CorruptContent as exc:  # ChainTooLong too: the entry the user asked for, named
            raise type(exc)(f"checkpoint entry {entry_id}: {exc}") from None
        return before, after
