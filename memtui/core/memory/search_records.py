"""What the search index holds: memory documents line by line, and the store's task titles
and summaries, messages and step arguments/results.

Store rows are read in a few set-wise statements, the store's search queries
(memtui.core.store.search_queries: one for every task's signature, then the messages and
steps of the changed tasks in batches). A step's arguments
and result are indexed as the JSON text agent.db keeps, clipped and with the string escapes
undone (so that the words after a `\\n` are words), never decoded and encoded again.
"""

from __future__ import annotations

import gc
import hashlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, NamedTuple

from orjson import JSONDecodeError, loads

from memtui.core.memory.discover import MemoryDocument

from memtui.core.record_tables import RecordTables, StepTextRow

MAX_FIELD_CHARS = 32_000  # per step argument/result: enough to find it, bounded in size
BATCH = 1_000  # tasks per statement when reading messages and steps (and per look at `cancelled`)
BATCH_STEPS = 5_000
"""A batch ends after BATCH tasks or once it holds BATCH_STEPS steps. Reading a batch ahead in
a thread of its own (sqlite3 lets go of the GIL while SQLite works) overlapped nothing: FTS5
takes the GIL back for every row inserted, and the reader held it for its Python work; one
thread took 0.07 s less CPU at 5,000 tasks."""


@dataclass(frozen=True)
class SearchRecord:
    """One searchable unit. Files: one per line. Store records: `line` is 0, except steps,
    whose `line` is the step's sequence number in its task."""

    kind: str
    text: str
    file: str | None = None
    task: str | None = None
    step: str | None = None
    line: int = 0


class TaskRow(NamedTuple):
    """What of a task the index depends on (a tuple: made once per task, 100,000 of them)."""

    key: str
    title: str
    summary: str
    signature: str
    steps: int = 0


def file_records(doc: MemoryDocument) -> Iterator[SearchRecord]:
    """One record per non-blank line of a document (undecodable bytes replaced)."""
    text = doc.path.read_bytes().decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield SearchRecord("file", line, file=doc.rel, line=number)


def json_text(value: str | None) -> str:
    """A stored JSON value as searchable text: a string without its quotes, anything else as
    stored with `\\n`, `\\t`, `\\"` undone (so that the words after them are words); `null` is
    nothing. At most MAX_FIELD_CHARS."""
    if not value or value == "null":
        return ""
    if value[0] == '"':
        try:  # orjson: twice as fast as json's scanstring on text full of `\n` (0.05 s of 0.75 at 5,000 tasks)
            return loads(value)[:MAX_FIELD_CHARS]
        except JSONDecodeError:  # not one JSON string (or a lone surrogate escape): as stored
            pass
    text = value[:MAX_FIELD_CHARS]
    if "\\" in text:
        text = (text.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r")
                .replace('\\"', '"').replace("\0", "\\"))
    return text


def task_rows(store: RecordTables) -> list[TaskRow]:
    """Every task of the store (orphans too) with its signature: it changes when anything
    indexed of the task changes (a step, the status, the summary, GC, a message)."""
    out = []
    for task_id, title, summary, status, updated, step_count, collected, messages in store.task_index_rows():
        digest = hashlib.sha256(f"{title}\0{summary or ''}".encode()).hexdigest()[:16]
        signature = f"{updated}|{step_count}|{status}|{collected is not None}|{messages}|{digest}"
        out.append(TaskRow(str(task_id), title or "", summary or "", signature, step_count or 0))
    return out


def split_older(changed: list[TaskRow], known: dict[str, str]) -> tuple[list[TaskRow], list[TaskRow]]:
    """The changed tasks (in the store's order) never indexed and older than every indexed
    task — all of them on a first build, the rest of an interrupted one — and the others."""
    if not all(t.key.isdigit() for t in changed) or not all(key.isdigit() for key in known):
        return [], changed
    oldest = min(map(int, known), default=None)
    older = [t for t in changed if t.key not in known and (oldest is None or int(t.key) < oldest)]
    return older, changed[len(older):]  # the store lists tasks by id: the older ones come first


def store_batches(store: RecordTables, tasks: list[TaskRow]) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]]]]:
    """The records of these tasks, a few hundred tasks at a time, in the order of `tasks`:
    (the batch's tasks, {kind: rows}); a row is (task key, owner, text) (search_file.OWNER). In a batch the
    rows go newest first, the order the index keeps: tasks by id, each task's steps and
    messages the last first (a task's rows come together)."""
    for batch in _batches(tasks):
        ids = [int(t.key) for t in batch]
        summaries = {t.key: t.summary for t in batch}
        messages = store.task_messages(ids)
        steps = store.task_step_texts(ids)
        yield batch, {
            "task": [(t.key, t.key, text) for t in sorted(batch, key=lambda t: int(t.key), reverse=True)
                     if (text := "\n".join(part for part in (t.title, t.summary) if part))],
            # The store also keeps the summary as a message: one hit for it is enough.
            "message": [(task, str(task), content) for task, content in messages
                        if content and content != summaries.get(str(task))],
            "step": step_rows(steps),
        }


def step_rows(steps: list[StepTextRow]) -> list[tuple]:
    """(task id, owner, text) of (task_id, id, seq, tool, args, result, error) rows: the tool,
    then `json_text` of the arguments and result, then the error, no newlines at either end.
    (Calling `json_text` per value costs no more than inlining its common cases: measured.)"""
    # Without an error there is no "\n" to add (and `strip` to copy the text to drop it again).
    return [(task, f"{task}:{step}:{seq}", (f"{tool}\n{json_text(args)}\n{json_text(result)}\n{error}" if error
                                           else f"{tool}\n{json_text(args)}\n{json_text(result)}").strip("\n"))
            for task, step, seq, tool, args, result, error in steps]


def _batches(tasks: list[TaskRow]) -> Iterator[list[TaskRow]]:
    batch: list[TaskRow] = []
    steps = 0
    for task in tasks:
        batch.append(task)
        steps += task.steps
        if len(batch) >= BATCH or steps >= BATCH_STEPS:
            yield batch
            batch, steps = [], 0
    if batch:
        yield batch


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection while a refresh runs. It allocates two tuples per record (the row
    read, the row written: 130,000 at 5,000 tasks), alive until their batch is written, and
    each collection pass they trigger walks them again though none is in a cycle: 0.02-0.03 s
    of a first index's 0.72 s CPU (`memtui search`; the app passes less often, see
    memtui.ui.collector). Reference counting still frees everything; the collector is on
    again afterwards, unless it was off already."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
