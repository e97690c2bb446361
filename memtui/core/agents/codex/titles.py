"""Thread names Codex keeps outside its rollouts, read without changing a byte.

Codex names threads in `session_index.jsonl` (`thread_name`, appended on every rename) and
in `state_*.sqlite` (`threads.title`); the two can disagree (openai/codex#16280), so the
index, newest line last, wins and the database fills gaps.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memtui.core.model import Problem
from memtui.core.sources.fields import RECORD_ERRORS, field
from memtui.core.sources.jsonl import iter_records
from memtui.core.sqlite_readonly import is_sqlite, readonly_uri

def codex_titles(home: Path | None, problems: list[Problem]) -> dict[str, str]:
    """Thread id → name, from `session_index.jsonl` and `state_*.sqlite` under `home`."""
    if home is None:
        return {}
    titles: dict[str, str] = {}
    for db in sorted(home.glob("state_*.sqlite")):
        titles.update(_sqlite_titles(db, problems))
    index = home / "session_index.jsonl"
    if index.is_file():
        for lineno, _offset, rec in iter_records(index, problems):
            try:
                thread, name = field(rec, "id", kind=str), field(rec, "thread_name", kind=str)
            except RECORD_ERRORS as exc:
                problems.append(Problem(str(index), lineno, f"{exc}; line skipped"))
                continue
            if thread and name and name.strip():
                titles[thread] = name
    return titles


def _sqlite_titles(db: Path, problems: list[Problem]) -> dict[str, str]:
    """`threads.title` by id; the file is opened immutable (no locks, no side files)."""
    if not is_sqlite(db):
        return {}
    try:
        conn = sqlite3.connect(readonly_uri(db, immutable=True), uri=True)
        try:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(threads)")}
            if not {"id", "title"} <= columns:
                return {}
            rows = conn.execute("SELECT id, title FROM threads").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        problems.append(Problem(str(db), None, f"cannot read thread titles: {exc}"))
        return {}
    return {str(tid): title for tid, title in rows if isinstance(title, str) and title.strip()}
