"""AgentStore: the recorder API an agent harness calls, and the read model the panes use.

    store = AgentStore.open("path/to/workspace")          # creates .agent/agent.db
    sid = store.start_session("Fix the flaky test")
    tid = store.start_task(sid, "Investigate test_io")
    step = store.record_step(tid, "edit_file", {"path": "io.py"}, "ok")
    store.record_checkpoint(tid, step, {"io.py": (b"old\n", b"new\n")})
    store.finish_task(tid, "completed", summary="Fixed the race")
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from memtui.core import content as codec
from memtui.core.errors import ReadOnlyStore, StoreNotFound
from memtui.core.memory_source import Capability
from memtui.core.model import FINISHED
from memtui.core.paths import normalise_path
from memtui.core.store import schema
from memtui.core.store.reads import ReadModel
from memtui.core.store.models import build_models

__all__ = ["AgentStore", "workspace_of", "AGENT_DIR", "DB_NAME"]

AGENT_DIR = ".agent"
DB_NAME = "agent.db"
Clock = Callable[[], datetime]

NATIVE_CAPABILITIES = frozenset({
    Capability.DIFF, Capability.ROLLBACK, Capability.GC, Capability.PIN, Capability.STATS,
    Capability.VACUUM, Capability.SEARCH, Capability.EDIT_MEMORY})
"""Everything memtui's own store can do."""


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


class _ContentCache:
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


class AgentStore(ReadModel):
    """One agent.db. Use `AgentStore.open(...)`; close with `close()` or a `with` block."""

    kind = "memtui"
    label = "memtui"
    capabilities = NATIVE_CAPABILITIES

    def __init__(self, db_path: Path, workspace: Path | None, readonly: bool, clock: Clock | None,
                 content_limit: int = codec.DEFAULT_LIMIT) -> None:
        self.db_path = db_path
        self.workspace = workspace if workspace is not None else db_path.parent
        self.readonly = readonly
        self.content_limit = content_limit
        self._clock = clock or _utcnow
        if not readonly and db_path.is_file() and db_path.stat().st_size:
            # Refuse a file that is not a store before the write pragmas run: journal_mode=wal
            # would otherwise convert another program's database on the way to the error.
            schema.probe_file(db_path)
        self.db = schema.connect(db_path, readonly)
        self.m = build_models(self.db)
        self._cache = _ContentCache()
        try:  # a file that is refused must not keep its connection open
            version, tables = schema.probe(self.db, db_path)
            if not tables:
                if readonly:
                    raise StoreNotFound(f"{db_path} holds no memtui store")
                schema.create(self.db, self.m)
                version = schema.SCHEMA_VERSION
            elif version < schema.SCHEMA_VERSION and not readonly:
                schema.upgrade(self.db, self.m, version)
                version = schema.SCHEMA_VERSION
        except BaseException:
            self.db.close()
            raise
        self.schema_version = version

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | Path, readonly: bool = False, clock: Clock | None = None,
             content_limit: int = codec.DEFAULT_LIMIT, create: bool | None = None) -> "AgentStore":
        """Open a workspace directory or an agent.db.

        A missing store is created in write mode, unless `create=False` (then, as in read-only
        mode, it is StoreNotFound: a maintenance verb must not leave an empty store behind).
        """
        db_path, workspace = locate(Path(path), create=(not readonly) if create is None else create)
        return cls(db_path, workspace, readonly, clock, content_limit)

    def close(self) -> None:
        self.db.close()

    @property
    def path(self) -> Path:  # type: ignore[override]
        """The database file (MemorySource.path)."""
        return self.db_path

    @contextmanager
    def reading(self) -> Iterator["AgentStore"]:
        """For a worker thread: this thread's own connection, closed when the work is done."""
        context = self.db.connection_context() if self.db.is_closed() else nullcontext()
        with context:
            yield self

    def __enter__(self) -> "AgentStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def needs_upgrade(self) -> bool:
        """True when the file has an older schema (read-only browsing of an older store)."""
        return self.schema_version < schema.SCHEMA_VERSION

    def _now(self) -> float:
        return self._clock().timestamp()

    def _writable(self) -> None:
        if self.readonly:
            raise ReadOnlyStore(f"{self.db_path} is open read-only")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (BEGIN IMMEDIATE): group many recorder calls for speed."""
        self._writable()
        if self.db.in_transaction():
            yield  # inside a caller's transaction: all or nothing with it, no savepoint per call
            return
        with self.db.atomic("IMMEDIATE"):
            yield

    def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        return self.db.execute_sql(sql, params).fetchall()

    # ---------------------------------------------------------------- recorder
    def start_session(self, title: str) -> int:
        self._writable()
        now = self._now()
        return self.m.Session.insert(title=title, status="open", created_at=now, updated_at=now).execute()

    def close_session(self, session_id: int) -> None:
        self._writable()
        now = self._now()
        self.m.Session.update(status="closed", closed_at=now, updated_at=now).where(
            self.m.Session.id == session_id).execute()

    def delete_session(self, session_id: int) -> None:
        """The session row goes; its tasks stay as orphans (session_id NULL)."""
        self._writable()
        with self.transaction():
            self.m.Task.update(session=None).where(self.m.Task.session == session_id).execute()
            self.m.Session.delete().where(self.m.Session.id == session_id).execute()

    def start_task(self, session_id: int, title: str, parent_task_id: int | None = None) -> int:
        """A running task that becomes the session's current one; supersedes a finished previous."""
        with self.transaction():
            row = self._sql("SELECT s.current_task_id, t.status FROM session s"
                            " LEFT JOIN task t ON t.id = s.current_task_id WHERE s.id = ?", (session_id,))
            if not row:
                raise KeyError(f"no session {session_id}")
            previous, previous_status = row[0]
            now = self._now()
            task_id = self.db.execute_sql(
                "INSERT INTO task (session_id, title, status, pinned, summary, created_at, updated_at)"
                " VALUES (?, ?, 'running', 0, '', ?, ?)", (session_id, title, now, now)).lastrowid
            if previous is not None and previous_status in FINISHED:
                self._link(task_id, previous, "supersedes")
            self.db.execute_sql("UPDATE session SET current_task_id = ?, updated_at = ? WHERE id = ?",
                                (task_id, now, session_id))
            if parent_task_id is not None:
                self._link(parent_task_id, task_id, "handoff")
        return task_id

    def _link(self, from_task: int, to_task: int, kind: str) -> None:
        self.db.execute_sql("INSERT OR IGNORE INTO task_ref (from_task, to_task, kind) VALUES (?, ?, ?)",
                            (from_task, to_task, kind))

    def add_reference(self, from_task: int, to_task: int, kind: str) -> None:
        if kind not in ("handoff", "supersedes", "depends"):
            raise ValueError(f"unknown reference kind {kind!r}")
        self._writable()
        self._link(from_task, to_task, kind)

    def _touch(self, task_id: int, now: float, **fields: Any) -> None:
        # Raw SQL: this runs for every recorded step, where query building would dominate.
        sets = "".join(f", {name} = ?" for name in fields)
        self.db.execute_sql(f"UPDATE task SET updated_at = ?{sets} WHERE id = ?", (now, *fields.values(), task_id))
        self.db.execute_sql("UPDATE session SET updated_at = ? WHERE id = (SELECT session_id FROM task WHERE id = ?)",
                            (now, task_id))

    def record_step(self, task_id: int, tool: str, args: Any = None, result: Any = None, status: str = "ok",
                    error: str | None = None, tokens_in: int = 0, tokens_out: int = 0, cost: float = 0.0,
                    duration_ms: int = 0) -> int:
        """One tool call or model turn; `args` and `result` are any JSON-serialisable values."""
        args_json = json.dumps(args, ensure_ascii=False)
        result_json = json.dumps(result, ensure_ascii=False)
        with self.transaction():
            now = self._now()
            seq = self._sql("SELECT COALESCE(MAX(seq), 0) + 1 FROM step WHERE task_id = ?", (task_id,))[0][0]
            step_id = self.db.execute_sql(
                "INSERT INTO step (task_id, seq, tool, status, tokens_in, tokens_out, cost, duration_ms,"
                " payload_bytes, created_at, error, args, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (task_id, seq, tool, status, tokens_in, tokens_out, cost, duration_ms,
                 len(args_json.encode()) + len(result_json.encode()), now, error, args_json, result_json),
            ).lastrowid
            self._touch(task_id, now)
        return step_id

    def record_checkpoint(self, task_id: int, step_id: int | None,
                          changes: Mapping[str, tuple[bytes | None, bytes | None]], label: str = "") -> int:
        """The file edits of one step: path → (before or None, after or None)."""
        normalised = [(normalise_path(path), before, after) for path, (before, after) in changes.items()]
        with self.transaction():
            now = self._now()
            cp = self.db.execute_sql("INSERT INTO checkpoint (task_id, step_id, label, created_at) VALUES (?, ?, ?, ?)",
                                     (task_id, step_id, label, now)).lastrowid
            for path, before, after in normalised:
                bh = self._put(path, before) if before is not None else None
                ah = self._put(path, after) if after is not None else None
                self.db.execute_sql(
                    "INSERT INTO checkpoint_entry (checkpoint_id, path, before_size, after_size, before_hash,"
                    " after_hash) VALUES (?, ?, ?, ?, ?, ?)",
                    (cp, path, None if before is None else len(before), None if after is None else len(after), bh, ah))
            self._touch(task_id, now)
        return cp

    def ask(self, task_id: int, question: str) -> int:
        with self.transaction():
            now = self._now()
            qid = self.m.Question.insert(task=task_id, question=question, created_at=now).execute()
            self._touch(task_id, now, status="waiting_user")
        return qid

    def answer(self, question_id: int, text: str) -> None:
        m = self.m
        with self.transaction():
            now = self._now()
            q = m.Question.get_by_id(question_id)
            m.Question.update(answer=text, answered_at=now).where(m.Question.id == question_id).execute()
            pending = m.Question.select().where((m.Question.task == q.task_id) & m.Question.answer.is_null()).count()
            if not pending:
                self._touch(q.task_id, now, status="running")

    def finish_task(self, task_id: int, status: str = "completed", summary: str = "") -> None:
        if status not in FINISHED:
            raise ValueError(f"a task finishes as one of {sorted(FINISHED)}, not {status!r}")
        with self.transaction():
            now = self._now()
            self._touch(task_id, now, status=status, summary=summary, finished_at=now)
            if summary:
                self._message(task_id, "summary", summary, now)

    def add_message(self, task_id: int, role: str, content: str) -> int:
        self._writable()
        return self._message(task_id, role, content, self._now())

    def _message(self, task_id: int, role: str, content: str, now: float) -> int:
        return self.db.execute_sql("INSERT INTO message (task_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                                   (task_id, role, content, now)).lastrowid

    def pin(self, task_id: int) -> None:
        self._set_pinned(task_id, True)

    def unpin(self, task_id: int) -> None:
        self._set_pinned(task_id, False)

    def _set_pinned(self, task_id: int, pinned: bool) -> None:
        self._writable()
        m = self.m
        if m.Task.update(pinned=pinned).where(m.Task.id == task_id).execute() == 0:
            raise KeyError(f"no task {task_id}")

    # ----------------------------------------------------------------- content
    def _put(self, path: str, data: bytes) -> bytes:
        """Store `data` once (by hash); a new content of `path` may become a skip-delta."""
        data = bytes(data)
        h = codec.content_hash(data)
        if self._sql("SELECT 1 FROM blob WHERE hash = ?", (h,)):
            return h
        version = self._sql("SELECT COALESCE(MAX(version) + 1, 0) FROM path_version WHERE path = ?", (path,))[0][0]
        base = base_hash = None
        base_depth = 0
        base_version = codec.skip_delta_base(version)
        if base_version is not None:
            row = self._sql(
                "SELECT b.hash, b.depth FROM path_version pv JOIN blob b ON b.hash = pv.hash"
                " WHERE pv.path = ? AND pv.version = ?", (path, base_version))
            if row:
                base_hash, base_depth = row[0]
                base = self.read_blob(base_hash)
        enc = codec.encode(data, base, base_hash, base_depth)
        self.db.execute_sql(
            "INSERT INTO blob (hash, codec, base, depth, size, stored, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (h, enc.codec, enc.base, enc.depth, len(data), len(enc.data), enc.data))
        self.db.execute_sql("INSERT INTO path_version (path, version, hash) VALUES (?, ?, ?)", (path, version, h))
        self._cache.put(h, data)
        return h

    def read_blob(self, blob_hash: bytes | str) -> bytes:
        """The verified raw bytes of one content (CorruptContent / ContentTooLarge otherwise)."""
        return self._read_blob(codec.hash_key(blob_hash), ())

    def _read_blob(self, blob_hash: bytes, chain: tuple[bytes, ...]) -> bytes:
        # `chain`: the deltas above this one. Written chains are ≤ MAX_CHAIN objects; a longer
        # or cyclic one is corruption, reported before it can exhaust the stack.
        cached = self._cache.get(blob_hash)
        if cached is not None:
            return cached
        codec.check_chain(blob_hash, chain)
        rows = self._sql("SELECT codec, data, size, base FROM blob WHERE hash = ?", (blob_hash,))
        if not rows:
            raise codec.CorruptContent(f"content {blob_hash.hex()[:12]} is missing from the store")
        kind, data, size, base = rows[0]
        below = chain + (blob_hash,)
        out = codec.decode(kind, data, size, blob_hash, lambda b: self._read_blob(codec.hash_key(b), below), base,
                           self.content_limit)
        self._cache.put(blob_hash, out)
        return out

    def read_entry(self, entry_id: int) -> tuple[bytes | None, bytes | None]:
        """(before, after) bytes of one checkpoint entry; None where that side is absent."""
        hashes = ", before_hash, after_hash" if self.schema_version >= 2 else ", NULL, NULL"
        rows = self._sql(f"SELECT before_legacy, after_legacy{hashes} FROM checkpoint_entry WHERE id = ?",
                         (entry_id,))
        if not rows:
            raise KeyError(f"no checkpoint entry {entry_id}")
        before_legacy, after_legacy, bh, ah = rows[0]
        try:
            before = self.read_blob(bh) if bh else codec.decode_legacy(before_legacy, self.content_limit)
            after = self.read_blob(ah) if ah else codec.decode_legacy(after_legacy, self.content_limit)
        except codec.ChainTooLong as exc:
            raise codec.ChainTooLong(f"checkpoint entry {entry_id}: {exc}") from None
        return before, after


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
