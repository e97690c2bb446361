"""What the search index holds of an agent's own sessions (Claude Code transcripts, Codex
rollouts, any source that is not a memtui store): task titles, the user's prompts, and each
step's tool, arguments and result, read through the source's public read model — the
`sessions`, `tasks`, `steps` and `messages` the panes show, never its files.

A session is the unit of change: its signature is what the source says of it (last activity,
bytes of its files, tasks, title, and the stat keys of its files: an edit in place that keeps
the size changes them), so an agent appending to one session reads that session only. Of a
session that changed, only its tasks that changed are indexed again (an agent going on in a
session adds steps to its last task and new tasks after it: those, not the hundreds before):
each task's records are kept under its own key (`session:ID<US>TASK`, `part_key`) with the
task's signature (`task_signature`: its title, summary, steps, status, last activity). Keys
are never all digits (see search_records.split_older); a record's `owner` holds the real task
and step ids — strings with `:` in them, so a step's owner is `TASK<TAB>STEP<TAB>SEQ`
(search_plan.owned_hit).
"""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from typing import Any, ContextManager, Iterator

from memtui.core.memory.search_plan import OWNER_SEP
from memtui.core.memory.search_records import MAX_FIELD_CHARS, TaskRow, store_batches, task_rows
from memtui.core.memory_source import MemorySource
from memtui.core.record_tables import RecordTables
from memtui.core.sources.jsonl import held_open
from memtui.core.sources.part_pool import forked_map


TEXT = "values;tasks"
"""What a session's records are (in its signature: a session indexed otherwise is indexed
again): "values", the values of a step's arguments and result (`value_text`); "tasks", kept
task by task (`part_key`)."""
PART = "\x1f"
"""Between a session's key and a task's id in the key of the task's records."""
Parts = dict[str, str | None]
"""A batch's task keys (`part_key`) → their signature (None: the task is gone)."""


def part_key(session_key: str, task_id: Any) -> str:
    """The key of one task's records in a session's (`session:ID` → `session:ID<US>TASK`)."""
    return f"{session_key}{PART}{task_id}"


def task_signature(task: Any) -> str:
    """What of a task its records depend on, digested: a task the agent went on in changes it."""
    said = f"{task.title}\0{task.summary}\0{task.step_count}\0{task.status}\0{task.updated_at}\0{task.finished_at}"
    return hashlib.blake2b(said.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


class StoreReader:
    """A memtui store's records: its tables, read set-wise (search_records)."""

    unit = "tasks"
    """What one of its rows is (a refresh's progress counts them)."""

    def __init__(self, store: RecordTables) -> None:
        self.store = store

    def signature(self) -> str:
        return self.store.change_signature()

    def quick_signature(self, again: bool = False) -> str | None:
        return None  # its signature is as quick

    def reading(self) -> ContextManager[None]:
        return self.store.reading_mapped()

    def rows(self) -> list[TaskRow]:
        return task_rows(self.store)

    def batches(self, tasks: list[TaskRow], known: dict[str, str], parts: dict[str, dict[str, str]]
                ) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]], Parts]]:
        for batch, records in store_batches(self.store, tasks):
            yield batch, records, {}


class SessionReader:
    """A transcript source's records, one session a batch (oldest activity first: each batch
    goes in below the one before, so the newest session's records come first)."""

    unit = "sessions"

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

    def quick_signature(self, again: bool = False) -> str | None:
        """What the source says its sessions are read from, without listing them
        (`MemorySource.sessions_key`; None when it cannot tell): while it is the one kept with
        the last refresh, no session changed since. `again`: only if it tells the sessions the
        source would list now."""
        key = self.source.sessions_key(again)
        return None if key is None else f"sessions-key:{TEXT}:{key}"

    def signature(self) -> str:
        joined = "\0".join(f"{row.key}\0{row.signature}" for row in self.rows())
        return "sessions:" + hashlib.sha256(joined.encode()).hexdigest()

    def reading(self) -> ContextManager[None]:
        return nullcontext()

    def batches(self, sessions: list[TaskRow], known: dict[str, str], parts: dict[str, dict[str, str]]
                ) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]], Parts]]:
        """Each session's records and which of its tasks they are (None: gone). Of a session
        that grew since it was indexed (`known`: the sessions' signatures then, `parts`: their
        tasks' keys and signatures), the tasks not indexed as they are now; of another (edited
        in place, indexed otherwise), every task."""
        plan = []
        for row in sessions:
            session_id = self._ids[row.key]
            indexed = parts.get(row.key, {})
            tasks = list(self.source.tasks(session_id))
            signs = {part_key(row.key, t.id): task_signature(t) for t in tasks}
            grew = _grew(known.get(row.key), row.signature)
            changed = [t for t in tasks
                       if not grew or indexed.get(part_key(row.key, t.id)) != signs[part_key(row.key, t.id)]]
            kept: Parts = {part_key(row.key, t.id): signs[part_key(row.key, t.id)] for t in changed}
            kept.update((key, None) for key in indexed if key not in signs)
            plan.append((row, kept, (row.key, session_id, changed)))
        # Read in worker processes where the source allows it (a first search of a large home:
        # this process adds each session's records to the index while the workers read the next);
        # in the app, workers started afresh open the source again (its reopener).
        read = forked_map(_held_records, self.source, [job for _row, _kept, job in plan], self.source.reopener()) \
            if self.source.reads_forked else (_held_records(self.source, job) for _row, _kept, job in plan)
        for (row, kept, _job), records in zip(plan, read):
            yield [row], records, kept


def _held_records(source: MemorySource, job: tuple[str, Any, list]) -> dict[str, list[tuple]]:
    """`session_records` of one session (key, id, tasks), its files held open as its steps are read
    (its steps are lines of a few files: each opened once, a line read once)."""
    with held_open():
        return session_records(source, *job)


def _grew(before: str | None, now: str) -> bool:
    """Whether a session whose signature was `before` and is `now` only grew: indexed the same
    way, its files hold more bytes (an agent appends to its transcript; an edit in place keeps
    the size, and is indexed whole)."""
    if before is None:
        return False
    text, _at, size, *_rest = before.split("|", 3)
    text_now, _at_now, size_now, *_rest_now = now.split("|", 3)
    try:
        return text == text_now and int(size) < int(size_now)
    except ValueError:
        return False


def session_records(source: MemorySource, key: str, session_id: Any, tasks: list | None = None) -> dict[str, list[tuple]]:
    """{kind: (key, owner, text) rows} of one session's `tasks` (default: all), each task's
    under its own key (`part_key`), newest first (its last task first, each task's last step
    first)."""
    records: dict[str, list[tuple]] = {"task": [], "message": [], "step": []}
    for task in reversed(list(source.tasks(session_id)) if tasks is None else tasks):
        own = part_key(key, task.id)
        title = "\n".join(part for part in (task.title, task.summary) if part)
        if title:
            records["task"].append((own, str(task.id), title))
        records["message"].extend((own, str(task.id), m.content) for m in reversed(list(source.messages(task.id)))
                                  if m.role == "user" and m.content and m.content != task.title)
        for step in reversed(list(source.steps(task.id))):
            text = "\n".join(part for part in (step.tool, value_text(step.args), value_text(step.result),
                                               step.error or "") if part)
            records["step"].append((own, OWNER_SEP.join((str(task.id), str(step.id), str(step.seq))), text))
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
