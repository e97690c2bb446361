"""A cache of what the inventory read from each transcript (project, title, first and last
activity, whether the last turn ended), kept in memtui's cache folder — never in the agent's
home. An entry is used only while its files keep the size and mtime it was read at, so a
warm listing of thousands of sessions costs a stat per file."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from memtui.core.atomic import write_atomic
from memtui.core.cleanup.files import FileInfo
from memtui.core.cleanup.inventory import SessionRecord

VERSION = 6  # 2: a session begun with a slash command is titled by it; 3: a cut title ends in …;
# 4: a Codex thread is titled as the reader titles it (its first user_message event where it has them);
# 5: a Windows project's drive letter is upper case (c:\ and C:\ are one project);
# 6: a first line longer than the head is read whole (Codex 0.171's session_meta: no folder, start or title)


class SummaryCache:
    """Session summaries of one home, keyed by the files' path, size and mtime."""

    def __init__(self, folder: Path | None, agent: str, home: Path) -> None:
        self.path = None if folder is None else Path(folder) / f"inventory-{agent}-{hashlib.sha256(str(home).encode()).hexdigest()[:16]}.json"
        self.entries: dict[str, Any] = {}
        self.used: dict[str, Any] = {}
        if self.path is not None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if data.get("version") == VERSION and isinstance(data.get("entries"), dict):
                    self.entries = data["entries"]
            except (OSError, ValueError, AttributeError):
                pass

    def session(self, agent: str, session_id: str, infos: list[FileInfo], read: Callable[[], SessionRecord]) -> SessionRecord:
        """The cached summary if `infos` are unchanged, else `read()` (and remember it)."""
        key = str(infos[0].path)
        stamp = [[str(i.path), i.size, i.mtime_ns] for i in infos]
        hit = self.entries.get(key)
        if hit is not None and hit.get("stamp") == stamp:
            self.used[key] = hit
            when = {k: datetime.fromisoformat(hit[k]) if hit.get(k) else None for k in ("first", "last")}
            return SessionRecord(agent, session_id, hit["project"], hit["title"], list(infos), when["first"], when["last"],
                                 turn_open=hit["turn_open"])
        record = read()
        self.used[key] = {"stamp": stamp, "project": record.project, "title": record.title, "turn_open": record.turn_open,
                          "first": record.first_activity.isoformat() if record.first_activity else None,
                          "last": record.last_activity.isoformat() if record.last_activity else None}
        return record

    def save(self) -> None:
        """Write the entries used this time (atomically), if anything changed."""
        if self.path is None or self.used == self.entries:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps({"version": VERSION, "entries": self.used}).encode("utf-8"))
