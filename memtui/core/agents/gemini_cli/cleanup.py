"""Inventory of a Gemini CLI home (`$GEMINI_CLI_HOME/.gemini` or `~/.gemini`).

A session is its chat file, `tmp/<project>/chats/session-*.jsonl` (older: `session-*.json`),
with the folder older versions kept beside it for its sub-agents' chats
(`chats/<sessionId>/`). What a project shares — `logs.json`, `.project_root`, the shadow git
repository of `history/<project>/`, `projects.json`, the settings — belongs to no session and
is never touched. A session's project is the folder its tmp folder's `.project_root` names.
Read-only: summaries go to memtui's cache folder (SummaryCache).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from memtui.core.agents.gemini_cli.chats import read_chat
from memtui.core.agents.gemini_cli.home import chats_in, project_root_of
from memtui.core.cleanup.files import FileInfo, file_info, short_title, walk_files
from memtui.core.cleanup.inventory import Inventory, SessionRecord
from memtui.core.cleanup.summaries import SummaryCache
from memtui.core.model import Problem
from memtui.core.sources.base import preview

AGENT = "gemini-cli"


def is_gemini_home(path: Path) -> bool:
    """A folder laid out as a Gemini home: tmp/ holding a project's folder (its chats/, or its
    .project_root once every chat was archived and the emptied chats/ went with the last)."""
    try:
        return (path / "tmp").is_dir() and any((p / "chats").is_dir() or (p / ".project_root").is_file()
                                               for p in (path / "tmp").iterdir())
    except OSError:
        return False


def read_session(chat: Path, infos: list[FileInfo], project: str | None) -> SessionRecord:
    """The session record of one chat file: its first prompt as the title, its first and last
    activity, and whether its last prompt has had no answer yet (the agent may be writing)."""
    problems: list[Problem] = []
    found = read_chat(chat, problems)
    if found is None:
        return SessionRecord(AGENT, chat.stem, project, short_title(chat.stem), infos)
    title = short_title(preview(found.turns[0].prompt) if found.turns else found.id)
    last = found.updated_at
    for turn in found.turns:
        for step in turn.steps:
            last = max((t for t in (last, step.finished_at, step.created_at) if t is not None), default=last)
    open_turn = bool(found.turns) and not found.turns[-1].steps
    return SessionRecord(AGENT, found.id, project, title, infos, found.created_at, last or found.created_at,
                         turn_open=open_turn)


def inventory_gemini(home: Path, cache: Path | None = None) -> Inventory:
    """Every chat of the Gemini home, each with its sub-agents' folder where one is kept."""
    summaries = SummaryCache(cache, AGENT, home)
    sessions = []
    try:
        projects = sorted(p for p in (home / "tmp").iterdir() if p.is_dir())
    except OSError:
        projects = []
    for folder in projects:
        root = project_root_of(folder)
        for chat in chats_in(folder):
            info = file_info(chat)
            if info is None:
                continue
            infos: list[FileInfo] = [info]
            dirs: list[Path] = []
            sid = session_id(chat)
            sub = chat.parent / sid
            if sub.is_dir():
                more, dirs = walk_files(sub)
                infos += more
            record = summaries.session(AGENT, sid, infos, partial(read_session, chat, infos, str(root) if root else None))
            record.dirs = dirs
            sessions.append(record)
    summaries.save()
    return Inventory(AGENT, home, sessions, [])


def session_id(chat: Path) -> str:
    """The session id a chat file's header names (older sub-agent chats sit in a folder of it);
    the file's name when it names none."""
    try:
        with open(chat, "rb") as f:
            head = f.readline(1 << 20) if chat.suffix == ".jsonl" else f.read()
    except OSError:
        return chat.stem
    try:
        first = json.loads(head)
    except (ValueError, RecursionError):
        return chat.stem
    value = first.get("sessionId") if isinstance(first, dict) else None
    return value if isinstance(value, str) and value and "/" not in value and value not in (".", "..") else chat.stem


RETENTION_DAYS = 30.0  # Gemini CLI 0.61's default general.sessionRetention.maxAge ("30d"), on by default
_UNITS = {"h": 1 / 24, "d": 1.0, "w": 7.0}


def retention_days(home: Path) -> float | None:
    """After how many days Gemini CLI deletes a chat when it starts (its settings.json's
    general.sessionRetention), or None when that is turned off."""
    try:
        data = json.loads((home / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        data = {}
    general = data.get("general") if isinstance(data, dict) else None
    retention = general.get("sessionRetention") if isinstance(general, dict) else None
    retention = retention if isinstance(retention, dict) else {}
    if retention.get("enabled") is False:
        return None
    age = retention.get("maxAge")
    if isinstance(age, str) and age[:-1].isdigit() and age[-1:] in _UNITS:
        return int(age[:-1]) * _UNITS[age[-1]]
    return RETENTION_DAYS


def restore_note(home: Path, age_days: float) -> str:
    """What to know after restoring a chat `age_days` old: Gemini CLI may delete it again."""
    days = retention_days(home)
    if days is None or age_days <= days:
        return ""
    return (f"its chat is {int(age_days)} days old and Gemini CLI deletes chats older than"
            f" general.sessionRetention.maxAge ({days:g} days) when it starts: raise it in {home / 'settings.json'}"
            " to keep the chat there")
