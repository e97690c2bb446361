"""The read model of agent.db: plain SQL into the frozen dataclasses of memtui.core.model."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from memtui.core import content as codec
from memtui.core.memory_source import MemorySource, UnknownId
from memtui.core.model import (
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
from memtui.core.store.dialect import Dialect
from memtui.core.store.schema import entry_path


def _dt(ts: float | None) -> datetime | None:
    if not isinstance(ts, (int, float)):
        return None  # NULL, or a damaged cell: no time rather than a crash
    try:
        return datetime.fromtimestamp(ts, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _loads(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


COMMON_STEP_COLUMNS = 14
"""How many columns of a step every store's step query reads, before a store's own (`step_columns`)."""


class ReadModel(MemorySource):
    """What the panes and the CLI read. Needs `_sql(sql, params)`, `schema_version` and
    `blob_cols` (schema.blob_columns of that version)."""

    schema_version: int
    blob_cols: tuple
    _dialect: Dialect

    def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        raise NotImplementedError

    # A task's stored bytes: step payloads plus the raw size of its entries' contents. Counted on
    # the task row from schema 3; summed from the rows on an older store browsed read-only.
    def _task_bytes_sql(self) -> str:
        if self.schema_version >= 3:
            return "t.step_bytes + t.entry_bytes"
        return ("(SELECT COALESCE(SUM(st.payload_bytes), 0) FROM step st WHERE st.task_id = t.id)"
                " + (SELECT COALESCE(SUM(COALESCE(e.before_size, 0) + COALESCE(e.after_size, 0)), 0)"
                " FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id WHERE c.task_id = t.id)")

    _SESSION_ORIGIN = "''"
    """Where a session came from, as SQL over the session `s` (a team store names its machine)."""

    def _session_rows(self, where: str, params: tuple | list, offset: int, limit: int | None) -> list[SessionInfo]:
        # The page is chosen first; counts, bytes and the current task's title are then read for
        # its sessions only (an index walk each), never for the whole store.
        rows = self._sql(
            f"""
            SELECT s.id, s.title, s.status, s.current_task_id, s.created_at, s.updated_at,
                   (SELECT COUNT(*) FROM task t WHERE t.session_id = s.id),
                   (SELECT COALESCE(SUM({self._task_bytes_sql()}), 0) FROM task t WHERE t.session_id = s.id),
                   (SELECT ct.title FROM task ct WHERE ct.id = s.current_task_id), {self._SESSION_ORIGIN}
            FROM (SELECT * FROM session {where} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?) s
            ORDER BY s.updated_at DESC, s.id DESC
            """, (*params, self._dialect.all_rows if limit is None else limit, offset))
        return [SessionInfo(r[0], r[1], r[2], r[3], _dt(r[4]), _dt(r[5]), r[6], r[7], r[8] or "", origin=r[9] or "")
                for r in rows]

    def sessions(self, offset: int = 0, limit: int | None = None) -> list[SessionInfo]:
        """Sessions, newest activity first, with task counts, stored bytes and the current task's
        title; `offset`/`limit` read one page of them."""
        return self._session_rows("", (), offset, limit)

    def session_page(self, offset: int, limit: int | None) -> list[SessionInfo]:
        return self.sessions(offset, limit)

    def session_count(self) -> int:
        return self._sql("SELECT COUNT(*) FROM session")[0][0]

    def session(self, session_id: int) -> SessionInfo:
        rows = self._session_rows("WHERE id = ?", (session_id,), 0, None)
        if not rows:
            raise UnknownId(f"no session {session_id}")
        return rows[0]

    @property
    def _TASK_SQL(self) -> str:
        counts = ("t.step_count, t.checkpoint_count" if self.schema_version >= 3 else
                  "(SELECT COUNT(*) FROM step WHERE step.task_id = t.id),"
                  " (SELECT COUNT(*) FROM checkpoint c WHERE c.task_id = t.id)")
        return f"""
            SELECT t.id, t.session_id, t.title, t.status, t.pinned,
                   EXISTS(SELECT 1 FROM task_ref r WHERE r.to_task = t.id AND r.kind = 'supersedes'),
                   t.summary, t.created_at, t.updated_at, t.finished_at, t.collected_at, {counts}
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
            raise UnknownId(f"no task {task_id}")
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
        return [self.step_from_row(r) for r in self._step_rows(task_id, offset, limit, self.step_columns())]

    def step_columns(self) -> str:
        """Columns a store reads of each step beyond the common ones (", s.col…"); `step_from_row`
        finds them after those."""
        return ""

    def step_from_row(self, r: tuple, **more: Any) -> StepInfo:
        """A step of a row of `steps`' query; `more`: fields read from the `step_columns`."""
        return self._step_info(r, **more)

    def _step_rows(self, task_id: int, offset: int, limit: int | None, more: str = "") -> list[tuple]:
        """A page of the task's steps' rows: the columns _step_info reads, then `more` (", s.col…")."""
        return self._sql(
            f"""
            SELECT s.id, s.task_id, s.seq, s.tool, s.args, s.result, s.status, s.error, s.tokens_in,
                   s.tokens_out, s.cost, s.duration_ms, s.created_at,
                   (SELECT c.id FROM checkpoint c WHERE c.step_id = s.id ORDER BY c.id LIMIT 1){more}
            FROM step s WHERE s.task_id = ? ORDER BY s.seq LIMIT ? OFFSET ?
            """, (task_id, self._dialect.all_rows if limit is None else limit, offset))

    @staticmethod
    def _step_info(r: tuple, **more: Any) -> StepInfo:
        return StepInfo(r[0], r[1], r[2], r[3], _loads(r[4]), _loads(r[5]), r[6], r[7], r[8], r[9], r[10], r[11],
                        _dt(r[12]), r[13], **more)

    def step(self, step_id: int) -> StepInfo:
        task_id = self._sql("SELECT task_id, seq FROM step WHERE id = ?", (step_id,))
        if not task_id:
            raise UnknownId(f"no step {step_id}")
        return self.steps(task_id[0][0], task_id[0][1] - 1, 1)[0]

    def step_totals(self, task_id: int) -> dict[str, float]:
        r = self._sql("SELECT COUNT(*), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0),"
                      " COALESCE(SUM(cost), 0), COALESCE(SUM(duration_ms), 0) FROM step WHERE task_id = ?",
                      (task_id,))[0]
        return {"steps": r[0], "tokens_in": r[1], "tokens_out": r[2], "cost": r[3], "duration_ms": r[4]}

    def step_usage(self, task_id: int) -> list[StepInfo]:
        """The task's steps' tokens, recorded cost and time, without their arguments and results."""
        rows = self._sql("SELECT id, task_id, seq, tool, tokens_in, tokens_out, cost, created_at FROM step"
                         " WHERE task_id = ? AND (tokens_in > 0 OR tokens_out > 0 OR cost > 0) ORDER BY seq",
                         (task_id,))
        return [StepInfo(r[0], r[1], r[2], r[3], None, None, tokens_in=r[4], tokens_out=r[5], cost=r[6],
                         created_at=_dt(r[7])) for r in rows]

    def _checkpoint_rows(self, where: str, params: tuple) -> list[CheckpointInfo]:
        """The checkpoints `where` (the rest of the statement after FROM checkpoint c) selects."""
        rows = self._sql("SELECT c.id, c.task_id, c.step_id, c.created_at,"
                         " (SELECT COUNT(*) FROM checkpoint_entry e WHERE e.checkpoint_id = c.id), c.label"
                         f" FROM checkpoint c {where}", params)
        return [CheckpointInfo(r[0], r[1], r[2], _dt(r[3]), r[4], r[5] or "") for r in rows]

    def checkpoints(self, task_id: int) -> list[CheckpointInfo]:
        return self._checkpoint_rows("WHERE c.task_id = ? ORDER BY c.id", (task_id,))

    def rollback_checkpoints(self, limit: int = 20) -> list[CheckpointInfo]:
        """memtui's own rollback and undo checkpoints across the store, newest first."""
        return self._checkpoint_rows("WHERE c.label IN ('rollback', 'undo') ORDER BY c.id DESC LIMIT ?", (limit,))

    def checkpoint(self, checkpoint_id: int) -> CheckpointInfo:
        rows = self._checkpoint_rows("WHERE c.id = ?", (checkpoint_id,))
        if not rows:
            raise UnknownId(f"no checkpoint {checkpoint_id}")
        return rows[0]

    def checkpoint_entries(self, checkpoint_id: int) -> list[EntryInfo]:
        key, before, after = self.blob_cols
        if key == "id":  # schema 4: the entry holds blob ids, the hash is on the blob
            hashes = (", (SELECT hash FROM blob WHERE id = e.before_blob), (SELECT hash FROM blob WHERE id = e.after_blob)"
                      ", e.before_blob IS NOT NULL, e.after_blob IS NOT NULL")
        elif key:
            hashes = f", e.{before}, e.{after}, e.{before} IS NOT NULL, e.{after} IS NOT NULL"
        else:
            hashes = ", NULL, NULL, 0, 0"
        rows = self._sql(
            f"SELECT e.id, e.checkpoint_id, {entry_path(self.schema_version)}, e.before_size, e.after_size, e.before_legacy IS NOT NULL,"
            f" e.after_legacy IS NOT NULL{hashes} FROM checkpoint_entry e WHERE e.checkpoint_id = ? ORDER BY e.id",
            (checkpoint_id,))
        out = []
        for r in rows:
            has_before = r[9] or r[5]
            has_after = r[10] or r[6]
            kind = "added" if not has_before else "deleted" if not has_after else "modified"
            out.append(EntryInfo(r[0], r[1], r[2], kind, r[3] if has_before else None,
                                 r[4] if has_after else None, codec.hash_hex(r[7]), codec.hash_hex(r[8])))
        return out

    def entry(self, entry_id: int) -> EntryInfo:
        cp = self._sql("SELECT checkpoint_id FROM checkpoint_entry WHERE id = ?", (entry_id,))
        if not cp:
            raise UnknownId(f"no checkpoint entry {entry_id}")
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

    def newest_checkpoint_at(self, excluding: tuple[str, ...] = ()) -> datetime | None:
        """When the newest checkpoint was recorded, leaving out those labelled `excluding`."""
        if not excluding:
            return _dt(self._sql("SELECT MAX(created_at) FROM checkpoint")[0][0])
        marks = ",".join("?" * len(excluding))
        return _dt(self._sql(f"SELECT MAX(created_at) FROM checkpoint WHERE label IS NULL OR label NOT IN ({marks})",
                             list(excluding))[0][0])
