"""Writing a pushed session into the team store (memtui.core.team.push reads it from a machine).

A session arrives whole — its tasks, steps, checkpoints with their contents, messages,
questions and the references between its tasks — with where it came from (`Origin`), and goes
in one transaction: a killed push leaves each session as it was or wholly new, never half. An
origin names one session of one store of one machine (`machine, agent, store_path,
session_key` is unique), so each session is there once per machine; contents go through the
store's content writer, so each distinct content is stored once across every machine.

A session whose fingerprint (what changes when it grows) is the one stored is not written
again; a changed one replaces its earlier rows (its contents stay deduplicated), keeping the pins
set on them in the team store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, NamedTuple

from memtui.core.model import MessageInfo, QuestionInfo, Reference, SessionInfo, StepInfo, TaskInfo

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


class SessionPush:
    """Mixed into TeamStore: `pushed_fingerprint(origin)` and `write_pushed(origin, session)`."""

    if TYPE_CHECKING:  # what AgentStore and ContentWriter give it
        def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]: ...

        def _run(self, sql: str, params: tuple | list = ()) -> Any: ...

        def _path_id(self, path: str) -> int: ...

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
            pinned: set[str] = set()
            if found:
                origin_id = found[0][0]
                pinned = self._pinned_here(origin_id)
                self._drop_pushed(origin_id)
                self._run("UPDATE origin SET fingerprint = ?, title = ?, pushed_at = ?, user_name = ? WHERE id = ?",
                          (session.fingerprint, _title(session), now, origin.user, origin_id))
            else:
                origin_id = self._run(
                    "INSERT INTO origin (machine, user_name, agent, session_key, store_path, title, fingerprint,"
                    " pushed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (origin.machine, origin.user, origin.agent, origin.session_key, origin.store_path,
                     _title(session), session.fingerprint, now)).fetchall()[0][0]
            newest_blob = self._sql("SELECT COALESCE(MAX(id), 0) FROM blob")[0][0]
            rows = self._write_rows(origin_id, session, now, pinned)
            rows += self._link_across(origin, session)
            blobs = self._sql("SELECT COUNT(*) FROM blob WHERE id > ?", (newest_blob,))[0][0]
            return Written(rows + 1, blobs)

    def _pinned_here(self, origin_id: int) -> set[str]:
        """The tasks of an earlier push of this session pinned in the team store (their ids
        there): a re-push keeps these pins, whatever the machine's own store says."""
        return {r[0] for r in self._sql("SELECT origin_task FROM task WHERE origin_id = ? AND pinned", (origin_id,))}

    def _drop_pushed(self, origin_id: int) -> None:
        """The rows an earlier push of this session wrote (contents stay: GC sweeps them)."""
        self._run("DELETE FROM message WHERE task_id IN (SELECT id FROM task WHERE origin_id = ?)", (origin_id,))
        self._run("DELETE FROM task WHERE origin_id = ?", (origin_id,))  # steps, checkpoints … cascade
        self._run("DELETE FROM session WHERE origin_id = ?", (origin_id,))

    def _write_rows(self, origin_id: int, pushed: PushedSession, now: float, pinned: set[str]) -> int:
        info = pushed.info
        session_id = None
        created = now if info is None else _ts(info.created_at, now)
        rows = 0
        if info is not None:
            session_id = self._run(
                "INSERT INTO session (title, status, created_at, updated_at, closed_at, origin_id)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (info.title, info.status, created, _ts(info.updated_at, created),
                 _ts(info.updated_at, created) if info.status == "closed" else None, origin_id)).fetchall()[0][0]
            rows = 1
        tasks: dict[Id, int] = {}
        for task in pushed.tasks:
            tasks[task.info.id] = self._write_task(origin_id, session_id, task, created,
                                                   task.info.pinned or str(task.info.id) in pinned)
            rows += 1 + len(task.steps) + len(task.messages) + len(task.questions) + sum(
                1 + len(cp.entries) for cp in task.checkpoints)
        current = None if info is None else tasks.get(info.current_task_id)
        if current is not None:
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
                    pinned: bool) -> int:
        t = pushed.info
        created = _ts(t.created_at, default)
        task_id = self._run(
            "INSERT INTO task (session_id, title, status, pinned, summary, created_at, updated_at, finished_at,"
            " origin_id, origin_task) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (session_id, t.title, t.status, bool(pinned), t.summary, created, _ts(t.updated_at, created),
             None if t.finished_at is None else t.finished_at.timestamp(), origin_id, str(t.id))).fetchall()[0][0]
        steps: dict[Id, int] = {}
        step_bytes = 0
        for seq, s in enumerate(pushed.steps, 1):
            args, result = _json(s.args), _json(s.result)
            payload = len(args.encode()) + len(result.encode())
            step_bytes += payload
            steps[s.id] = self._run(
                "INSERT INTO step (task_id, seq, tool, status, tokens_in, tokens_out, cost, duration_ms, payload_bytes,"
                " created_at, error, args, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (task_id, seq, s.tool, s.status, s.tokens_in, s.tokens_out, s.cost, s.duration_ms or 0, payload,
                 _ts(s.created_at, created), s.error, args, result)).fetchall()[0][0]
        entries = entry_bytes = 0
        for cp in pushed.checkpoints:
            cp_id = self._run("INSERT INTO checkpoint (task_id, step_id, label, created_at) VALUES (?, ?, ?, ?)"
                              " RETURNING id", (task_id, steps.get(cp.step), cp.label,
                                                _ts(cp.created_at, created))).fetchall()[0][0]
            for path, before, after in cp.entries:
                path_id = self._path_id(path)
                before_blob = None if before is None else self._put(path, path_id, before)
                after_blob = None if after is None else self._put(path, path_id, after)
                self._run("INSERT INTO checkpoint_entry (checkpoint_id, path_id, before_size, after_size, before_blob,"
                          " after_blob) VALUES (?, ?, ?, ?, ?, ?)",
                          (cp_id, path_id, None if before is None else len(before),
                           None if after is None else len(after), before_blob, after_blob))
                entries += 1
                entry_bytes += len(before or b"") + len(after or b"")
            self._seal()
        for m in pushed.messages:
            self._run("INSERT INTO message (task_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                      (task_id, m.role, m.content, _ts(m.created_at, created)))
        for q in pushed.questions:
            self._run("INSERT INTO question (task_id, question, answer, created_at, answered_at) VALUES (?, ?, ?, ?, ?)",
                      (task_id, q.question, q.answer, _ts(q.created_at, created),
                       None if q.answered_at is None else q.answered_at.timestamp()))
        self._run("UPDATE task SET step_count = ?, step_bytes = ?, checkpoint_count = ?, entry_count = ?,"
                  " entry_bytes = ? WHERE id = ?",
                  (len(pushed.steps), step_bytes, len(pushed.checkpoints), entries, entry_bytes, task_id))
        return task_id

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
