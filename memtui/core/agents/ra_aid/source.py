"""RA.Aid 0.30.x: `<project>/.ra-aid/pk.db`, read through the read model.

Mapping: RA.Aid sessions → sessions; human inputs → tasks; trajectory rows → steps; key
facts, key snippets and research notes → memory items (with the `#id`s RA.Aid shows).
RA.Aid stores no file contents, so there are no checkpoints.

Quirks handled (see shared/research/ra-aid.md): memory items and `ask_human` inputs have
NULL `session_id`, so an input's session comes from its trajectory rows, then its own
column, then the time window it falls in; timestamps are naive local time; columns are
read by name (databases upgraded from older versions order them differently).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

from memtui.core.errors import NotAStore
from memtui.core.model import Id, MemoryItem, MessageInfo, Problem, SessionInfo, StepInfo, TaskInfo
from memtui.core.memory_source import Capability, LiveWatch, MemoryItems, UnknownId
from memtui.core.sources.base import Index, IndexedSource, page, preview
from memtui.core.agents.ra_aid.columns import columns as _columns, json_or_text as _json, typed_row
from memtui.core.sqlite_readonly import connect_readonly, table_names
from memtui.core.sources.timestamps import parse_time, sort_key

TABLES: tuple[str, ...] = ("session", "human_input", "key_fact", "key_snippet", "research_note", "trajectory")
ITEM_TABLES: dict[str, str] = {"fact": "key_fact", "snippet": "key_snippet", "note": "research_note"}
SESSION_OPEN = frozenset({"running", "halting"})


@dataclass
class RaAidInput:
    id: int
    content: str
    source: str
    created_at: datetime | None
    session_id: int | None  # after mapping
    step_ids: list[int] = field(default_factory=list)


PAYLOAD = ("tool_parameters", "tool_result", "step_data", "error_message", "error_details")
"""A trajectory row's payload columns: what its step shows beyond its times and counts."""


@dataclass
class RaAidIndex(Index):
    """What a read of pk.db gave (`RaAidSource.build_index`); steps are read again from the database."""

    reported: set[tuple[Any, ...]] = field(default_factory=set)
    """Wrong-typed cells already reported (steps are read again)."""
    current_input_id: int | None = None
    """RA.Aid's "current human input": the newest row by created_at in the whole database."""
    sessions_raw: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[int, RaAidInput] = field(default_factory=dict)
    """human_input rows by id: the tasks."""
    extra_tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Tasks for trajectory rows no input precedes ("session-<id>", "unattached")."""
    step_task: dict[int, Id] = field(default_factory=dict)
    task_steps: dict[Id, list[int]] = field(default_factory=dict)
    step_errors: dict[int, bool] = field(default_factory=dict)
    last_step_time: dict[Id, datetime | None] = field(default_factory=dict)
    step_bytes: dict[int, int] = field(default_factory=dict)
    """Bytes of each trajectory row's payload (PAYLOAD columns, as stored): a session's "Stored"."""
    items: list[MemoryItem] = field(default_factory=list)


class RaAidSource(IndexedSource[RaAidIndex], LiveWatch, MemoryItems):
    """An RA.Aid project database, opened read-only."""

    kind = "ra-aid"
    label = "RA.Aid"
    capabilities = frozenset({Capability.ITEMS, Capability.CURATE, Capability.EDIT_MEMORY, Capability.LIVE})

    def watched_databases(self) -> list[Path]:
        return [Path(self.path)]

    def watched_files(self) -> list[Path]:
        return []  # pk.db and its log are watched as a database

    def __init__(self, path: Path) -> None:
        path = Path(path)
        if path.is_dir():
            path = path / "pk.db"
        if not path.is_file():
            raise NotAStore(f"no RA.Aid database at {path}")
        super().__init__(path)

    # -- loading ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            return connect_readonly(self.path)
        except sqlite3.DatabaseError as exc:
            raise NotAStore(f"{self.path}: {exc}") from exc

    def build_index(self) -> RaAidIndex:
        ix = RaAidIndex()
        conn = self._connect()
        try:
            present = table_names(conn)
            for table in TABLES:
                if table not in present:
                    ix.problems.append(Problem(str(self.path), None, f"table {table!r} is missing"))
            ix.counts = {
                t: (conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] if t in present else 0)
                for t in TABLES
            }
            self._read(ix, conn, present)
        except sqlite3.DatabaseError as exc:
            raise NotAStore(f"{self.path}: {exc}") from exc
        finally:
            conn.close()
        return ix

    def _rows(self, ix: RaAidIndex, conn, table: str, present: set[str], wanted: Sequence[str]) -> list[dict]:
        if table not in present:
            return []
        have = _columns(conn, table)
        cols = ", ".join(f'"{c}"' if c in have else f'NULL AS "{c}"' for c in wanted)
        rows = (typed_row(table, dict(row), self.path, ix.problems, ix.reported)
                for row in conn.execute(f'SELECT {cols} FROM "{table}" ORDER BY id'))
        return [row for row in rows if row is not None]

    @staticmethod
    def _payload_bytes(conn: sqlite3.Connection, present: set[str]) -> dict[int, int]:
        """Each trajectory row's payload bytes as stored (the sessions share pk.db: no file of
        their own measures them)."""
        if "trajectory" not in present:
            return {}
        have = [c for c in PAYLOAD if c in _columns(conn, "trajectory")]
        if not have:
            return {}
        size = " + ".join(f'COALESCE(length(CAST("{c}" AS BLOB)), 0)' for c in have)
        return {row[0]: row[1] for row in conn.execute(f'SELECT id, {size} FROM "trajectory"') if isinstance(row[0], int)}

    def _read(self, ix: RaAidIndex, conn: sqlite3.Connection, present: set[str]) -> None:
        ix.sessions_raw = self._rows(
            ix, conn, "session", present,
            ["id", "created_at", "updated_at", "start_time", "command_line", "program_version", "status"],
        )
        inputs = self._rows(ix, conn, "human_input", present, ["id", "created_at", "content", "source", "session_id"])
        traj = self._rows(ix, conn, "trajectory", present, ["id", "created_at", "human_input_id", "session_id", "is_error", "record_type"])
        starts = sorted(
            ((parse_time(s["start_time"] or s["created_at"]), s["id"]) for s in ix.sessions_raw),
            key=lambda pair: sort_key(pair[0]),
        )

        def session_at(when: datetime | None) -> int | None:
            found = None
            for start, sid in starts:
                if start is not None and when is not None and sort_key(start) <= sort_key(when):
                    found = sid
            return found

        via_traj: dict[int, int] = {}
        for row in traj:
            if row["human_input_id"] is not None and row["session_id"] is not None:
                via_traj.setdefault(row["human_input_id"], row["session_id"])
        ix.inputs = {}
        for row in inputs:
            created = parse_time(row["created_at"])
            sid = via_traj.get(row["id"], row["session_id"])
            if sid is None:
                sid = session_at(created)
            ix.inputs[row["id"]] = RaAidInput(row["id"], row["content"] or "", row["source"] or "", created, sid)
        # RA.Aid's "current human input": the newest row by created_at in the whole DB.
        newest = max(ix.inputs.values(), key=lambda i: (sort_key(i.created_at), i.id), default=None)
        ix.current_input_id = newest.id if newest else None

        # Trajectory rows without an input (model_usage, file_write) belong to the latest
        # input of their session that precedes them; failing that, to the session itself.
        by_session: dict[int | None, list[RaAidInput]] = {}
        for inp in ix.inputs.values():
            by_session.setdefault(inp.session_id, []).append(inp)
        ix.extra_tasks = {}
        ix.step_task = {}
        ix.task_steps = {}
        ix.step_errors = {}
        for row in traj:
            task_id: Id | None = row["human_input_id"] if row["human_input_id"] in ix.inputs else None
            if task_id is None:
                when = parse_time(row["created_at"])
                candidates = [i for i in by_session.get(row["session_id"], []) if sort_key(i.created_at) <= sort_key(when)]
                if candidates:
                    task_id = max(candidates, key=lambda i: (sort_key(i.created_at), i.id)).id
                else:
                    sid = row["session_id"]
                    task_id = f"session-{sid}" if sid is not None else "unattached"
                    extra = ix.extra_tasks.setdefault(task_id, {"session_id": sid, "created_at": when})
                    extra["updated_at"] = when
            ix.step_task[row["id"]] = task_id
            ix.task_steps.setdefault(task_id, []).append(row["id"])
            ix.step_errors[row["id"]] = bool(row["is_error"]) or row["record_type"] == "error"
        ix.step_bytes = self._payload_bytes(conn, present)
        ix.last_step_time = {}
        times = {row["id"]: parse_time(row["created_at"]) for row in traj}
        for task_id, ids in ix.task_steps.items():
            ix.last_step_time[task_id] = times.get(ids[-1])

        ix.items = []
        for kind, table in ITEM_TABLES.items():
            wanted = ["id", "created_at", "human_input_id", "session_id"]
            wanted += ["filepath", "line_number", "snippet", "description"] if kind == "snippet" else ["content"]
            for row in self._rows(ix, conn, table, present, wanted):
                hi = row["human_input_id"]
                inp = ix.inputs.get(hi) if hi is not None else None
                ix.items.append(
                    MemoryItem(
                        id=row["id"],
                        kind=kind,
                        content=(row.get("snippet") if kind == "snippet" else row.get("content")) or "",
                        created_at=parse_time(row["created_at"]),
                        filepath=row.get("filepath"),
                        line_number=row.get("line_number"),
                        description=row.get("description"),
                        task_id=hi,
                        session_id=row["session_id"] if row["session_id"] is not None else (inp.session_id if inp else None),
                        protected=hi is not None and hi == ix.current_input_id,
                    )
                )

    # -- read model ------------------------------------------------------------------------
    @property
    def current_input_id(self) -> int | None:
        """RA.Aid's "current human input": the newest row by created_at in the whole DB."""
        return self.index().current_input_id

    def sessions(self) -> list[SessionInfo]:
        ix = self.index()
        out = []
        for s in ix.sessions_raw:
            tasks = self._tasks(ix, s["id"])
            created = parse_time(s["start_time"]) or parse_time(s["created_at"]) or datetime.min
            updated = max([created, parse_time(s["updated_at"]) or created] + [t.updated_at for t in tasks if t.updated_at], key=sort_key)
            first = next((t for t in tasks if isinstance(t.id, int)), None)
            title = first.title if first else preview(s["command_line"] or f"session {s['id']}")
            out.append(
                SessionInfo(
                    id=s["id"],
                    title=title,
                    status="open" if s["status"] in SESSION_OPEN else "closed",
                    current_task_id=tasks[-1].id if tasks else None,
                    created_at=created,
                    updated_at=updated,
                    task_count=len(tasks),
                    stored_bytes=sum(ix.step_bytes.get(step, 0) for t in tasks for step in ix.task_steps.get(t.id, [])),
                )
            )
        return sorted(out, key=lambda x: sort_key(x.updated_at), reverse=True)  # newest first, as every store

    def _task_info(self, ix: RaAidIndex, task_id: Id) -> TaskInfo:
        steps = ix.task_steps.get(task_id, [])
        failed = bool(steps) and ix.step_errors.get(steps[-1], False)
        if isinstance(task_id, int):
            inp = ix.inputs[task_id]
            updated = ix.last_step_time.get(task_id) or inp.created_at
            return TaskInfo(
                id=inp.id,
                session_id=inp.session_id,
                title=preview(inp.content),
                status="failed" if failed else "completed",
                summary=f"source: {inp.source}",
                created_at=inp.created_at,
                updated_at=updated,
                finished_at=updated,
                step_count=len(steps),
            )
        extra = ix.extra_tasks[task_id]
        return TaskInfo(
            id=task_id,
            session_id=extra["session_id"],
            title="(activity without a human input)",
            status="failed" if failed else "completed",
            created_at=extra["created_at"],
            updated_at=extra.get("updated_at"),
            step_count=len(steps),
        )

    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        return self._tasks(self.index(), session_id)

    def _tasks(self, ix: RaAidIndex, session_id: Id | None) -> list[TaskInfo]:
        ids: list[Id] = [i.id for i in ix.inputs.values() if i.session_id == session_id]
        ids += [t for t, extra in ix.extra_tasks.items() if extra["session_id"] == session_id]
        infos = [self._task_info(ix, t) for t in ids]
        return sorted(infos, key=lambda t: (sort_key(t.created_at), str(t.id)))

    def task(self, task_id: Id) -> TaskInfo:
        ix = self.index()
        if task_id in ix.inputs or task_id in ix.extra_tasks:
            return self._task_info(ix, task_id)
        raise UnknownId(f"no human input #{task_id} in {self.path}")

    def step(self, step_id: Id) -> StepInfo:
        """A trajectory row by id: its task from the index, then that one row read."""
        ix = self.index()
        key = int(step_id) if str(step_id).isdigit() else -1
        task_id = ix.step_task.get(key)
        if task_id is None:
            raise UnknownId(f"no trajectory row #{step_id} in {self.path}")
        found = self.steps(task_id, ix.task_steps[task_id].index(key), 1)
        if not found:
            raise UnknownId(f"no trajectory row #{step_id} in {self.path}")
        return found[0]

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        ix = self.index()
        ids = page(ix.task_steps.get(task_id, []), offset, limit)
        if not ids:
            return []
        conn = self._connect()
        try:
            wanted = ["id", "created_at", "tool_name", "tool_parameters", "tool_result", "step_data",
                      "record_type", "current_cost", "input_tokens", "output_tokens", "is_error",
                      "error_message", "error_type"]
            have = _columns(conn, "trajectory")
            cols = ", ".join(f'"{c}"' if c in have else f'NULL AS "{c}"' for c in wanted)
            marks = ", ".join("?" for _ in ids)
            rows = {r["id"]: typed_row("trajectory", dict(r), self.path, ix.problems, ix.reported)
                    for r in conn.execute(f"SELECT {cols} FROM trajectory WHERE id IN ({marks})", ids)}
        finally:
            conn.close()
        out = []
        for seq, sid in enumerate(ids, start=offset + 1):  # numbered from 1
            r = rows.get(sid)
            if r is None:
                continue
            error = None
            if r["is_error"] or r["record_type"] == "error":
                error = ": ".join(x for x in (r["error_type"], r["error_message"]) if x) or "error"
            result = _json(r["tool_result"])
            if result is None:
                result = _json(r["step_data"])
            out.append(
                StepInfo(
                    id=sid,
                    task_id=task_id,
                    seq=seq,
                    tool=r["tool_name"] or r["record_type"] or "step",
                    args=_json(r["tool_parameters"]),
                    result=result,
                    status="error" if error else "ok",
                    error=error,
                    tokens_in=r["input_tokens"] or 0,
                    tokens_out=r["output_tokens"] or 0,
                    cost=r["current_cost"] or 0.0,
                    created_at=parse_time(r["created_at"]),
                )
            )
        return out

    def messages(self, task_id: Id) -> list[MessageInfo]:
        ix = self.index()
        inp = ix.inputs.get(task_id) if isinstance(task_id, int) else None
        if inp is None:
            return []
        return [MessageInfo(id=inp.id, task_id=inp.id, role=f"user ({inp.source})", content=inp.content, created_at=inp.created_at)]

    def memory_items(self, kind: str | None = None) -> list[MemoryItem]:
        """Key facts, key snippets and research notes (`kind` "fact" | "snippet" | "note")."""
        return [item for item in self.index().items if kind is None or item.kind == kind]
