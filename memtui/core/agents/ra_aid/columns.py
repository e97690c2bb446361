"""The column types memtui expects in RA.Aid's tables, and what a cell of another type becomes.

SQLite stores any value in any column, so a damaged or hand-edited pk.db can hold text where
RA.Aid writes a number, or bytes where it writes text. Each row is checked as it is read: a
wrong-typed cell is a reported problem (table, row id, column, what was found): text that was
stored as bytes or a number is read as text, any other cell gets the value memtui shows when
RA.Aid left the column empty; the rest of the row, and of the database, still reads.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memtui.core.model import Problem
from memtui.core.sources.jsonl import MAX_DEPTH, nesting_depth

TEXT, INT, REAL, TIME = "text", "an integer", "a number", "a time"

_ITEM = {"id": INT, "created_at": TIME, "human_input_id": INT, "session_id": INT}
COLUMNS: dict[str, dict[str, str]] = {
    "session": {"id": INT, "created_at": TIME, "updated_at": TIME, "start_time": TIME, "command_line": TEXT,
                "program_version": TEXT, "status": TEXT},
    "human_input": {"id": INT, "created_at": TIME, "content": TEXT, "source": TEXT, "session_id": INT},
    "trajectory": {"id": INT, "created_at": TIME, "human_input_id": INT, "session_id": INT, "is_error": INT,
                   "record_type": TEXT, "tool_name": TEXT, "tool_parameters": TEXT, "tool_result": TEXT,
                   "step_data": TEXT, "current_cost": REAL, "input_tokens": INT, "output_tokens": INT,
                   "error_message": TEXT, "error_type": TEXT},
    "key_fact": {**_ITEM, "content": TEXT},
    "research_note": {**_ITEM, "content": TEXT},
    "key_snippet": {**_ITEM, "filepath": TEXT, "line_number": INT, "snippet": TEXT, "description": TEXT},
}

_ACCEPTS: dict[str, tuple[type, ...]] = {TEXT: (str,), INT: (int,), REAL: (int, float), TIME: (str, int, float)}


def _found(value: Any) -> str:
    if isinstance(value, bytes):
        return f"{len(value)} bytes of binary data"
    return f"{type(value).__name__} {str(value)[:40]!r}"


def typed_row(table: str, row: dict[str, Any], path: Path, problems: list[Problem], reported: set) -> dict[str, Any] | None:
    """`row` with each known column of the expected type (or None), reporting what was not;
    None when the row has no usable integer id (it cannot be referred to)."""
    for column, kind in COLUMNS.get(table, {}).items():
        value = row.get(column)
        if value is None or (isinstance(value, _ACCEPTS[kind]) and not isinstance(value, bool)):
            continue
        if kind == TEXT:  # text stored as a BLOB or a number: shown as text, nothing dropped
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            how = "; read as text" + (" (invalid UTF-8 replaced)" if isinstance(value, bytes) and "\ufffd" in text else "")
        else:
            text, how = None, "; row skipped" if column == "id" else "; read as empty"
        key = (table, row.get("id") if isinstance(row.get("id"), int) else repr(row.get("id")), column)
        if key not in reported:
            reported.add(key)
            problems.append(Problem(str(path), None, f"{table} #{key[1]}: {column} holds {_found(value)},"
                                                     f" expected {kind}{how}"))
        if column == "id":
            return None
        row[column] = text
    return row


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The column names `table` has in this database (older RA.Aid versions lack some)."""
    return {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}


def json_or_text(text: Any) -> Any:
    """A JSON column's value, or the text itself when it does not parse (or nests too deeply)."""
    if not isinstance(text, str) or nesting_depth(text.encode("utf-8", "surrogatepass")) > MAX_DEPTH:
        return text
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return text
