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


def registry(home: Path | None) -> Path | None:
    """The home's process registry folder, or None when this home has none (Claude Code
    versions before it, or no process ever started here)."""
    folder = Path(home) / "sessions" if home is not None else None
    return folder if folder is not None and folder.is_dir() else None


def running_sessions(home: Path | None) -> set[str]:
    """Session ids that `sessions/<pid>.json` names with a pid still running."""
    out: set[str] = set()
    folder = registry(home)
    if folder is None:
        return out
    for entry in os.scandir(folder):
        if not entry.name.endswith(".json"):
            continue
        try:
            record = json.loads(Path(entry.path).read_text(encoding="utf-8", errors="replace"))
            pid = int(record.get("pid") or entry.name.split(".")[0])
            os.kill(pid, 0)
        except PermissionError:
            pass  # alive, another user's process
        except (OSError, ValueError, AttributeError, json.JSONDecodeError):
            continue  # unreadable, or the process is gone (ProcessLookupError)
        if isinstance(record.get("sessionId"), str):
            out.add(record["sessionId"])
    return out


def session_status(home: Path | None, session_id: str, running: set[str]) -> str:
    """"open" when a live process registered the session; "closed" when this home keeps a
    registry that does not name it; "unknown" when nothing on disk tells."""
    if session_id in running:
        return "open"
    return "closed" if registry(home) is not None else "unknown"
