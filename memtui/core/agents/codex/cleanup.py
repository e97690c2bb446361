"""Inventory of a Codex home (`$CODEX_HOME` or `~/.codex`).

A session (thread) is its rollout files: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`,
further segments `rollout-<time>-<id>_<segment>.jsonl` written on resume, and the copy
Codex itself moved to `archived_sessions/`. Codex's index files (`session_index.jsonl`,
`state_*.sqlite`) name threads; they are read for titles and never written. Codex keeps
no per-session folders, so a Codex home has no orphans.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memtui.core.cleanup.files import FileInfo, chunk_records, file_info, newest_records, read_head, short_title
from memtui.core.cleanup.inventory import Inventory, SessionRecord
from memtui.core.cleanup.summaries import SummaryCache
from memtui.core.agents.codex.rollouts import FLAT_ITEMS
from memtui.core.agents.codex.rollout_files import prompt_text
from memtui.core.agents.codex.titles import codex_titles
from memtui.core.sources.base import preview
from memtui.core.sources.fields import RECORD_ERRORS
from memtui.core.sources.timestamps import parse_time

ROLLOUT = re.compile(r"^rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-([0-9a-fA-F-]{36})(?:_[^.]*)?\.jsonl$")
CWD = re.compile(r"<cwd>([^<]+)</cwd>")
CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})


def _payload(record: dict) -> dict:
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else record


def _text(payload: dict) -> str:
    if isinstance(payload.get("message"), str):
        return payload["message"]
    parts = payload.get("content")
    if isinstance(parts, str):
        return parts
    if isinstance(parts, list):
        return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
    return ""


def _kind(record: dict) -> str:
    """A record's kind as the reader files it: early rollouts' flat items are response items."""
    kind = record.get("type")
    if not isinstance(record.get("payload"), dict) and kind in FLAT_ITEMS:
        return "response_item"
    return str(kind)


def _is_event_prompt(record: dict) -> bool:
    return record.get("type") == "event_msg" and _payload(record).get("type") == "user_message"


def first_prompt(records: list[dict]) -> str | None:
    """The first prompt among a rollout's first records, by the reader's rule (prompt_text): the
    title `memtui log` shows is the one cleanup shows."""
    has_events = any(_is_event_prompt(record) for record in records)
    for record in records:
        try:
            prompt = prompt_text(_kind(record), _payload(record), has_events)
        except RECORD_ERRORS:
            continue
        if prompt is not None:
            return prompt
    return None


def turn_open(records_newest_first: list[dict]) -> bool:
    """Whether the rollout ends inside a turn. Newer rollouts mark turns (`task_started` …
    `task_complete` / `turn_aborted`): open when the last mark is a start. Older ones: open
    when the last item is a call, a call's output, or a prompt the model has not answered."""
    for record in records_newest_first:
        if record.get("type") == "event_msg":
            kind = _payload(record).get("type")
            if kind in ("task_complete", "turn_complete", "turn_aborted"):
                return False
            if kind in ("task_started", "turn_started"):
                return True
    for record in records_newest_first:
        payload = _payload(record)
        kind = payload.get("type")
        if record.get("type") == "event_msg":
            if kind == "agent_message":
                return False
            if kind == "user_message":
                return True
            continue
        if kind in CALLS or kind in OUTPUTS:
            return True
        if kind == "message":
            try:
                return prompt_text(_kind(record), payload, False) is not None
            except RECORD_ERRORS:
                return False
    return False


def read_rollouts(thread: str, infos: list[FileInfo], titles: dict[str, str]) -> SessionRecord:
    """The session record of a thread's rollout files (oldest segment first)."""
    cwd = first = None
    head = []
    for n, record in enumerate(chunk_records(read_head(infos[0].path))):
        payload = _payload(record)
        head.append(record)
        if n == 0 and record.get("type") == "session_meta":
            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
            first = parse_time(payload.get("timestamp"))
        first = first or parse_time(record.get("timestamp"))
        if cwd is None:
            found = CWD.search(_text(payload))
            cwd = found.group(1).strip() if found else (payload.get("cwd") if isinstance(payload.get("cwd"), str) else None)
        if (cwd and first and _is_event_prompt(record)) or n > 200:
            break
    prompt = first_prompt(head)
    newest = max(infos, key=lambda i: i.mtime_ns)
    newest_first: list[dict] = []
    for record in newest_records(newest.path, newest.size):
        newest_first.append(record)
        if _payload(record).get("type") in ("task_complete", "turn_complete", "turn_aborted", "task_started", "turn_started") \
                or len(newest_first) > 100:
            break
    last = next((t for t in (parse_time(r.get("timestamp")) for r in newest_first) if t is not None), None)
    title = short_title(titles.get(thread) or (preview(prompt) or "(empty prompt)" if prompt is not None else thread))
    return SessionRecord("codex", thread, cwd, title, infos, first, last or first, turn_open=turn_open(newest_first))


def inventory_codex(home: Path, cache: Path | None = None) -> Inventory:
    """Every thread of the Codex home with all its rollout files."""
    summaries = SummaryCache(cache, "codex", home)
    threads: dict[str, list[Path]] = {}
    for base in (home / "sessions", home / "archived_sessions"):
        for folder, _dirs, names in os.walk(base) if base.is_dir() else []:
            for name in sorted(names):
                found = ROLLOUT.match(name)
                if found:
                    threads.setdefault(found.group(1).lower(), []).append(Path(folder) / name)
    titles = codex_titles(home, [])  # the names the reader shows (session_index.jsonl, state_*.sqlite)
    sessions = []
    for thread, paths in sorted(threads.items()):
        paths = sorted(paths, key=lambda p: p.name)
        infos = [i for i in (file_info(p) for p in paths) if i is not None]
        if infos:
            record = summaries.session("codex", thread, infos, lambda t=thread, i=infos: read_rollouts(t, i, titles))
            if thread in titles:  # renamed since it was cached
                record.title = short_title(titles[thread])
            sessions.append(record)
    summaries.save()
    return Inventory("codex", home, sessions, [])


