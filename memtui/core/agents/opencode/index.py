"""OpenCode 1.18's `opencode.db` read into memtui's index (read-only: the caller's connection is
memtui.core.sqlite_readonly's).

Mapping: a `session` row → a session (its title); each user `message` → a task (its text
parts are the prompt); the `part`s of the assistant messages answering it → steps: `text` → a
reply, `reasoning` → a reasoning step, `tool` → a tool call (name, input, output or error),
`step-finish` → the tokens of the model call (input, output, reasoning, cache read/write), added
to the last step of its message; `step-start` and `patch` only mark OpenCode's snapshots. A part
of any other type is counted (`unknown_records`) and reported as a problem, never dropped
silently. A `write` or `edit` tool call → a checkpoint with one entry: a write's after is its
input's content (its before unknown when the file existed); an edit's before/after come from
OpenCode's snapshot store (memtui.core.agents.opencode.snapshots) at the model step's start and
finish, each side where it holds it; a side it does not hold is unknown (`before_known` false)
and the entry carries OpenCode's recorded diff.

A session's `files_key` is a digest of its rows and its sub-agents' (the session, message and
part rows as stored): it changes when OpenCode writes to that session, not when it writes to
another (its sessions share one file), so what is kept per session (usage, search) is kept.
Its `stored_bytes` (the sessions pane's "Stored") are the bytes of those message and part rows'
data, as stored: the sessions share one database file, so no file of its own measures them.

Sub-agents: a `task` tool call runs a sub-agent in a session of its own whose `parent_id` names
the calling session (the call's `metadata.sessionId` names it back). Its tasks are listed in the
top session, right after the task that handed them the work (a "handoff" reference), not as a
session of their own.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memtui.core.agents.opencode.snapshots import fill_from_snapshots, snapshot_repos
from memtui.core.model import Id, Problem, SessionInfo, StepInfo, TaskInfo
from memtui.core.sources.base import Index, preview
from memtui.core.sources.fields import loads
from memtui.core.sqlite_readonly import table_names
from memtui.core.usage.tokens import Tokens

KNOWN_PARTS = {"text", "tool", "step-start", "step-finish", "patch", "reasoning"}
EDIT_TOOLS = {"write", "edit"}


def _time(ms: Any) -> datetime | None:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc) if isinstance(ms, (int, float)) else None


def _size(data: Any) -> int:
    """Bytes of a row's `data` as stored (TEXT in UTF-8, or a BLOB)."""
    if isinstance(data, str):
        return len(data.encode("utf-8", "surrogateescape"))
    return len(data) if isinstance(data, bytes) else 0


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _json(text: Any) -> dict:
    try:
        value = loads(text) if isinstance(text, str) else None
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
    order: dict[str, list[str]] = field(default_factory=dict)  # session → its task ids (sub-agents' nested)
    tasks: dict[str, Task] = field(default_factory=dict)
    steps: dict[str, StepInfo] = field(default_factory=dict)
    changes: dict[str, tuple[str, Change]] = field(default_factory=dict)  # step id → (task id, change)
    handoffs: dict[str, list[str]] = field(default_factory=dict)  # task id → its sub-agents' task ids


def read_index(conn: sqlite3.Connection, folder: Path, db: Path, workspace_filter: str | None) -> OpenCodeIndex:
    """The index of OpenCode's database `db` in its data `folder` (of the sessions that ran in
    `workspace_filter` only, when given)."""
    reader = _Reader(conn, folder, db)
    reader.read(workspace_filter)
    return reader.ix


class _Reader:
    def __init__(self, conn: sqlite3.Connection, folder: Path, db: Path) -> None:
        self.conn, self.folder, self.db = conn, folder, db
        self.ix = OpenCodeIndex()
        self.unknown: dict[str, int] = {}
        self.own: dict[str, list[str]] = {}  # session → its own task ids
        self.spawned: dict[str, str] = {}  # sub-agent session → the task whose call started it
        self._snapshots: dict[str, list[Path]] = {}  # project → its snapshot repositories
        self.digests: dict[str, Any] = {}  # listed session → a digest of its rows and its sub-agents'
        self.sizes: dict[str, int] = {}  # listed session → bytes of its and its sub-agents' message and part data

    def read(self, workspace_filter: str | None) -> None:
        ix, conn = self.ix, self.conn
        worktrees = {}
        if "project" in table_names(conn):
            worktrees = {r["id"]: r["worktree"] for r in conn.execute("SELECT id, worktree FROM project")}
        columns = {r[1] for r in conn.execute("PRAGMA table_info(session)")}
        parent = "parent_id" if "parent_id" in columns else "NULL"
        rows = [s for s in conn.execute(f"SELECT id, project_id, directory, title, time_created, time_updated, {parent}"
                                        " AS parent_id FROM session ORDER BY time_created")
                if not workspace_filter or os.path.realpath(s["directory"] or "") == workspace_filter]
        by_id = {s["id"]: s for s in rows}
        top = {s["id"]: self._top(s["id"], by_id) for s in rows}
        for s in rows:
            ix.session_dirs[s["id"]] = s["directory"]
            self._session(s, top[s["id"]], worktrees.get(s["project_id"]))
        children: dict[str, list[str]] = {}  # task → the sub-agent sessions it started
        for child, parent_task in self.spawned.items():
            children.setdefault(parent_task, []).append(child)
        of_session: dict[Id | None, list[str]] = {}
        for task_id, task in ix.tasks.items():
            of_session.setdefault(task.info.session_id, []).append(task_id)
        for s in rows:
            if top[s["id"]] == s["id"]:
                self._listed(s, children, of_session.get(s["id"], []))
        ix.counts = {"sessions": len(ix.sessions), "tasks": len(ix.tasks), "steps": len(ix.steps),
                     "unknown_records": sum(self.unknown.values())}
        if len(rows) > len(ix.sessions):
            ix.counts["subagent_sessions"] = len(rows) - len(ix.sessions)
        for kind, n in sorted(self.unknown.items()):
            ix.problems.append(Problem(str(self.db), None, f"{n} part(s) of unknown type {kind!r} not read"))

    @staticmethod
    def _top(sid: str, by_id: dict[str, Any]) -> str:
        """The session a sub-agent's session is listed in: its topmost parent read here (itself
        when its parents loop back to it: a damaged database still shows every session)."""
        seen, here = {sid}, sid
        while by_id[here]["parent_id"] in by_id:
            here = by_id[here]["parent_id"]
            if here in seen:
                return sid
            seen.add(here)
        return here

    def _listed(self, s: Any, children: dict[str, list[str]], listed_here: list[str]) -> None:
        """The top session `s`, its tasks in order with each task's sub-agents right after it
        (`children`: the sub-agent sessions each task started; `listed_here`: the tasks listed
        in `s`, in the order read)."""
        ix = self.ix
        sid = s["id"]
        order: list[str] = []

        def emit(task_id: str) -> None:
            order.append(task_id)
            for child in children.get(task_id, []):
                subs = [t for t in self.own.get(child, []) if ix.tasks[t].info.session_id == sid]  # listed here
                ix.handoffs.setdefault(task_id, []).extend(subs)
                for sub in subs:
                    emit(sub)

        for task_id in self.own.get(sid, []):
            emit(task_id)
        emitted = set(order)
        stray = [t for t in listed_here if t not in emitted]
        order += stray  # a sub-agent whose calling task is not known: still in its session
        ix.order[sid] = order
        first = ix.tasks[order[0]].info.title if order else sid
        created = _time(s["time_created"]) or datetime.fromtimestamp(0, tz=timezone.utc)
        prompts = self.own.get(sid) or order  # the current task is the last prompt, not a sub-agent's
        digest = self.digests.get(sid)
        ix.sessions[sid] = SessionInfo(id=sid, title=s["title"] or first, status="unknown",
                                       current_task_id=prompts[-1] if prompts else None, created_at=created,
                                       updated_at=_time(s["time_updated"]) or created, task_count=len(order),
                                       current_title=ix.tasks[prompts[-1]].info.title if prompts else "",
                                       stored_bytes=self.sizes.get(sid, 0),
                                       files_key=digest.hexdigest() if digest is not None else "")

    def _session(self, s: Any, listed_in: str, worktree: str | None) -> None:
        ix, conn = self.ix, self.conn
        sid = s["id"]
        self.own[sid] = []
        messages = list(conn.execute("SELECT id, time_created, data FROM message WHERE session_id = ? "
                                     "ORDER BY time_created, id", (sid,)))
        parts: dict[str, list[dict]] = {}
        digest = self.digests.setdefault(listed_in, hashlib.blake2b(digest_size=16))
        digest.update(f"{sid}\0{s['title']}\0{s['time_updated']}\0".encode("utf-8", "surrogateescape"))
        size = 0
        for m in messages:
            digest.update(f"{m['id']}\0{m['data']}\0".encode("utf-8", "surrogateescape"))
            size += _size(m["data"])
        for p in conn.execute("SELECT message_id, data FROM part WHERE session_id = ? ORDER BY id", (sid,)):
            parts.setdefault(p["message_id"], []).append(_json(p["data"]))
            digest.update(f"{p['message_id']}\0{p['data']}\0".encode("utf-8", "surrogateescape"))
            size += _size(p["data"])
        self.sizes[listed_in] = self.sizes.get(listed_in, 0) + size
        snapshots = self._snapshots.get(s["project_id"])
        if snapshots is None:
            snapshots = self._snapshots[s["project_id"]] = snapshot_repos(self.folder, s["project_id"])
        note = f"sub-agent: {s['title']}" if listed_in != sid and s["title"] else ""
        task: Task | None = None
        for m in messages:
            data = _json(m["data"])
            mine = parts.get(m["id"], [])
            if data.get("role") == "user":
                text = "\n".join(str(p.get("text", "")) for p in mine if p.get("type") == "text" and not p.get("synthetic"))
                created = _time(m["time_created"])
                task = Task(TaskInfo(id=m["id"], session_id=listed_in, title=preview(text) or m["id"], status="completed",
                                     summary=text, created_at=created, updated_at=created, finished_at=created))
                ix.tasks[m["id"]] = task
                self.own[sid].append(m["id"])
                for p in mine:
                    if p.get("type") not in KNOWN_PARTS:
                        self.unknown[str(p.get("type"))] = self.unknown.get(str(p.get("type")), 0) + 1
                continue
            if task is not None:
                self._answer(task, m, data, mine, snapshots, worktree)
        for tid in self.own[sid]:
            t = ix.tasks[tid]
            t.info = replace(t.info, step_count=len(t.steps), checkpoint_count=len(t.changes),
                             title=f"{t.info.title} ({note})" if note else t.info.title)

    def _answer(self, task: Task, m: Any, data: dict, mine: list[dict], snapshots: list[Path],
                worktree: str | None) -> None:
        """The steps of one assistant message answering `task`."""
        ix = self.ix
        model = str(data.get("modelID") or "")
        start_snapshot = None
        pending: list[Change] = []
        for p in mine:
            kind = p.get("type")
            if kind == "step-start":
                start_snapshot = p.get("snapshot")
            elif kind == "patch":
                pass
            elif kind in ("text", "reasoning"):
                _add(ix, task, "reply" if kind == "text" else "reasoning", None, p.get("text"), "ok", None, model,
                     m["time_created"])
            elif kind == "tool":
                state = _dict(p.get("state"))
                status = state.get("status")
                error = state.get("error") if status == "error" else None
                meta = _dict(state.get("metadata"))
                code = meta.get("exit") if p.get("tool") == "bash" else None
                if isinstance(code, int) and code != 0:
                    error = error or f"exit code {code}"
                timing = _dict(state.get("time"))
                step = _add(ix, task, str(p.get("tool") or "tool"), state.get("input"), state.get("output", error),
                            "error" if error else ("ok" if status == "completed" else "no result"),
                            str(error) if error else None, model, timing.get("start") or m["time_created"])
                if p.get("tool") == "task" and isinstance(meta.get("sessionId"), str):
                    self.spawned[meta["sessionId"]] = str(task.info.id)
                if p.get("tool") in EDIT_TOOLS and status == "completed":
                    change = _change(str(step.id), str(p.get("tool")), state, meta)
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
                    _add(ix, task, "reply", None, "", "ok", None, model, m["time_created"])
                last = replace(task.steps[-1], tokens_in=usage.input, tokens_out=usage.output, usage=usage)
                task.steps[-1] = last
                ix.steps[str(last.id)] = last
                for change in pending:
                    fill_from_snapshots(change, snapshots, worktree, start_snapshot, p.get("snapshot"))
                pending = []
            else:
                self.unknown[str(kind)] = self.unknown.get(str(kind), 0) + 1
        done = _time((data.get("time") or {}).get("completed")) if isinstance(data.get("time"), dict) else None
        if done:
            task.info = replace(task.info, updated_at=done, finished_at=done)


def _add(ix: OpenCodeIndex, task: Task, tool: str, args: Any, result: Any, status: str, error: str | None, model: str,
         at: Any) -> StepInfo:
    seq = len(task.steps) + 1
    step = StepInfo(id=f"{task.info.id}:{seq}", task_id=task.info.id, seq=seq, tool=tool, args=args, result=result,
                    status=status, error=error, created_at=_time(at), model=model,
                    checkpoint_id=f"{task.info.id}:{seq}" if tool in EDIT_TOOLS and status == "ok" else None)
    task.steps.append(step)
    ix.steps[str(step.id)] = step
    return step


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
