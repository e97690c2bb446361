"""Which Claude Code sessions a running process has open.

Claude Code registers each running process in `<home>/sessions/<pid>.json` (`pid`,
`sessionId`, `cwd`, …) and removes the file when it exits; a file left by a crash names a pid
that is gone. Its transcripts record no end of a session, so this registry is the only thing
on disk that tells whether a session is open. Read-only: the registry is never written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memtui.core.atomic import writer_running


def registry(home: Path | None) -> Path | None:
    """The home's process registry folder, or None when this home has none (Claude Code
    versions before it, or no process ever started here)."""
    folder = Path(home) / "sessions" if home is not None else None
    return folder if folder is not None and folder.is_dir() else None


def running_sessions(home: Path | None) -> set[str]:
    """Session ids that `sessions/<pid>.json` names with its process still running (a pid
    reused by a process started after the file was written does not count)."""
    out: set[str] = set()
    folder = registry(home)
    if folder is None:
        return out
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".json")]
    except OSError:
        return out  # removed or unreadable since registry() looked
    for entry in entries:
        try:
            record = json.loads(Path(entry.path).read_text(encoding="utf-8", errors="replace"))
            changed = entry.stat()
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or not isinstance(record.get("sessionId"), str):
            continue
        pid = record.get("pid")
        if type(pid) is not int:  # bool or missing: the file's name is the pid
            pid = int(entry.name[:-5]) if entry.name[:-5].isdigit() else 0
        if writer_running(pid, max(changed.st_ctime, changed.st_mtime)):
            out.add(record["sessionId"])
    return out


def session_status(session_id: str, running: set[str], kept: bool) -> str:
    """"open" when a live process registered the session; "closed" when the home keeps a
    registry (`kept`: `registry(home)` is not None) that does not name it; "unknown" when
    nothing on disk tells."""
    if session_id in running:
        return "open"
    return "closed" if kept else "unknown"
