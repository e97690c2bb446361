"""OpenCode 1.18's SQLite store, `opencode.db`, read-only (never a byte written, no -wal/-shm
created: memtui.core.sqlite_readonly).

Mapping: a `session` row → a session (its title); each user `message` → a task (its text
parts are the prompt); the `part`s of the assistant messages answering it (`parentID`) →
steps: `text` → a reply, `tool` → a tool call (name, input, output or error), `step-finish`
→ the tokens of the model call (input, output, reasoning, cache read/write), added to the
last step of its message; `step-start` and `patch` only mark OpenCode's snapshots. A part of
any other type is counted (`unknown_records`) and reported as a problem, never dropped
silently. A `write` or `edit` tool call → a checkpoint with one entry: a write's after is its
input's content (its before unknown when the file existed); an edit's before/after come from
OpenCode's snapshot store (`snapshot/<project>/<hash>/`, a git object store whose loose objects are read
with zlib) at the model step's start and finish snapshots, each side where it holds it (the
workspace's own objects, named by `alternates`, may be gone); a side it does not hold is
unknown (`before_known` false) and the entry carries OpenCode's recorded diff.

A change whose both sides are known rolls back under the directory its session recorded, or
under --root: the rollback engine checks containment and conflicts, writes atomically and keeps
the undo in memtui's state folder (memtui.core.sources.transcript_undo); nothing is written into
OpenCode's database or snapshot store.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memtui.core.agents.opencode.snapshots import fill_from_snapshots, snapshot_repos
from memtui.core.memory_source import Capability, LiveWatch, ResumeHooks, RollbackHooks, UnknownId
from memtui.core.model import CheckpointInfo, Id, Problem, ResumeCommand, SessionInfo, StepInfo, TaskInfo
from memtui.core.usage.tokens import Tokens
from memtui.core.sources.base import ContentUnknown, Index, IndexedSource, SourceEntryInfo, page, preview
from memtui.core.sources.transcript_root import restore_note
from memtui.core.sources.transcript_undo import UndoRecorder
from memtui.core.sqlite_readonly import connect_readonly, is_sqlite, table_names

DB_NAME = "opencode.db"
TABLES = {"session", "message", "part"}
KNOWN_PARTS = {"text", "tool", "step-start", "step-finish", "patch", "reasoning"}
EDIT_TOOLS = {"write", "edit"}


def looks_like_opencode_db(path: Path) -> bool:
    """An SQLite file holding OpenCode's session, message and part tables."""
    if not is_sqlite(path):
        return False
    try:
        conn = connect_readonly(path)
        try:
            return TABLES <= table_names(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def _time(ms: Any) -> datetime | None:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc) if isinstance(ms, (int, float)) else None


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _json(text: Any) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except (json.JSONDecodeError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class Change:
    step_id: str
    path: str  # as recorded (absolute)
    kind: str
    before: bytes | None
    after: bytes | None
    before_known: bool
    after_known: bool
    reason: str
    diff: str | None


@dataclass
class Task:
    info: TaskInfo
    steps: list[StepInfo] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


@dataclass
class OpenCodeIndex(Index):
    sessions: dict[str, SessionInfo] = field(default_factory=dict)
    session_dirs: dict[str, str] = field(default_factory=dict)
    order: dict[str, list[str]] = field(default_factory=dict)  # session → its task ids in order
    tasks: dict[str, Task] = field(default_factory=dict)
    steps: dict[str, StepInfo] = field(default_factory=dict)
    changes: dict[str, tuple[str, Change]] = field(default_factory=dict)  # step id → (task id, change)


READING = frozenset({Capability.DIFF, Capability.RESUME, Capability.LIVE})
CLEANUP_REFUSAL = ("OpenCode keeps every session in one SQLite database (opencode.db), not in a file per session:"
                   " archiving one would mean writing into OpenCode's database, which memtui never does;"
                   " `memtui stats PATH` shows what the database holds")


class OpenCodeSource(UndoRecorder, IndexedSource[OpenCodeIndex], RollbackHooks, ResumeHooks, LiveWatch):
    """The sessions of one OpenCode database (of one workspace when `workspace_filter` is set)."""

    kind = "opencode"
    label = "OpenCode"
    workspace: Path | None = None  # the --root folder (with_root), where recorded paths are restored

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """Diffs, resume, following; rollback when a folder to restore under is on this machine
        (the --root given, or a session's recorded directory)."""
        if self.workspace is not None:
            here = Path(self.workspace).is_dir()
        else:
            ix = self.index()
            known = self.__dict__.get("_folders_of")
            if known is None or known[0] is not ix:  # asked at every key the footer shows: once per index
                known = self._folders_of = (ix, any(Path(d).is_dir() for d in ix.session_dirs.values() if d))
            here = known[1]
        return READING | {Capability.ROLLBACK} if here else READING

    def instead(self, capability: Capability) -> str:
        if capability is Capability.CLEANUP:
            return CLEANUP_REFUSAL
        if capability is Capability.ROLLBACK and capability not in self.withheld:
            return ("its sessions worked in folders that are not on this machine; open this store with --root DIR"
                    " (memtui PATH --root DIR) to restore into a copy of the project")
        return super().instead(capability)

    def __init__(self, db: Path, workspace_filter: Path | None = None) -> None:
        db = Path(db)
        super().__init__(db.parent)
        self.db = db
        self.workspace_filter = os.path.realpath(workspace_filter) if workspace_filter else None

    def close(self) -> None:
        pass

    def sqlite_files(self) -> list[Path]:
        """opencode.db, for `memtui stats` (read-only)."""
        return [self.db]

    def watched_files(self) -> list[Path]:
        """The database and its write-ahead log (stat only: a commit changes one of them)."""
        return [self.db, self.db.with_name(self.db.name + "-wal")]

    # -- index -------------------------------------------------------------------------------
    def build_index(self) -> OpenCodeIndex:
        ix = OpenCodeIndex()
        try:
            conn = connect_readonly(self.db)
        except sqlite3.Error as exc:
            ix.problems.append(Problem(str(self.db), None, f"cannot open: {exc}"))
            return ix
        try:
            self._read(conn, ix)
        except sqlite3.Error as exc:
            ix.problems.append(Problem(str(self.db), None, f"cannot read: {exc}"))
        finally:
            conn.close()
        return ix

    def _read(self, conn: sqlite3.Connection, ix: OpenCodeIndex) -> None:
        worktrees = {}
        if "project" in table_names(conn):
            worktrees = {r["id"]: r["worktree"] for r in conn.execute("SELECT id, worktree FROM project")}
        counts = {"sessions": 0, "tasks": 0, "steps": 0, "unknown_records": 0}
        unknown: dict[str, int] = {}
        for s in conn.execute("SELECT id, project_id, directory, title, time_created, time_updated FROM session "
                              "ORDER BY time_created"):
            if self.workspace_filter and os.path.realpath(s["directory"] or "") != self.workspace_filter:
                continue
            sid = s["id"]
            ix.session_dirs[sid] = s["directory"]
            ix.order[sid] = []
            messages = list(conn.execute("SELECT id, time_created, data FROM message WHERE session_id = ? "
                                         "ORDER BY time_created, id", (sid,)))
            parts: dict[str, list[dict]] = {}
            for p in conn.execute("SELECT message_id, data FROM part WHERE session_id = ? ORDER BY id", (sid,)):
                parts.setdefault(p["message_id"], []).append(_json(p["data"]))
            snapshots = snapshot_repos(self.path, s["project_id"])
            task: Task | None = None
            for m in messages:
                data = _json(m["data"])
                mine = parts.get(m["id"], [])
                if data.get("role") == "user":
                    text = "\n".join(str(p.get("text", "")) for p in mine if p.get("type") == "text" and not p.get("synthetic"))
                    created = _time(m["time_created"])
                    task = Task(TaskInfo(id=m["id"], session_id=sid, title=preview(text) or m["id"], status="completed",
                                         summary=text, created_at=created, updated_at=created, finished_at=created))
                    ix.tasks[m["id"]] = task
                    ix.order[sid].append(m["id"])
                    for p in mine:
                        if p.get("type") not in KNOWN_PARTS:
                            unknown[str(p.get("type"))] = unknown.get(str(p.get("type")), 0) + 1
                    continue
                if task is None:
                    continue
                model = str(data.get("modelID") or "")
                start_snapshot = None
                pending: list[Change] = []
                for p in mine:
                    kind = p.get("type")
                    if kind == "step-start":
                        start_snapshot = p.get("snapshot")
                    elif kind == "patch":
                        pass
                    elif kind == "text":
                        self._add(ix, task, sid, "reply", None, p.get("text"), "ok", None, model, m["time_created"])
                    elif kind == "reasoning":
                        self._add(ix, task, sid, "reasoning", None, p.get("text"), "ok", None, model, m["time_created"])
                    elif kind == "tool":
                        state = _dict(p.get("state"))
                        status = state.get("status")
                        error = state.get("error") if status == "error" else None
                        meta = _dict(state.get("metadata"))
                        code = meta.get("exit") if p.get("tool") == "bash" else None
                        if isinstance(code, int) and code != 0:
                            error = error or f"exit code {code}"
                        timing = _dict(state.get("time"))
                        step = self._add(ix, task, sid, str(p.get("tool") or "tool"), state.get("input"),
                                         state.get("output", error), "error" if error else ("ok" if status == "completed" else "no result"),
                                         str(error) if error else None, model, timing.get("start") or m["time_created"])
                        if p.get("tool") in EDIT_TOOLS and status == "completed":
                            change = self._change(str(step.id), str(p.get("tool")), state, meta)
                            pending.append(change)
                            ix.changes[str(step.id)] = (str(task.info.id), change)
                            task.changes.append(change)
                    elif kind == "step-finish":
                        tokens = _dict(p.get("tokens"))
                        cache = _dict(tokens.get("cache"))
                        reasoning = int(tokens.get("reasoning") or 0)  # OpenCode counts it apart from output
                        usage = Tokens(input=int(tokens.get("input") or 0), output=int(tokens.get("output") or 0) + reasoning,
                                       cache_read=int(cache.get("read") or 0), cache_write_5m=int(cache.get("write") or 0),
                                       reasoning=reasoning)
                        if not task.steps or task.steps[-1].tokens_in or task.steps[-1].tokens_out or task.steps[-1].usage:
                            self._add(ix, task, sid, "reply", None, "", "ok", None, model, m["time_created"])
                        last = task.steps[-1]
                        last = replace(last, tokens_in=usage.input, tokens_out=usage.output, usage=usage)
                        task.steps[-1] = last
                        ix.steps[str(last.id)] = last
                        for change in pending:
                            fill_from_snapshots(change, snapshots, worktrees.get(s["project_id"]),
                                                      start_snapshot, p.get("snapshot"))
                        pending = []
                    else:
                        unknown[str(kind)] = unknown.get(str(kind), 0) + 1
                done = _time((data.get("time") or {}).get("completed")) if isinstance(data.get("time"), dict) else None
                if done:
                    task.info = TaskInfo(**{**task.info.__dict__, "updated_at": done, "finished_at": done})
            for tid in ix.order[sid]:
                t = ix.tasks[tid]
                t.info = TaskInfo(**{**t.info.__dict__, "step_count": len(t.steps), "checkpoint_count": len(t.changes)})
            first = ix.tasks[ix.order[sid][0]].info.title if ix.order[sid] else sid
            created = _time(s["time_created"]) or datetime.fromtimestamp(0, tz=timezone.utc)
            ix.sessions[sid] = SessionInfo(id=sid, title=s["title"] or first, status="unknown",
                                           current_task_id=ix.order[sid][-1] if ix.order[sid] else None,
                                           created_at=created, updated_at=_time(s["time_updated"]) or created,
                                           task_count=len(ix.order[sid]))
        counts["sessions"] = len(ix.sessions)
        counts["tasks"] = len(ix.tasks)
        counts["steps"] = len(ix.steps)
        counts["unknown_records"] = sum(unknown.values())
        ix.counts = counts
        for kind, n in sorted(unknown.items()):
            ix.problems.append(Problem(str(self.db), None, f"{n} part(s) of unknown type {kind!r} not read"))

    def _add(self, ix: OpenCodeIndex, task: Task, sid: str, tool: str, args: Any, result: Any, status: str,
             error: str | None, model: str, at: Any) -> StepInfo:
        seq = len(task.steps) + 1
        step = StepInfo(id=f"{task.info.id}:{seq}", task_id=task.info.id, seq=seq, tool=tool, args=args, result=result,
                        status=status, error=error, created_at=_time(at), model=model,
                        checkpoint_id=f"{task.info.id}:{seq}" if tool in EDIT_TOOLS and status == "ok" else None)
        task.steps.append(step)
        ix.steps[str(step.id)] = step
        return step

    @staticmethod
    def _change(step_id: str, tool: str, state: dict, meta: dict) -> Change:
        args = _dict(state.get("input"))
        path = str(args.get("filePath") or meta.get("filepath") or "")
        filediff = _dict(meta.get("filediff"))
        diff = meta.get("diff") or filediff.get("patch")
        if tool == "write":
            content = args.get("content")
            after = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else None
            if meta.get("exists") is False:
                return Change(step_id, path, "added", None, after, True, after is not None, "", diff)
            return Change(step_id, path, "modified", None, after, False, after is not None,
                          "OpenCode did not record the file's content before the write", diff)
        return Change(step_id, path, "modified", None, None, False, False,
                      "OpenCode records an edit's strings and diff, not the whole file", diff)

    # -- read model --------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        return sorted(self.index().sessions.values(), key=lambda s: s.updated_at, reverse=True)

    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        ix = self.index()
        ids = ix.order.get(str(session_id), []) if session_id is not None else []  # every task has its session
        return [ix.tasks[t].info for t in ids]

    def task(self, task_id: Id) -> TaskInfo:
        return self.found(self.index().tasks, task_id, "task").info

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        return page(self.found(self.index().tasks, task_id, "task").steps, offset, limit)

    def step(self, step_id: Id) -> StepInfo:
        return self.found(self.index().steps, step_id, "step")

    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        task = self.found(self.index().tasks, task_id, "task")
        return [CheckpointInfo(id=c.step_id, task_id=task.info.id, step_id=c.step_id,
                               created_at=self.index().steps[c.step_id].created_at, entry_count=1)
                for c in task.changes] + self.undo_checkpoints(task.info.id)

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        if self.is_undo(checkpoint_id):
            return self.undo_checkpoint(checkpoint_id)
        task_id, change = self.found(self.index().changes, checkpoint_id, "checkpoint")
        return CheckpointInfo(id=change.step_id, task_id=task_id, step_id=change.step_id,
                              created_at=self.index().steps[change.step_id].created_at, entry_count=1)

    def _relative(self, change: Change, session_id: Id | None) -> str:
        cwd = self.index().session_dirs.get(str(session_id)) if session_id is not None else None
        if cwd and change.path.startswith(cwd.rstrip("/") + "/"):
            return change.path[len(cwd.rstrip("/")) + 1:]
        return change.path

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        if self.is_undo(checkpoint_id):
            return self.undo_entries(checkpoint_id)
        task_id, c = self.found(self.index().changes, checkpoint_id, "checkpoint")
        session_id = self.index().tasks[task_id].info.session_id
        return [SourceEntryInfo(id=f"{c.step_id}:0", checkpoint_id=c.step_id, path=self._relative(c, session_id),
                                kind=c.kind, before_size=len(c.before) if c.before is not None else None,
                                after_size=len(c.after) if c.after is not None else None,
                                before_known=c.before_known, after_known=c.after_known,
                                unknown_reason=c.reason, diff=c.diff)]

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        if self.is_undo(entry_id):
            return self.undo_entry(entry_id)
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        if not str(entry_id).endswith(":0") or checkpoint_id not in self.index().changes:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        return self.checkpoint_entries(checkpoint_id)[0]

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) where OpenCode's records hold them (an unknown side is None: see the
        entry's `before_known`/`after_known`); ContentUnknown when neither is (the entry's diff
        holds the change). A rollback restores only an entry whose both sides are known."""
        if self.is_undo(entry_id):
            return self.undo_read(entry_id)
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        found = self.index().changes.get(checkpoint_id)
        if found is None or not str(entry_id).endswith(":0"):
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        c = found[1]
        if not (c.before_known or c.after_known):
            raise ContentUnknown(f"{c.path}: {c.reason}")
        return c.before, c.after

    # -- rollback and resume --------------------------------------------------------------------
    def workspace_root(self, task_id: Id) -> Path | None:
        """The directory the task's session recorded (its change paths are relative to it)."""
        task = self.index().tasks.get(str(task_id))
        cwd = self.index().session_dirs.get(str(task.info.session_id)) if task is not None else None
        return Path(cwd) if cwd else None

    def recorded_cwds(self) -> frozenset[str]:
        return frozenset(d for d in self.index().session_dirs.values() if d)

    def rollback_note(self, task_id: Id, root: Path) -> str:
        recorded = self.recorded_cwds()
        return restore_note(root, self.workspace, Path(next(iter(recorded))) if len(recorded) == 1 else None,
                            self.workspace_root(task_id))

    def resume_command(self, session_id: Id) -> ResumeCommand:
        cwd = self.index().session_dirs.get(str(session_id))
        return ResumeCommand(("opencode", "--session", str(session_id)), Path(cwd) if cwd else None)
