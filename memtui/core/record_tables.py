"""What memory search reads of a store that keeps its records in SQL tables (memtui's own),
set-wise, instead of session by session through the read model.

A source answers `MemorySource.record_tables()` with its tables, or None (every other agent's
store: the index then reads the sessions the panes show). The rows are plain records here, so
that the search index depends on this interface and not on the store's code (searching another
agent's home loads none of it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import ContextManager, NamedTuple


class TaskIndexRow(NamedTuple):
    """What of a task the index depends on: anything indexed of it changes one of these."""

    task: int
    title: str | None
    summary: str | None
    status: str
    updated_at: float | None
    steps: int | None
    collected_at: float | None
    messages: int


TaskMessageRow = tuple[int, str | None]
"""(task id, content) of a message. A plain tuple: a first index reads every message."""

StepTextRow = tuple[int, int, int, str, str | None, str | None, str | None]
"""(task id, step id, seq, tool, args JSON, result JSON, error) of a step: the text the index
keeps of it. A plain tuple, not a named one: a first index reads every step of the store, and
a named tuple per step costs as much again as reading it."""


class RecordTables(ABC):
    """The reads memory search makes of a store's tables (memtui.core.store.search_queries
    answers them from agent.db)."""

    @abstractmethod
    def task_index_rows(self) -> list[TaskIndexRow]:
        """Every task of the store (orphans too), in id order."""

    @abstractmethod
    def task_messages(self, tasks: list[int]) -> list[TaskMessageRow]:
        """The messages of these tasks, the last task first, each task's last message first."""

    @abstractmethod
    def task_step_texts(self, tasks: list[int]) -> list[StepTextRow]:
        """The steps of these tasks, the last task first, each task's last step first."""

    @abstractmethod
    def change_signature(self) -> str:
        """A text that changes whenever the store is written."""

    @abstractmethod
    def reading_mapped(self) -> ContextManager[None]:
        """One consistent state of the store for many reads (a whole refresh of the index)."""

    @abstractmethod
    def index_folder(self) -> Path:
        """The folder the store's search index is kept in (beside its database)."""

    def searched_on_server(self) -> "RecordSearch | None":
        """The store itself when its server matches its records (the team store: PostgreSQL),
        else None (the search index keeps the records' text on this machine)."""
        return None


class RecordSearch(ABC):
    """A store whose server finds its records (memtui.core.memory.search_server makes hits of
    the rows). Kinds: "task", "message", "step"; a record's place orders it newest first."""

    @abstractmethod
    def matching_records(self, kind: str, terms: list[str], limit: int | None, after: int | None = None) -> list[tuple]:
        """(place, *columns) of the records of `kind` holding every term as a case-insensitive
        substring, newest first, those after place `after` (None: from the newest), at most `limit`
        (None: all). Columns: task (id, title, summary); message (task id, content); step (task id,
        id, seq, tool, args, result, error)."""

    @abstractmethod
    def count_matching(self, kind: str, terms: list[str], limit: int, after: int | None = None) -> int:
        """How many records `matching_records` would give, counted up to `limit`."""
