"""Writing a pushed session into the team store (memtui.core.team.push reads it from a machine).

A session arrives whole — its tasks, steps, checkpoints with their contents, messages,
questions and the references between its tasks — with where it came from (`Origin`), and goes
in one transaction: a killed push leaves each session as it was or wholly new, never half. An
origin names one session of one store of one machine (`machine, agent, store_path,
session_key` is unique), so each session is there once per machine; contents go through the
store's content writer, so each distinct content is stored once across every machine.

A session whose fingerprint (what changes when it grows) is the one stored is not written
again. A changed one is written over its earlier rows: the session and each task keep their ids
in the team store (a task is matched by its id on the machine), a pin set there stays, and a
task GC collected there stays collected (its steps and checkpoints are not sent again); the
other tasks' steps, checkpoints, messages and questions are written anew (contents stay
deduplicated). Steps keep their model and tokens by kind (team schema 10); on an older team
store, which has no column for them, their cost is priced at push instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, NamedTuple

from memtui.core import content as codec
from memtui.core.model import MessageInfo, QuestionInfo, Reference, SessionInfo, StepInfo, TaskInfo
from memtui.core.store.team_migrate import STEP_USAGE_COLUMNS, USAGE_SCHEMA

Id = Any


@dataclass(frozen=True)
class Origin:
    """Where a pushed session came from."""

    machine: str
    user: str
    agent: str  # the kind of store: memtui, claude-code, codex …
    store_path: str  # the store's path on that machine
    session_key: str  # the session's id in that store


@dataclass
class PushedCheckpoint:
    step: Id | None
    label: str
    created_at: datetime | None
    entries: list[tuple[str, bytes | None, bytes | None]]  # (path, before, after)


@dataclass
class PushedTask:
    info: TaskInfo
    steps: list[StepInfo] = field(default_factory=list)
    checkpoints: list[PushedCheckpoint] = field(default_factory=list)
    messages: list[MessageInfo] = field(default_factory=list)
    questions: list[QuestionInfo] = field(default_factory=list)


ORPHANS = "(orphans)"
"""The session key of a store's orphan tasks (their session deleted there): pushed together,
without a session row, their origin named on each task."""


@dataclass
class PushedSession:
    info: SessionInfo | None  # None: the store's orphan tasks (session key ORPHANS)
    fingerprint: str
    tasks: list[PushedTask] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


class _Earlier(NamedTuple):
    """A task as an earlier push of its session left it in the team store."""

    id: int
    pinned: bool
    collected: bool


_STEP_COLUMNS = ("id", "task_id", "seq", "tool", "status", "tokens_in", "tokens_out", "cost", "duration_ms",
                 "payload_bytes", "created_at", "error", "args", "result")
_STEP_KINDS = ("model", *STEP_USAGE_COLUMNS)
_CHECKPOINT_COLUMNS = ("id", "task_id", "step_id", "label", "created_at")
_ENTRY_COLUMNS = ("checkpoint_id", "path_id", "before_size", "after_size", "before_blob", "after_blob")
_MESSAGE_COLUMNS = ("task_id", "role", "content", "created_at")
_QUESTION_COLUMNS = ("task_id", "question", "answer", "created_at", "answered_at")


def _usage(step: StepInfo) -> tuple[int | None, ...]:
    """The step's tokens by kind for its usage columns (all NULL: the agent recorded in/out only)."""
    t = step.usage
    if t is None:
        return (None,) * len(STEP_USAGE_COLUMNS)
    return t.input, t.output, t.cache_read, t.cache_write_5m, t.cache_write_1h, t.reasoning


class Written(NamedTuple):
    """What one session's push wrote: rows of every table, and how many of them were new
    contents (blobs)."""

    rows: int
    blobs: int


def _ts(when: datetime | None, default: float) -> float:
    return when.timestamp() if when is not None else default


def _title(session: PushedSession) -> str:
    return ORPHANS if session.info is None else session.info.title


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _as_peewee(exc: Exception) -> Exception:
    """The driver's error (a DB-API class: psycopg's DeadlockDetected is an OperationalError) as
    peewee's class of the same DB-API name, as peewee raises for the statements it runs."""
    import peewee

    for kind in type(exc).__mro__:
        ours = getattr(peewee, kind.__name__, None)
        if isinstance(ours, type) and issubclass(ours, peewee.PeeweeException):
            return ours(exc, *exc.args)  # as peewee wraps: the original kept as .orig
    return exc


class SessionPush:
    """Mixed into TeamStore: `pushed_fingerprint(origin)` and `write_pushed(origin, session)`."""

    team_schema: int
    _db: Any  # the peewee database (COPY goes through its connection's cursor)

    if TYPE_CHECKING:  # what AgentStore and ContentWriter give it
        def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]: ...

        def _run(self, sql: str, params: tuple | list = ()) -> Any: ...

        def _put(self, path: str, path_id: int, data: bytes, kin: Iterable[int] = ()) -> int: ...

        def _seal(self) -> None: ...

        def now(self) -> float: ...

        def transaction(self) -> ContextManager[None]: ...

    _ORIGIN = "machine = ? AND agent = ? AND store_path = ? AND session_key = ?"

    def pushed_fingerprint(self, origin: Origin) -> str | None:
        """The fingerprint of the session `origin` names as last pushed (None: never pushed)."""
        rows = self._sql(f"SELECT fingerprint FROM origin WHERE {self._ORIGIN}", self._origin_key(origin))
        return rows[0][0] if rows else None

    @staticmethod
    def _origin_key(origin: Origin) -> tuple[str, str, str, str]:
        return origin.machine, origin.agent, origin.store_path, origin.session_key

    def write_pushed(self, origin: Origin, session: PushedSession) -> Written:
        """Write one session in one transaction; Written(0, 0) when it is there unchanged."""
        with self.transaction():
            now = self.now()
            found = self._sql(f"SELECT id, fingerprint FROM origin WHERE {self._ORIGIN} FOR UPDATE",
                              self._origin_key(origin))
            if found and found[0][1] == session.fingerprint:
                return Written(0, 0)
            if found:
                origin_id = found[0][0]
                self._run("UPDATE origin SET fingerprint = ?, title = ?, pushed_at = ?, user_name = ? WHERE id = ?",
                          (session.fingerprint, _title(session), now, origin.user, origin_id))
            else:
                origin_id = self._run(
                    "INSERT INTO origin (machine, user_name, agent, session_key, store_path, title, fingerprint,"
                    " pushed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (origin.machine, origin.user, origin.agent, origin.session_key, origin.store_path,
                     _title(session), session.fingerprint, now)).fetchall()[0][0]
            newest_blob = self._sql("SELECT COALESCE(MAX(id), 0) FROM blob")[0][0]
            rows = self._write_rows(origin_id, session, now)
            rows += self._link_across(origin, session)
            if any(cp.entries for task in session.tasks for cp in task.checkpoints):
                self._seal()
            blobs = self._sql("SELECT COUNT(*) FROM blob WHERE id > ?", (newest_blob,))[0][0]
            return Written(rows + 1, blobs)

    def _earlier(self, origin_id: int) -> dict[str, _Earlier]:
        """The tasks an earlier push of this session wrote, by their id on the machine."""
        return {r[0]: _Earlier(r[1], bool(r[2]), r[3] is not None) for r in self._sql(
            "SELECT origin_task, id, pinned, collected_at FROM task WHERE origin_id = ? FOR UPDATE", (origin_id,))}

    def _write_rows(self, origin_id: int, pushed: PushedSession, now: float) -> int:
        """The session's rows. A session pushed before keeps its row and its tasks' ids (matched
        by their ids on the machine), and what was done to them in the team store: a pin set
        there stays, and a task GC collected there stays collected (its steps and checkpoints
        are not sent again). Tasks the machine no longer has go."""
        info = pushed.info
        created = now if info is None else _ts(info.created_at, now)
        earlier = self._earlier(origin_id)
        known = self._known_contents(pushed)
        now_there = {str(t.info.id) for t in pushed.tasks}
        gone = [e.id for key, e in earlier.items() if key not in now_there]
        if gone:
            self._run("DELETE FROM message WHERE task_id = ANY(?)", (gone,))
            self._run("DELETE FROM task WHERE id = ANY(?)", (gone,))  # steps, checkpoints … cascade
        session_id = None
        rows = 0
        if info is not None:
            values = (info.title, info.status, created, _ts(info.updated_at, created),
                      _ts(info.updated_at, created) if info.status == "closed" else None)
            kept = self._sql("SELECT id FROM session WHERE origin_id = ?", (origin_id,))
            if kept:
                session_id = kept[0][0]
                self._run("UPDATE session SET title = ?, status = ?, created_at = ?, updated_at = ?, closed_at = ?"
                          " WHERE id = ?", (*values, session_id))
            else:
                session_id = self._run("INSERT INTO session (title, status, created_at, updated_at, closed_at,"
                                       " origin_id) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                                       (*values, origin_id)).fetchall()[0][0]
            rows = 1
        tasks: dict[Id, int] = {}
        for task in pushed.tasks:
            tasks[task.info.id], written = self._write_task(origin_id, session_id, task, created,
                                                            earlier.get(str(task.info.id)), known)
            rows += written
        current = None if info is None else tasks.get(info.current_task_id)
        if session_id is not None:
            self._run("UPDATE session SET current_task_id = ? WHERE id = ?", (current, session_id))
        for ref in pushed.references:
            if ref.from_task in tasks and ref.to_task in tasks:
                rows += self._run("INSERT INTO task_ref (from_task, to_task, kind) VALUES (?, ?, ?)"
                                  " ON CONFLICT DO NOTHING", (tasks[ref.from_task], tasks[ref.to_task], ref.kind)).rowcount
        return rows

    def _link_across(self, origin: Origin, pushed: PushedSession) -> int:
        """References between a task of this session and one of another session of the same
        store (a handoff to a sub-agent's session): linked once both ends are in, whichever
        session was pushed first (a source lists a reference at both of its ends)."""
        inside = {t.info.id for t in pushed.tasks}
        rows = 0
        for ref in pushed.references:
            if ref.from_task in inside and ref.to_task in inside:
                continue  # written with the session
            rows += self._run(
                "INSERT INTO task_ref (from_task, to_task, kind) SELECT a.id, b.id, ? FROM task a"
                " JOIN origin oa ON oa.id = a.origin_id, task b JOIN origin ob ON ob.id = b.origin_id"
                " WHERE a.origin_task = ? AND b.origin_task = ? AND oa.machine = ? AND oa.agent = ?"
                " AND oa.store_path = ? AND ob.machine = oa.machine AND ob.agent = oa.agent"
                " AND ob.store_path = oa.store_path ON CONFLICT DO NOTHING",
                (ref.kind, str(ref.from_task), str(ref.to_task), origin.machine, origin.agent,
                 origin.store_path)).rowcount
        return rows

    def _write_task(self, origin_id: int, session_id: int | None, pushed: PushedTask, default: float,
                    earlier: _Earlier | None, known: dict[bytes, int]) -> tuple[int, int]:
        """The task's row (its id there kept) and, unless GC collected it in the team store, its
        steps, checkpoints, messages and questions anew. Returns (its id, rows written)."""
        t = pushed.info
        created = _ts(t.created_at, default)
        finished = None if t.finished_at is None else t.finished_at.timestamp()
        pinned = t.pinned or (earlier is not None and earlier.pinned)
        if earlier is None:
            task_id = self._run(
                "INSERT INTO task (session_id, title, status, pinned, summary, created_at, updated_at, finished_at,"
                " origin_id, origin_task) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (session_id, t.title, t.status, pinned, t.summary, created, _ts(t.updated_at, created), finished,
                 origin_id, str(t.id))).fetchall()[0][0]
        else:
            task_id = earlier.id
            self._run("UPDATE task SET session_id = ?, title = ?, status = ?, pinned = ?, summary = ?, created_at = ?,"
                      " updated_at = ?, finished_at = ? WHERE id = ?",
                      (session_id, t.title, t.status, pinned, t.summary, created, _ts(t.updated_at, created),
                       finished, task_id))
            if earlier.collected:
                return task_id, 1
            self._drop_task_rows(task_id)
        return task_id, 1 + self._write_task_rows(task_id, pushed, created, known)

    def _drop_task_rows(self, task_id: int) -> None:
        """What an earlier push wrote of a task, but its row (contents stay: GC sweeps them)."""
        for table in ("checkpoint", "step", "message", "question"):  # entries go with their checkpoint
            self._run(f"DELETE FROM {table} WHERE task_id = ?", (task_id,))

    def _write_task_rows(self, task_id: int, pushed: PushedTask, created: float, known: dict[bytes, int]) -> int:
        """A task's steps, checkpoints with their entries, messages and questions: each table's
        rows in one COPY (a round trip per row was most of a push's time; ids drawn from their
        sequences first, where other rows reference them). Contents not in the team store yet
        (`known`: hash → blob id of those that are) go one by one through the content writer
        (each once, a delta against an earlier version of its path where one is kept)."""
        kinds = self.team_schema >= USAGE_SCHEMA
        pushed_steps = pushed.steps
        if not kinds:  # a store that keeps no model or tokens by kind: the cost is priced here, kept as recorded
            from memtui.core.usage.collect import priced_steps

            pushed_steps = priced_steps(pushed.steps)
        step_ids, checkpoint_ids = self._new_ids(len(pushed_steps), len(pushed.checkpoints))
        step_rows = []
        step_bytes = 0
        for step_id, (seq, s) in zip(step_ids, enumerate(pushed_steps, 1)):
            args, result = _json(s.args), _json(s.result)
            payload = len(args.encode()) + len(result.encode())
            step_bytes += payload
            row = (step_id, task_id, seq, s.tool, s.status, s.tokens_in, s.tokens_out, s.cost, s.duration_ms or 0,
                   payload, _ts(s.created_at, created), s.error, args, result)
            step_rows.append((*row, s.model or "", *_usage(s)) if kinds else row)
        self._copy("step", _STEP_COLUMNS + (_STEP_KINDS if kinds else ()), step_rows)
        steps: dict[Any, int] = {s.id: step_id for step_id, s in zip(step_ids, pushed_steps)}
        self._copy("checkpoint", _CHECKPOINT_COLUMNS, [
            (cp_id, task_id, steps.get(cp.step), cp.label, _ts(cp.created_at, created))
            for cp_id, cp in zip(checkpoint_ids, pushed.checkpoints)])
        path_ids = self._path_ids(sorted({path for cp in pushed.checkpoints for path, _, _ in cp.entries}))
        entry_rows = []
        entry_bytes = 0
        for cp_id, cp in zip(checkpoint_ids, pushed.checkpoints):
            for path, before, after in cp.entries:
                path_id = path_ids[path]
                entry_rows.append((cp_id, path_id, None if before is None else len(before),
                                   None if after is None else len(after), self._content(path, path_id, before, known),
                                   self._content(path, path_id, after, known)))
                entry_bytes += len(before or b"") + len(after or b"")
        self._copy("checkpoint_entry", _ENTRY_COLUMNS, entry_rows)
        self._copy("message", _MESSAGE_COLUMNS, [(task_id, m.role, m.content, _ts(m.created_at, created))
                                                 for m in pushed.messages])
        self._copy("question", _QUESTION_COLUMNS, [
            (task_id, q.question, q.answer, _ts(q.created_at, created),
             None if q.answered_at is None else q.answered_at.timestamp()) for q in pushed.questions])
        collected = self.now() if pushed.info.collected else None  # collected on the machine: marked so here
        self._run("UPDATE task SET step_count = ?, step_bytes = ?, checkpoint_count = ?, entry_count = ?,"
                  " entry_bytes = ?, collected_at = ? WHERE id = ?",
                  (len(pushed.steps), step_bytes, len(pushed.checkpoints), len(entry_rows), entry_bytes, collected,
                   task_id))
        return len(step_rows) + len(pushed.messages) + len(pushed.questions) + len(checkpoint_ids) + len(entry_rows)

    def _new_ids(self, steps: int, checkpoints: int) -> tuple[list[int], list[int]]:
        """Ids for this many new steps and checkpoints, ascending, from their tables' sequences."""
        if not steps and not checkpoints:
            return [], []
        found = self._sql("SELECT ARRAY(SELECT nextval(pg_get_serial_sequence('step', 'id'))"
                          " FROM generate_series(1, ?)), ARRAY(SELECT nextval(pg_get_serial_sequence('checkpoint',"
                          " 'id')) FROM generate_series(1, ?))", (steps, checkpoints))[0]
        return sorted(found[0]), sorted(found[1])

    def _copy(self, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
        """`rows` into `table` by COPY, in the open transaction. The driver's errors come out as
        peewee's, as every other statement's do (a deadlock is tried again; a refusal is one line)."""
        if not rows:
            return
        try:
            with self._db.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        except Exception as exc:
            raise _as_peewee(exc) from exc

    def _known_contents(self, session: PushedSession) -> dict[bytes, int]:
        """hash → blob id of the session's contents already in the team store (pushed from
        another machine, or before), each locked against a GC's delete until this commits."""
        hashes = sorted({codec.content_hash(side) for task in session.tasks for cp in task.checkpoints
                         for _, before, after in cp.entries for side in (before, after) if side is not None})
        if not hashes:
            return {}
        return {bytes(h): blob for h, blob in self._sql(
            "SELECT hash, id FROM blob WHERE hash = ANY(CAST(? AS bytea[])) AND codec != ? FOR KEY SHARE",
            (hashes, codec.CODEC_MISSING))}

    def _content(self, path: str, path_id: int, data: bytes | None, known: dict[bytes, int]) -> int | None:
        """The blob id of `data`, stored first if new."""
        if data is None:
            return None
        h = codec.content_hash(data)
        blob = known.get(h)
        if blob is None:
            blob = known[h] = self._put(path, path_id, data)
        return blob

    def _path_ids(self, paths: list[str]) -> dict[str, int]:
        """The id of each path in the path table, added where new (sorted: two pushers add
        overlapping paths in the same order; one that waited on the other's finds its rows)."""
        if not paths:
            return {}
        self._run("INSERT INTO path (path) SELECT unnest(CAST(? AS text[])) ON CONFLICT (path) DO NOTHING", (paths,))
        return dict(self._sql("SELECT path, id FROM path WHERE path = ANY(?)", (paths,)))

    # ------------------------------------------------------------------ cursors
    def push_cursor(self, machine: str, file_path: str) -> tuple[int, int, int] | None:
        """(size, mtime_ns, inode) of a source file (or folder) as last pushed whole."""
        rows = self._sql("SELECT size, mtime_ns, inode FROM push_cursor WHERE machine = ? AND file_path = ?",
                         (machine, file_path))
        return tuple(rows[0]) if rows else None  # type: ignore[return-value]

    def set_push_cursor(self, machine: str, file_path: str, key: tuple[int, int, int]) -> None:
        """Record that every session of this source, as it is at `key`, is in the team store."""
        with self.transaction():
            self._run("INSERT INTO push_cursor (machine, file_path, size, mtime_ns, inode, pushed_at)"
                      " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (machine, file_path) DO UPDATE SET size = EXCLUDED.size,"
                      " mtime_ns = EXCLUDED.mtime_ns, inode = EXCLUDED.inode, pushed_at = EXCLUDED.pushed_at",
                      (machine, file_path, *key, self.now()))
