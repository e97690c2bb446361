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
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator, Mapping

from memtui.core import content as codec
from memtui.core.errors import ReadOnlyStore, StoreNotFound
from memtui.core.model import (
    FINISHED,
    UNFINISHED,
    CheckpointInfo,
    EntryInfo,
    MessageInfo,
    QuestionInfo,
    Reference,
    SessionInfo,
    StepInfo,
    TaskInfo,
)
from memtui.core.store import schema
from memtui.core.store.models import build_models

__all__ = ["AgentStore", "normalise_path", "AGENT_DIR", "DB_NAME"]

AGENT_DIR = ".agent"
DB_NAME = "agent.db"
Clock = Callable[[], datetime]


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _dt(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc)


def normalise_path(path: str) -> str:
    """A workspace-relative POSIX path; absolute paths and `..` escapes raise ValueError."""
    if not isinstance(path, str) or not path.strip():
        raise ValueError("empty path")
    raw = path.replace("\\", "/")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise ValueError(f"absolute path refused: {path!r}")
    parts: list[str] = []
    for part in PurePosixPath(raw).parts:
        if part in ("", "."):
            continue
        if part == "..":
            raise ValueError(f"path escapes the workspace: {path!r}")
        parts.append(part)
    if not parts:
        raise ValueError(f"empty path: {path!r}")
    return "/".join(parts)


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


class AgentStore:
    """One agent.db. Use `AgentStore.open(...)`; close with `close()` or a `with` block."""

    def __init__(self, db_path: Path, workspace: Path | None, readonly: bool, clock: Clock | None,
                 content_limit: int = codec.DEFAULT_LIMIT) -> None:
        self.db_path = db_path
        self.workspace = workspace if workspace is not None else db_path.parent
        self.readonly = readonly
        self.content_limit = content_limit
        self._clock = clock or _utcnow
        self.db = schema.connect(db_path, readonly)
        self.m = build_models(self.db)
        self._cache = _ContentCache()
        self.schema_version = SCHEMA = schema.SCHEMA_VERSION
        version, tables = schema.probe(self.db, db_path)
        if not tables:
            if readonly:
                self.db.close()
                raise StoreNotFound(f"{db_path} holds no memtui store")
            schema.create(self.db, self.m)
            version = SCHEMA
        elif version < SCHEMA and not readonly:
            schema.upgrade(self.db, self.m, version)
            version = SCHEMA
        self.schema_version = version

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | Path, readonly: bool = False, clock: Clock | None = None,
             content_limit: int = codec.DEFAULT_LIMIT) -> "AgentStore":
        """Open a workspace directory or an agent.db. In write mode a missing store is created."""
        db_path, workspace = locate(Path(path), create=not readonly)
        return cls(db_path, workspace, readonly, clock, content_limit)

    def close(self) -> None:
        self.db.close()

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
        blob_hash = codec.hash_key(blob_hash)
        cached = self._cache.get(blob_hash)
        if cached is not None:
            return cached
        rows = self._sql("SELECT codec, data, size, base FROM blob WHERE hash = ?", (blob_hash,))
        if not rows:
            raise codec.CorruptContent(f"content {blob_hash.hex()[:12]} is missing from the store")
        kind, data, size, base = rows[0]
        out = codec.decode(kind, data, size, blob_hash, self.read_blob, base, self.content_limit)
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
        before = self.read_blob(bh) if bh else codec.decode_legacy(before_legacy, self.content_limit)
        after = self.read_blob(ah) if ah else codec.decode_legacy(after_legacy, self.content_limit)
        return before, after

    # -------------------------------------------------------------- read model
    def sessions(self) -> list[SessionInfo]:
        """All sessions, newest activity first, with task counts and stored bytes."""
        rows = self._sql(
            """
            SELECT s.id, s.title, s.status, s.current_task_id, s.created_at, s.updated_at,
                   COALESCE(t.n, 0), COALESCE(st.bytes, 0) + COALESCE(ce.bytes, 0)
            FROM session s
            LEFT JOIN (SELECT session_id, COUNT(*) AS n FROM task GROUP BY session_id) t ON t.session_id = s.id
            LEFT JOIN (SELECT task.session_id, SUM(step.payload_bytes) AS bytes FROM step
                       JOIN task ON task.id = step.task_id GROUP BY task.session_id) st ON st.session_id = s.id
            LEFT JOIN (SELECT task.session_id,
                              SUM(COALESCE(e.before_size, 0) + COALESCE(e.after_size, 0)) AS bytes
                       FROM checkpoint_entry e JOIN checkpoint c ON c.id = e.checkpoint_id
                       JOIN task ON task.id = c.task_id GROUP BY task.session_id) ce ON ce.session_id = s.id
            ORDER BY s.updated_at DESC, s.id DESC
            """)
        return [SessionInfo(r[0], r[1], r[2], r[3], _dt(r[4]), _dt(r[5]), r[6], r[7]) for r in rows]

    def session(self, session_id: int) -> SessionInfo:
        for s in self.sessions():
            if s.id == session_id:
                return s
        raise KeyError(f"no session {session_id}")

    _TASK_SQL = """
        SELECT t.id, t.session_id, t.title, t.status, t.pinned,
               EXISTS(SELECT 1 FROM task_ref r WHERE r.to_task = t.id AND r.kind = 'supersedes'),
               t.summary, t.created_at, t.updated_at, t.finished_at, t.collected_at,
               (SELECT COUNT(*) FROM step WHERE step.task_id = t.id),
               (SELECT COUNT(*) FROM checkpoint c WHERE c.task_id = t.id)
        FROM task t
    """

    @staticmethod
    def _task_info(r: tuple) -> TaskInfo:
        return TaskInfo(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]), r[6] or "", _dt(r[7]), _dt(r[8]),
                        _dt(r[9]), r[10] is not None, r[11], r[12])

    def tasks(self, session_id: int | None) -> list[TaskInfo]:
        """Tasks of a session in creation order; `None` lists the orphans."""
        where = "t.session_id IS NULL" if session_id is None else "t.session_id = ?"
        params = () if session_id is None else (session_id,)
        return [self._task_info(r) for r in self._sql(f"{self._TASK_SQL} WHERE {where} ORDER BY t.id", params)]

    def task(self, task_id: int) -> TaskInfo:
        rows = self._sql(f"{self._TASK_SQL} WHERE t.id = ?", (task_id,))
        if not rows:
            raise KeyError(f"no task {task_id}")
        return self._task_info(rows[0])

    def tasks_by_id(self, task_ids: list[int]) -> list[TaskInfo]:
        if not task_ids:
            return []
        marks = ",".join("?" * len(task_ids))
        return [self._task_info(r) for r in self._sql(f"{self._TASK_SQL} WHERE t.id IN ({marks})", task_ids)]

    def references(self, task_id: int) -> list[Reference]:
        """Every reference from or to a task."""
        rows = self._sql("SELECT from_task, to_task, kind FROM task_ref WHERE from_task = ?"
                         " UNION SELECT from_task, to_task, kind FROM task_ref WHERE to_task = ?", (task_id, task_id))
        return [Reference(*r) for r in rows]

    def all_references(self) -> list[Reference]:
        return [Reference(*r) for r in self._sql("SELECT from_task, to_task, kind FROM task_ref ORDER BY id")]

    def steps(self, task_id: int, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        rows = self._sql(
            """
            SELECT s.id, s.task_id, s.seq, s.tool, s.args, s.result, s.status, s.error, s.tokens_in,
                   s.tokens_out, s.cost, s.duration_ms, s.created_at,
                   (SELECT c.id FROM checkpoint c WHERE c.step_id = s.id ORDER BY c.id LIMIT 1)
            FROM step s WHERE s.task_id = ? ORDER BY s.seq LIMIT ? OFFSET ?
            """, (task_id, -1 if limit is None else limit, offset))
        return [StepInfo(r[0], r[1], r[2], r[3], _loads(r[4]), _loads(r[5]), r[6], r[7], r[8], r[9], r[10], r[11],
                         _dt(r[12]), r[13]) for r in rows]

    def step(self, step_id: int) -> StepInfo:
        task_id = self._sql("SELECT task_id, seq FROM step WHERE id = ?", (step_id,))
        if not task_id:
            raise KeyError(f"no step {step_id}")
        return self.steps(task_id[0][0], task_id[0][1] - 1, 1)[0]

    def step_totals(self, task_id: int) -> dict[str, float]:
        r = self._sql("SELECT COUNT(*), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0),"
                      " COALESCE(SUM(cost), 0), COALESCE(SUM(duration_ms), 0) FROM step WHERE task_id = ?",
                      (task_id,))[0]
        return {"steps": r[0], "tokens_in": r[1], "tokens_out": r[2], "cost": r[3], "duration_ms": r[4]}

    def checkpoints(self, task_id: int) -> list[CheckpointInfo]:
        rows = self._sql("SELECT c.id, c.task_id, c.step_id, c.created_at,"
                         " (SELECT COUNT(*) FROM checkpoint_entry e WHERE e.checkpoint_id = c.id), c.label"
                         " FROM checkpoint c WHERE c.task_id = ? ORDER BY c.id", (task_id,))
        return [CheckpointInfo(r[0], r[1], r[2], _dt(r[3]), r[4], r[5] or "") for r in rows]

    def checkpoint(self, checkpoint_id: int) -> CheckpointInfo:
        rows = self._sql("SELECT c.id, c.task_id, c.step_id, c.created_at,"
                         " (SELECT COUNT(*) FROM checkpoint_entry e WHERE e.checkpoint_id = c.id), c.label"
                         " FROM checkpoint c WHERE c.id = ?", (checkpoint_id,))
        if not rows:
            raise KeyError(f"no checkpoint {checkpoint_id}")
        r = rows[0]
        return CheckpointInfo(r[0], r[1], r[2], _dt(r[3]), r[4], r[5] or "")

    def checkpoint_entries(self, checkpoint_id: int) -> list[EntryInfo]:
        hashes = ", before_hash, after_hash" if self.schema_version >= 2 else ", NULL, NULL"
        rows = self._sql(
            f"SELECT id, checkpoint_id, path, before_size, after_size, before_legacy IS NOT NULL,"
            f" after_legacy IS NOT NULL{hashes} FROM checkpoint_entry WHERE checkpoint_id = ? ORDER BY id",
            (checkpoint_id,))
        out = []
        for r in rows:
            has_before = r[7] is not None or r[5]
            has_after = r[8] is not None or r[6]
            kind = "added" if not has_before else "deleted" if not has_after else "modified"
            out.append(EntryInfo(r[0], r[1], r[2], kind, r[3] if has_before else None,
                                 r[4] if has_after else None, codec.hash_hex(r[7]), codec.hash_hex(r[8])))
        return out

    def entry(self, entry_id: int) -> EntryInfo:
        cp = self._sql("SELECT checkpoint_id FROM checkpoint_entry WHERE id = ?", (entry_id,))
        if not cp:
            raise KeyError(f"no checkpoint entry {entry_id}")
        return next(e for e in self.checkpoint_entries(cp[0][0]) if e.id == entry_id)

    def messages(self, task_id: int) -> list[MessageInfo]:
        rows = self._sql("SELECT id, task_id, role, content, created_at FROM message WHERE task_id = ? ORDER BY id",
                         (task_id,))
        return [MessageInfo(r[0], r[1], r[2], r[3], _dt(r[4])) for r in rows]

    def questions(self, task_id: int) -> list[QuestionInfo]:
        rows = self._sql("SELECT id, task_id, question, answer, created_at, answered_at FROM question"
                         " WHERE task_id = ? ORDER BY id", (task_id,))
        return [QuestionInfo(r[0], r[1], r[2], r[3], _dt(r[4]), _dt(r[5])) for r in rows]

    def counts(self) -> dict[str, int]:
        """Rows of the main tables (the `memtui sources` counts)."""
        names = {"sessions": "session", "tasks": "task", "steps": "step", "checkpoints": "checkpoint",
                 "entries": "checkpoint_entry"}
        return {k: self._sql(f"SELECT COUNT(*) FROM {t}")[0][0] for k, t in names.items()}

    def has_unfinished_tasks(self) -> bool:
        marks = ",".join("?" * len(UNFINISHED))
        return bool(self._sql(f"SELECT 1 FROM task WHERE status IN ({marks}) LIMIT 1", sorted(UNFINISHED)))

    def newest_checkpoint_at(self) -> datetime | None:
        return _dt(self._sql("SELECT MAX(created_at) FROM checkpoint")[0][0])


def _loads(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


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
        workspace = path.parent.parent if path.parent.name == AGENT_DIR else path.parent
        return path, workspace
    if not create:
        raise StoreNotFound(f"{path} does not exist")
    path.parent.mkdir(parents=True, exist_ok=True)
    workspace = path.parent.parent if path.parent.name == AGENT_DIR else path.parent
    return path, workspace
