"""Session names from Claude Code's prompt history, read without changing a byte.

`history.jsonl` (`display`, `project`, `timestamp`, newer lines also `sessionId`) names a
session that has no title of its own — above all one whose transcript is gone.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable

from memtui.core.model import Problem
from memtui.core.sources.base import preview
from memtui.core.sources.fields import RECORD_ERRORS, field
from memtui.core.sources.jsonl import iter_records
from memtui.core.sources.timestamps import parse_time, sort_key

def claude_history_titles(home: Path | None, sessions: Iterable[Any], problems: list[Problem]) -> dict[str, str]:
    """Session id → the first prompt typed in it per `history.jsonl`, for `sessions`
    (objects with id, cwd, created_at, updated_at): by `sessionId` where the line has one,
    else by project and time (a prompt typed between the session's first and last record)."""
    path = home / "history.jsonl" if home is not None else None
    wanted = list(sessions)
    if path is None or not path.is_file() or not wanted:
        return {}
    by_id = {s.id: s for s in wanted}
    found: dict[str, str] = {}
    slack = timedelta(seconds=5)
    for lineno, _offset, rec in iter_records(path, problems):
        try:
            text = field(rec, "display", kind=str)
            session_id = field(rec, "sessionId", kind=str)
            project = field(rec, "project", kind=str)
            when = parse_time(field(rec, "timestamp", kind=(int, float, str)))
        except RECORD_ERRORS as exc:
            problems.append(Problem(str(path), lineno, f"{exc}; line skipped"))
            continue
        if not text or not text.strip() or text.lstrip().startswith("/"):
            continue
        if session_id is not None:
            match = by_id.get(session_id)
        else:
            match = next((s for s in wanted if s.cwd == project and when is not None and s.created_at is not None
                          and sort_key(s.created_at - slack) <= sort_key(when) <= sort_key((s.updated_at or s.created_at) + slack)),
                         None)
        if match is not None and match.id not in found:
            found[match.id] = preview(text)
    return found
