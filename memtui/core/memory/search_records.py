"""What the search index holds: memory documents line by line, and the store's task titles
and summaries, messages and step arguments/results.

Store rows are read in a few set-wise statements through `store.query` (one for every task's
signature, then the messages and steps of the changed tasks in batches). A step's arguments
and result are indexed as the JSON text agent.db keeps, clipped and with the string escapes
undone (so that the words after a `\\n` are words), never decoded and encoded again.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from json.decoder import scanstring
from dataclasses import dataclass
from typing import Iterable, Iterator

from memtui.core.memory.discover import MemoryDocument

MAX_FIELD_CHARS = 32_000  # per step argument/result: enough to find it, bounded in size
BATCH = 1_000  # tasks per statement when reading messages and steps (and per look at `cancelled`)
BATCH_STEPS = 5_000
"""A batch ends after BATCH tasks or once it holds BATCH_STEPS steps (it is held twice: one is
read ahead). Each batch makes FTS5 write out its pending index (the next one starts lower in
the task band): batches of 250 tasks took 8% more CPU than of 1,000 at 5,000 tasks."""


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


@dataclass(frozen=True)
class TaskRow:
    """What of a task the index depends on."""

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
        try:
            text, end = scanstring(value, 1)  # one pass in C
            if end == len(value):
                return text[:MAX_FIELD_CHARS]
        except ValueError:
            pass
    text = value[:MAX_FIELD_CHARS]
    if "\\" in text:
        text = (text.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r")
                .replace('\\"', '"').replace("\0", "\\"))
    return text


def task_rows(store) -> list[TaskRow]:
    """Every task of the store (orphans too) with its signature: it changes when anything
    indexed of the task changes (a step, the status, the summary, GC, a message)."""
    steps = ("t.step_count" if getattr(store, "schema_version", 0) >= 3
             else "(SELECT COUNT(*) FROM step s WHERE s.task_id = t.id)")
    rows = store.query(
        f"SELECT t.id, t.title, t.summary, t.status, t.updated_at, {steps}, t.collected_at,"
        " (SELECT COUNT(*) FROM message m WHERE m.task_id = t.id) FROM task t ORDER BY t.id")
    out = []
    for task_id, title, summary, status, updated, step_count, collected, messages in rows:
        digest = hashlib.sha256(f"{title}\0{summary or ''}".encode()).hexdigest()[:16]
        signature = f"{updated}|{step_count}|{status}|{collected is not None}|{messages}|{digest}"
        out.append(TaskRow(str(task_id), title or "", summary or "", signature, step_count or 0))
    return out


def store_batches(store, tasks: list[TaskRow]) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]]]]:
    """The records of these tasks, a few hundred tasks at a time: (the batch's tasks, {kind:
    rows}); a row is (file, task, step, line, text) and each task's rows come together."""
    for batch in _batches(tasks):
        ids = [int(t.key) if t.key.isdigit() else t.key for t in batch]
        marks = ",".join("?" * len(ids))
        summaries = {t.key: t.summary for t in batch}
        messages = store.query(f"SELECT task_id, content FROM message WHERE task_id IN ({marks})"
                               " ORDER BY task_id, id", ids)
        steps = store.query(f"SELECT task_id, id, seq, tool, args, result, error FROM step"
                            f" WHERE task_id IN ({marks}) ORDER BY task_id, seq", ids)
        yield batch, {
            "task": [(None, t.key, None, 0, text) for t in batch
                     if (text := "\n".join(part for part in (t.title, t.summary) if part))],
            # The store also keeps the summary as a message: one hit for it is enough.
            "message": [(None, str(task), None, 0, content) for task, content in messages
                        if content and content != summaries.get(str(task))],
            "step": [(None, str(task), str(step), seq,
                      f"{tool}\n{json_text(args)}\n{json_text(result)}\n{error or ''}".strip("\n"))
                     for task, step, seq, tool, args, result, error in steps],
        }


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


def prefetched(store, tasks: list[TaskRow]) -> Iterator[tuple[list[TaskRow], dict[str, list[tuple]]]]:
    """`store_batches`, read one batch ahead by a thread with a connection of its own (closed
    after), so that reading agent.db and unescaping overlap with indexing. Stopping early (a
    cancelled refresh, an error) stops the thread too."""
    reading = getattr(store, "reading", None)
    if not callable(reading) or len(tasks) <= BATCH:
        yield from store_batches(store, tasks)
        return
    done = object()
    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def produce() -> None:
        try:
            with reading():
                for item in store_batches(store, tasks):
                    while not stop.is_set():
                        try:
                            ready.put(item, timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if stop.is_set():
                        return
            ready.put(done)
        except BaseException as error:  # handed to the indexing thread
            ready.put(error)

    thread = threading.Thread(target=produce, name="search-index-reader", daemon=True)
    thread.start()
    try:
        while (item := ready.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                ready.get(timeout=0.05)
            except queue.Empty:
                pass
        thread.join()
