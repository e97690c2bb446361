"""What the search index holds of an agent's own sessions (Claude Code transcripts, Codex
rollouts, any source that is not a memtui store): task titles, the user's prompts, and each
step's tool, arguments and result, read through the source's public read model — the
`sessions`, `tasks`, `steps` and `messages` the panes show, never its files.

A session is the unit of re-indexing: its signature is what the source says of it (last
activity, bytes of its files, tasks, title, and the stat keys of its files: an edit in place
that keeps the size changes them), so an agent appending to one session re-indexes that
session only. Every record of a session is kept under one key (`session:ID`, never all
digits: see search_records.split_older), its `owner` holding the real task and step ids —
strings with `:` in them, so a step's owner is `TASK<TAB>STEP<TAB>SEQ` (search_plan.owned_hit).
"""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from typing import Any, ContextManager, Iterator

from memtui.core.memory.search_plan import OWNER_SEP
from memtui.core.memory.search_records import MAX_FIELD_CHARS, TaskRow, store_batches, task_rows
from memtui.core.memory_source import MemorySource
from memtui.core.record_tables import RecordTables


TEXT = "values"
"""What a session's step records hold (in its signature: a session indexed otherwise is indexed
again): "values", the values of its arguments and result (`value_text`)."""


class StoreReader:
    """A memtui store's records: its tables, read set-wise (search_records)."""

    def __init__(self, store: RecordTables) -> None:
        self.store = store

    def signature(self) -> str:
        return self.store.change_signature()

    def reading(self) -> ContextManager[None]:
        return self.store.reading_mapped()

    def rows(self) -> list[TaskRow]:
        return task_rows(self.store)

    def batches(self, tasks: list[TaskRow]) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]]]]:
        return store_batches(self.store, tasks)


class SessionReader:
    """A transcript source's records, one session a batch (oldest activity first: each batch
    goes in below the one before, so the newest session's records come first)."""

    def __init__(self, source: MemorySource) -> None:
        self.source = source
        self._rows: list[TaskRow] | None = None
        self._ids: dict[str, Any] = {}  # index key → the session's id as the source has it

    def rows(self) -> list[TaskRow]:
        if self._rows is None:
            rows = []
            for session in self.source.sessions():  # newest activity first
                self._ids[f"session:{session.id}"] = session.id
                at = session.updated_at.isoformat() if session.updated_at else ""
                rows.append(TaskRow(f"session:{session.id}", "", "",
                                    f"{TEXT}|{at}|{session.stored_bytes}|{session.task_count}|{session.title}"
                                    f"|{session.files_key}",
                                    session.task_count))
            self._rows = rows[::-1]
        return self._rows

    def signature(self) -> str:
        joined = "\0".join(f"{row.key}\0{row.signature}" for row in self.rows())
        return "sessions:" + hashlib.sha256(joined.encode()).hexdigest()

    def reading(self) -> ContextManager[None]:
        return nullcontext()

    def batches(self, sessions: list[TaskRow]) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]]]]:
        for row in sessions:
            yield [row], session_records(self.source, row.key, self._ids[row.key])


def session_records(source: MemorySource, key: str, session_id: Any) -> dict[str, list[tuple]]:
    """{kind: (key, owner, text) rows} of one session, newest first (its last task first,
    each task's last step first)."""
    records: dict[str, list[tuple]] = {"task": [], "message": [], "step": []}
    for task in reversed(list(source.tasks(session_id))):
        title = "\n".join(part for part in (task.title, task.summary) if part)
        if title:
            records["task"].append((key, str(task.id), title))
        records["message"].extend((key, str(task.id), m.content) for m in reversed(list(source.messages(task.id)))
                                  if m.role == "user" and m.content and m.content != task.title)
        for step in reversed(list(source.steps(task.id))):
            text = "\n".join(part for part in (step.tool, value_text(step.args), value_text(step.result),
                                               step.error or "") if part)
            records["step"].append((key, OWNER_SEP.join((str(task.id), str(step.id), str(step.seq))), text))
    return records


def value_text(value: Any) -> str:
    """A step's arguments or result as searchable text: a string as it is; anything else its
    values — strings, numbers, file paths — one a line, in order, without the JSON around them
    (keys, quotes, brackets are no words anyone searches for, and a third of the text). At most
    MAX_FIELD_CHARS."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value[:MAX_FIELD_CHARS]
    parts: list[str] = []
    room = [MAX_FIELD_CHARS]

    def add(item: Any) -> None:
        if room[0] <= 0 or item is None or isinstance(item, bool):
            return
        if isinstance(item, dict):
            for inner in item.values():
                add(inner)
        elif isinstance(item, (list, tuple)):
            for inner in item:
                add(inner)
        else:
            text = item if isinstance(item, str) else str(item)
            if text:
                parts.append(text[:room[0]])
                room[0] -= len(text) + 1

    add(value)  # parsed JSON: nested at most jsonl.MAX_DEPTH deep, within the recursion limit
    return "\n".join(parts)[:MAX_FIELD_CHARS]


def records_reader(source: MemorySource) -> StoreReader | SessionReader:
    """How the index reads `source`: its tables set-wise (memtui's own store), else its
    sessions through the read model."""
    tables = source.record_tables()
    return StoreReader(tables) if tables is not None else SessionReader(source)
