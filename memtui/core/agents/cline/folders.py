"""Where a Cline data folder keeps its tasks, told by names and places alone: a task folder
(`tasks/<taskId>/` holding ui_messages.json or api_conversation_history.json), a 3.x CLI session
folder (`sessions/<id>/<id>.messages.json`), the task history (`state/taskHistory.json`).
Discovery asks this module without importing the reader (tasks.py, sessions.py, source.py)."""

from __future__ import annotations

import json
from pathlib import Path

UI = "ui_messages.json"
API = "api_conversation_history.json"
HISTORY = ("state", "taskHistory.json")


def is_task_folder(folder: Path) -> bool:
    return (folder / UI).is_file() or (folder / API).is_file()


def is_session_folder(folder: Path) -> bool:
    return (folder / f"{folder.name}.messages.json").is_file()


def session_files(folder: Path) -> tuple[str, str]:
    """The files of a task folder that the sessions pane measures ("Stored") and whose stat keys
    tell that Cline wrote to the session: a 3.x session's `<id>.json` and `<id>.messages.json`,
    else ui_messages.json and api_conversation_history.json."""
    if is_session_folder(folder):
        return str(folder / f"{folder.name}.json"), str(folder / f"{folder.name}.messages.json")
    return str(folder / UI), str(folder / API)


def task_history(data: Path) -> dict[str, dict]:
    """`state/taskHistory.json` of a Cline data folder by task id ({} when absent or unreadable)."""
    try:
        items = json.loads((data.joinpath(*HISTORY)).read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    return {str(i["id"]): i for i in items if isinstance(i, dict) and "id" in i} if isinstance(items, list) else {}


def task_folders(data: Path) -> list[Path]:
    """The task folders of a data folder (`tasks/<id>/`, and the 3.x CLI's `sessions/<id>/`),
    oldest first (their ids start with their start times)."""
    found = []
    for kind, check in (("tasks", is_task_folder), ("sessions", is_session_folder)):
        try:
            found += [p for p in (data / kind).iterdir() if p.is_dir() and check(p)]
        except OSError:
            continue
    return sorted(found, key=lambda p: p.name)
