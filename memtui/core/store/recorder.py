"""The recorder API of AgentStore: what an agent harness calls while it works.

Every method writes through the store's own write connection (a store opened for writing,
or the one `AgentStore.writer()` hands out) and stamps rows with the store's clock. Raw SQL
where a method runs once per recorded step: query building would dominate there.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, Mapping

from memtui.core.memory_source import UnknownId
from memtui.core.model import FINISHED
from memtui.core.paths import normalise_path
from memtui.core.store.schema import SUM_CONTENT_SQL

if TYPE_CHECKING:
    from types import SimpleNamespace

    from peewee import Database


class Recorder:
    """Mixed into AgentStore; uses its connection (`_db`, `_sql`, models `_m`), `transaction()`,
    `now()`, `_writable()`, and ContentWriter's `_put` for file contents."""

    if TYPE_CHECKING:  # what AgentStore and ContentWriter, beside it, give it
        _db: Database
        _m: SimpleNamespace

        def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]: ...

        def _run(self, sql: str, params: tuple | list = ()) -> Any: ...

        def _writable(self) -> None: ...

        def _path_id(self, path: str) -> int: ...

        def _put(self, path: str, path_id: int, data: bytes, kin: Iterable[int] = ()) -> int: ...

        def _seal(self) -> None: ...

        def now(self) -> float: ...

        def transaction(self) -> ContextManager[None]: ...

    def start_session(self, title: str) -> int:
        self._writable()
        now = self.now()
        return self._m.Session.insert(title=title, status="open", created_at=now, updated_at=now).execute()

    def close_session(self, session_id: int) -> None:
        self._writable()
        now = self.now()
        self._m.Session.update(status="closed", closed_at=now, updated_at=now).where(
            self._m.Session.id == session_id).execute()

    def delete_session(self, session_id: int) -> None:
        """The session row goes; its tasks stay as orphans (session_id NULL)."""
        self._writable()
        with self.transaction():
            self._m.Task.update(session=None).where(self._m.Task.session == session_id).execute()
            self._m.Session.delete().where(self._m.Session.id == session_id).execute()

    def start_task(self, session_id: int, title: str, parent_task_id: int | None = None) -> int:
        """A running task that becomes the session's current one; supersedes a finished previous."""
        with self.transaction():
            row = self._sql("SELECT s.current_task_id, t.status FROM session s"
                            " LEFT JOIN task t ON t.id = s.current_task_id WHERE s.id = ?", (session_id,))
            if not row:
                raise UnknownId(f"no session {session_id}")
            previous, previous_status = row[0]
            now = self.now()
            task_id = self._run(
                "INSERT INTO task (session_id, title, status, pinned, summary, created_at, updated_at)"
                " VALUES (?, ?, 'running', FALSE, '', ?, ?) RETURNING id", (session_id, title, now, now)).fetchall()[0][0]
            if previous is not None and previous_status in FINISHED:
                self._link(task_id, previous, "supersedes")
            self._run("UPDATE session SET current_task_id = ?, updated_at = ? WHERE id = ?",
                                (task_id, now, session_id))
            if parent_task_id is not None:
                self._link(parent_task_id, task_id, "handoff")
        return task_id

    def _link(self, from_task: int, to_task: int, kind: str) -> None:
        self._run("INSERT INTO task_ref (from_task, to_task, kind) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                            (from_task, to_task, kind))

    def add_reference(self, from_task: int, to_task: int, kind: str) -> None:
        if kind not in ("handoff", "supersedes", "depends"):
            raise ValueError(f"unknown reference kind {kind!r}")
        self._writable()
        self._link(from_task, to_task, kind)

    def _touch(self, task_id: int, now: float, add: Mapping[str, int] | None = None, **fields: Any) -> None:
        """Stamp the task and its session; set `fields` and add `add` to the task's counters."""
        # Raw SQL: this runs for every recorded step, where query building would dominate.
        sets = "".join(f", {name} = ?" for name in fields)
        adds = "".join(f", {name} = {name} + ?" for name in add or ())
        self._run(f"UPDATE task SET updated_at = ?{sets}{adds} WHERE id = ?",
                             (now, *fields.values(), *(add or {}).values(), task_id))
        self._run("UPDATE session SET updated_at = ? WHERE id = (SELECT session_id FROM task WHERE id = ?)",
                            (now, task_id))

    def record_step(self, task_id: int, tool: str, args: Any = None, result: Any = None, status: str = "ok",
                    error: str | None = None, tokens_in: int = 0, tokens_out: int = 0, cost: float = 0.0,
                    duration_ms: int = 0) -> int:
        """One tool call or model turn; `args` and `result` are any JSON-serialisable values."""
        args_json = json.dumps(args, ensure_ascii=False)
        result_json = json.dumps(result, ensure_ascii=False)
        with self.transaction():
            now = self.now()
            seq = self._sql("SELECT COALESCE(MAX(seq), 0) + 1 FROM step WHERE task_id = ?", (task_id,))[0][0]
            payload = len(args_json.encode()) + len(result_json.encode())
            step_id = self._run(
                "INSERT INTO step (task_id, seq, tool, status, tokens_in, tokens_out, cost, duration_ms,"
                " payload_bytes, created_at, error, args, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " RETURNING id",
                (task_id, seq, tool, status, tokens_in, tokens_out, cost, duration_ms, payload, now, error,
                 args_json, result_json),
            ).fetchall()[0][0]
            self._touch(task_id, now, add={"step_count": 1, "step_bytes": payload})
        return step_id

    def record_checkpoint(self, task_id: int, step_id: int | None,
                          changes: Mapping[str, tuple[bytes | None, bytes | None]], label: str = "") -> int:
        """The file edits of one step: path → (before or None, after or None)."""
        normalised = [(normalise_path(path), before, after) for path, (before, after) in changes.items()]
        content = sum(len(side) for _, before, after in normalised for side in (before, after) if side is not None)
        with self.transaction():
            now = self.now()
            cp = self._run("INSERT INTO checkpoint (task_id, step_id, label, created_at) VALUES (?, ?, ?, ?)"
                           " RETURNING id", (task_id, step_id, label, now)).fetchall()[0][0]
            # Befores first: the contents of deleted files are then stored (or found) before
            # the new files' contents, which may be deltas against them (a rename).
            path_ids = [self._path_id(path) for path, _, _ in normalised]
            befores = [None if before is None else self._put(path, path_id, before)
                       for path_id, (path, before, _) in zip(path_ids, normalised)]
            deleted = [bh for bh, (_, _, after) in zip(befores, normalised) if after is None and bh is not None]
            for bh, path_id, (path, before, after) in zip(befores, path_ids, normalised):
                ah = self._put(path, path_id, after, deleted) if after is not None else None
                self._run(
                    "INSERT INTO checkpoint_entry (checkpoint_id, path_id, before_size, after_size, before_blob,"
                    " after_blob) VALUES (?, ?, ?, ?, ?, ?)",
                    (cp, path_id, None if before is None else len(before), None if after is None else len(after),
                     bh, ah))
            self._seal()
            self._touch(task_id, now, add={"checkpoint_count": 1, "entry_count": len(normalised),
                                           "entry_bytes": content})
        return cp

    def ask(self, task_id: int, question: str) -> int:
        with self.transaction():
            now = self.now()
            qid = self._m.Question.insert(task=task_id, question=question, created_at=now).execute()
            self._touch(task_id, now, status="waiting_user")
        return qid

    def answer(self, question_id: int, text: str) -> None:
        m = self._m
        with self.transaction():
            now = self.now()
            q = m.Question.get_by_id(question_id)
            m.Question.update(answer=text, answered_at=now).where(m.Question.id == question_id).execute()
            pending = m.Question.select().where((m.Question.task == q.task_id) & m.Question.answer.is_null()).count()
            if not pending:
                self._touch(q.task_id, now, status="running")

    def finish_task(self, task_id: int, status: str = "completed", summary: str = "") -> None:
        if status not in FINISHED:
            raise ValueError(f"a task finishes as one of {sorted(FINISHED)}, not {status!r}")
        with self.transaction():
            now = self.now()
            self._touch(task_id, now, status=status, summary=summary, finished_at=now)
            if summary:
                self._message(task_id, "summary", summary, now)

    def add_message(self, task_id: int, role: str, content: str) -> int:
        self._writable()
        return self._message(task_id, role, content, self.now())

    def _message(self, task_id: int, role: str, content: str, now: float) -> int:
        return self._run("INSERT INTO message (task_id, role, content, created_at) VALUES (?, ?, ?, ?)"
                         " RETURNING id", (task_id, role, content, now)).fetchall()[0][0]

    def pin(self, task_id: int) -> None:
        self._set_pinned(task_id, True)

    def unpin(self, task_id: int) -> None:
        self._set_pinned(task_id, False)

    def _set_pinned(self, task_id: int, pinned: bool) -> None:
        self._writable()
        m = self._m
        if m.Task.update(pinned=pinned).where(m.Task.id == task_id).execute() == 0:
            raise UnknownId(f"no task {task_id}")

    def remove_entries(self, checkpoint_id: int, paths: list[str]) -> int:
        """Drop the entries of `paths` from a checkpoint (an undo keeps only the files that were
        really written); returns how many went. Their contents stay until GC sweeps them."""
        marks = ",".join("?" * len(paths))
        where = (f"FROM checkpoint_entry e WHERE e.checkpoint_id = ?"
                 f" AND e.path_id IN (SELECT id FROM path WHERE path IN ({marks}))")
        with self.transaction():
            n, content = self._sql(f"SELECT COUNT(*), {SUM_CONTENT_SQL} {where}", (checkpoint_id, *paths))[0]
            self._run(f"DELETE {where.replace('checkpoint_entry e', 'checkpoint_entry AS e')}",
                                 (checkpoint_id, *paths))
            self._run("UPDATE task SET entry_count = entry_count - ?, entry_bytes = entry_bytes - ?"
                                 " WHERE id = (SELECT task_id FROM checkpoint WHERE id = ?)",
                                 (n, content, checkpoint_id))
            return n
