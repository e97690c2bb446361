"""JSONL session stores (DESIGN.md §5): `sessions/<key>.jsonl` plus `memory/history.jsonl`.

A session file's first line is its metadata (`key`, `title`, `preview`, timestamps), then
one message per line (`id`, `sessionKey`, `role`, `content`, `timestamp`, maybe
`tool_calls`). `memory/history.jsonl` holds `{cursor, content, at}` rows whose cursor only
grows; `memory/.cursor` repeats the last cursor written.

Mapping: a session file → a session; each user message opens a task (a turn); the other
messages of the turn are its steps; history rows are memory items of kind "history".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memtui.core.agents.jsonl.layout import is_meta
from memtui.core.errors import NotAStore
from memtui.core.model import Id, MemoryItem, MessageInfo, Problem, SessionInfo, StepInfo, TaskInfo
from memtui.core.memory_source import Capability, LiveWatch, MemoryItems, UnknownId
from memtui.core.sources.base import Index, IndexedSource, page, preview
from memtui.core.sources.jsonl import iter_records
from memtui.core.paths import files_key, stat_key
from memtui.core.sources.folders import Folders
from memtui.core.sources.relist import Parts
from memtui.core.sources.timestamps import file_time, parse_time, sort_key


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        return "\n".join(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False) for p in parts
                         if p not in (None, ""))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _tool_name(call: dict) -> str:
    """The name of an OpenAI-style tool call (`function.name`, or `name`)."""
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    name = name or call.get("name")
    return name if isinstance(name, str) and name else "tool"


@dataclass
class JsonlTurn:
    id: str
    session_id: str
    title: str
    created_at: datetime | None
    records: list[dict] = field(default_factory=list)  # user message first (if any)


@dataclass
class JsonlSession:
    key: str
    path: Path
    meta: dict
    turns: list[JsonlTurn]
    message_count: int


@dataclass
class JsonlIndex(Index):
    """The sessions (by key) and the history rows a read of the store gave."""

    sessions: dict[str, JsonlSession] = field(default_factory=dict)
    history: list[MemoryItem] = field(default_factory=list)


class JsonlSessionsSource(IndexedSource[JsonlIndex], LiveWatch, MemoryItems):
    """A JSONL session store rooted at a workspace folder."""

    kind = "jsonl-sessions"
    label = "JSONL sessions"
    capabilities = frozenset({Capability.ITEMS, Capability.EDIT_MEMORY, Capability.LIVE})

    def watched_files(self) -> list[Path]:
        """The session files and their folder, the history and its cursor."""
        sessions = self.path / "sessions"
        files = sorted(sessions.glob("*.jsonl")) if sessions.is_dir() else []
        memory = self.path / "memory"
        return [*files, sessions, memory / "history.jsonl", memory / ".cursor"]

    def __init__(self, root: Path) -> None:
        root = Path(root)
        if root.name == "sessions" and not (root / "sessions").is_dir():
            root = root.parent
        if not root.is_dir():
            raise NotAStore(f"no JSONL session store at {root}")
        super().__init__(root)
        self._folders = Folders()  # the sessions folder, listed again when it changed
        self._parts = Parts()  # each session file, parsed again when it changed

    # -- loading ---------------------------------------------------------------------------
    def build_index(self) -> "JsonlIndex":
        """The store as it is now (again at each reload: a new session file shows up, a removed
        one goes); only new or changed files are parsed again."""
        ix = JsonlIndex()
        sessions, problems = ix.sessions, ix.problems
        folder = self.path / "sessions"
        for session, found in self._parts.each(self._folders.files(folder, ".jsonl"), stat_key, self._read_session):
            problems += found
            if session.key in sessions:
                problems.append(Problem(str(session.path), 1, f"duplicate session key {session.key!r}, kept the first"))
                continue
            sessions[session.key] = session
        ix.history = self._read_history(problems)
        ix.counts = {"sessions": len(sessions), "messages": sum(s.message_count for s in sessions.values()),
                      "history_entries": len(ix.history)}
        return ix

    def _read_session(self, path: Path) -> tuple[JsonlSession, list[Problem]]:
        """One session file, and what was wrong in it."""
        problems: list[Problem] = []
        meta: dict = {}
        key = path.stem
        turns: list[JsonlTurn] = []
        count = 0
        for lineno, _offset, record in iter_records(path, problems):
            if lineno == 1 and is_meta(record):
                meta = record
                named = record.get("key")
                if isinstance(named, str) and named and "#" not in named:  # "#" separates key and turn in ids
                    key = named
                else:
                    problems.append(Problem(str(path), 1, f"session key {str(named)[:40]!r} is not usable text;"
                                                          f" the file name is used"))
                continue
            if lineno == 1:
                problems.append(Problem(str(path), 1, "first line is not session metadata"))
            if "role" not in record:
                if "type" not in record:  # records of other types are future extensions: skip quietly
                    problems.append(Problem(str(path), lineno, "record without a role, skipped"))
                continue
            count += 1
            when = parse_time(record.get("timestamp"))
            if record.get("role") == "user" or not turns:
                is_user = record.get("role") == "user"
                turn_id = f"{key}#{record.get('id', lineno)}" if is_user else f"{key}#start"
                title = preview(_text(record.get("content"))) if is_user else "(before the first prompt)"
                turns.append(JsonlTurn(turn_id, key, title or "(empty prompt)", when))
            turns[-1].records.append(record)
        return JsonlSession(key, path, meta, turns, count), problems

    def _read_history(self, problems: list[Problem]) -> list[MemoryItem]:
        items: list[MemoryItem] = []
        path = self.path / "memory" / "history.jsonl"
        last: int | None = None
        if path.is_file():
            for lineno, _offset, record in iter_records(path, problems):
                cursor = record.get("cursor")
                if not isinstance(cursor, int) or isinstance(cursor, bool):
                    problems.append(Problem(str(path), lineno, "history row without an integer cursor, skipped"))
                    continue
                if last is not None and cursor <= last:
                    problems.append(Problem(str(path), lineno, f"cursor {cursor} does not increase (previous {last})"))
                last = cursor if last is None else max(last, cursor)
                items.append(MemoryItem(id=cursor, kind="history", content=_text(record.get("content")),
                                        created_at=parse_time(record.get("at"))))
        marker = self.path / "memory" / ".cursor"
        if marker.is_file():
            text = marker.read_text(encoding="utf-8", errors="replace").strip()
            if not text.isdigit():
                problems.append(Problem(str(marker), 1, f"not a cursor: {text[:40]!r}"))
            elif last is not None and int(text) != last:
                problems.append(Problem(str(marker), 1, f".cursor says {text}, history.jsonl ends at {last}"))
        return items

    # -- read model ------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        out = []
        for s in self.index().sessions.values():
            if stat_key(s.path) is None:
                continue  # removed since the index: gone at once, not at the next reload
            created = parse_time(s.meta.get("created_at")) or (s.turns[0].created_at if s.turns else None) or file_time(s.path)
            updated = parse_time(s.meta.get("updated_at")) or file_time(s.path)
            stored, key = files_key([s.path])
            out.append(
                SessionInfo(
                    id=s.key,
                    title=str(s.meta.get("title") or s.meta.get("preview") or s.key),
                    status="unknown",  # a session file records no end of its session
                    current_task_id=s.turns[-1].id if s.turns else None,
                    created_at=created,
                    updated_at=updated,
                    task_count=len(s.turns),
                    stored_bytes=stored,
                    files_key=key,
                )
            )
        return sorted(out, key=lambda s: sort_key(s.updated_at), reverse=True)

    def _turn(self, task_id: Id) -> JsonlTurn:
        key = str(task_id).split("#", 1)[0]
        session = self.index().sessions.get(key)
        for turn in session.turns if session else []:
            if turn.id == task_id:
                return turn
        raise UnknownId(f"no turn {task_id!r} in {self.path}")

    @staticmethod
    def _info(turn: JsonlTurn) -> TaskInfo:
        last = parse_time(turn.records[-1].get("timestamp")) if turn.records else None
        return TaskInfo(
            id=turn.id,
            session_id=turn.session_id,
            title=turn.title,
            status="completed",
            created_at=turn.created_at,
            updated_at=last or turn.created_at,
            finished_at=last,
            step_count=sum(1 for r in turn.records if r.get("role") != "user"),
        )

    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        session = self.index().sessions.get(str(session_id)) if session_id is not None else None
        return [self._info(t) for t in session.turns] if session else []

    def task(self, task_id: Id) -> TaskInfo:
        return self._info(self._turn(task_id))

    def step(self, step_id: Id) -> StepInfo:
        """A step ("<turn>/<record>") among its turn's steps."""
        task_id = str(step_id).split("/", 1)[0]
        found = next((s for s in self.steps(task_id) if str(s.id) == str(step_id)), None)
        if found is None:
            raise UnknownId(f"no step {step_id!r} in {self.path}")
        return found

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        turn = self._turn(task_id)
        steps = []
        for n, record in enumerate(r for r in turn.records if r.get("role") != "user"):
            calls = record.get("tool_calls") or record.get("toolCalls")
            role = str(record.get("role"))
            tool = role
            if isinstance(calls, list) and calls:
                names = [_tool_name(c) for c in calls if isinstance(c, dict)]
                tool = ", ".join(names) or role
            elif role == "tool":
                tool = f"tool result {record.get('name') or record.get('tool_call_id') or ''}".strip()
            steps.append(
                StepInfo(
                    id=f"{turn.id}/{record.get('id', n)}",
                    task_id=turn.id,
                    seq=n + 1,  # numbered from 1, as every store's steps are
                    tool=tool,
                    args=calls,
                    result=_text(record.get("content")),
                    created_at=parse_time(record.get("timestamp")),
                )
            )
        return page(steps, offset, limit)

    def messages(self, task_id: Id) -> list[MessageInfo]:
        turn = self._turn(task_id)
        return [
            MessageInfo(
                id=f"{turn.id}/{r.get('id', i)}",
                task_id=turn.id,
                role=str(r.get("role")),
                content=_text(r.get("content")),
                created_at=parse_time(r.get("timestamp")),
            )
            for i, r in enumerate(turn.records)
            if r.get("role") in ("user", "assistant") and _text(r.get("content"))
        ]

    def memory_items(self, kind: str | None = None) -> list[MemoryItem]:
        """Rows of memory/history.jsonl (kind "history"), oldest first."""
        return [i for i in self.index().history if kind is None or i.kind == kind]
