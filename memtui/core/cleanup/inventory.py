"""What is in an agent's home: every session with all the files that belong to it, and the
files that belong to no session (orphans). Read-only: nothing here writes anywhere.

A session's first/last activity come from its records (timestamps), falling back to file
times; `turn_open` says its transcript ends inside a turn (the agent may still be writing);
`running` says a live process of the agent registered it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from memtui.core.cleanup.files import FileInfo

if TYPE_CHECKING:
    from memtui.core.memory_source import MemorySource




@dataclass
class SessionRecord:
    """One session of an agent and every file that belongs to it (transcript first)."""

    agent: str
    id: str
    project: str | None
    title: str
    files: list[FileInfo]
    first_activity: datetime | None = None
    last_activity: datetime | None = None
    turn_open: bool = False
    running: bool = False
    dirs: list[Path] = field(default_factory=list)  # folders only this session uses

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def newest_mtime(self) -> datetime:
        return datetime.fromtimestamp(max(f.mtime_ns for f in self.files) / 1e9, tz=timezone.utc)

    @property
    def activity(self) -> datetime:
        """The last activity the records show, or the newest file time without records."""
        return self.last_activity or self.newest_mtime


@dataclass
class OrphanRecord:
    """Files that name a session whose transcript is gone (`owner` is that session's id)."""

    agent: str
    owner: str
    path: Path
    files: list[FileInfo]
    what: str  # e.g. "file-history of a session whose transcript is gone"
    dirs: list[Path] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def newest_mtime(self) -> datetime:
        newest = max((f.mtime_ns for f in self.files), default=0)
        return datetime.fromtimestamp(newest / 1e9, tz=timezone.utc)


@dataclass
class Inventory:
    """Everything found in one agent home. `open_session` reads one session's files with the
    agent's own adapter (to count its tasks when archiving); memtui.core.homes sets it."""

    agent: str
    home: Path
    sessions: list[SessionRecord]
    orphans: list[OrphanRecord]
    open_session: Callable[[Path, list[FileInfo]], MemorySource] | None = field(default=None, compare=False, repr=False)
