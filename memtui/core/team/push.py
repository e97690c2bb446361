"""`memtui push`: copy a machine's stores into the team store.

    report = push([Path.home()], "postgresql://team@db/memtui", machine="laptop-7")

Every store memtui reads at the PATHs given (memtui's own, Claude Code's and Codex's homes and
every other agent's, as `memtui sources PATH` lists them) is read through its source's read
model and each session written into the team store in one transaction
(memtui.core.store.pushed), named by its origin: this machine, the user, the agent, the
store's path and the session's id there.

Incremental and idempotent: a source file (or folder) whose size, mtime and inode are those of
its cursor — recorded once all its sessions were in — is not read at all; a session whose
fingerprint is the one pushed is not written again; contents are content-addressed. A push
killed at any moment leaves whole sessions only, and the next one finishes the rest.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

import peewee

from memtui.core.errors import MemtuiError, StoreNotFound
from memtui.core.memory_source import MemorySource
from memtui.core.model import SessionInfo, TaskInfo
from memtui.core.store import AgentStore
from memtui.core.store.pushed import ORPHANS, Origin, PushedCheckpoint, PushedSession, PushedTask
from memtui.core.store.team import TeamStore

__all__ = ["push", "PushReport", "SourcePush", "read_session", "fingerprint", "cursor_key"]

RETRIES = 5  # a session's transaction is tried again when it met another pusher's (a unique content, a deadlock)


@dataclass
class SourcePush:
    """What one source gave."""

    kind: str
    path: str
    unchanged: bool = False  # its cursor matched: not read
    sessions: int = 0  # sessions read (its orphan tasks, if any, as one)
    written: int = 0  # sessions written (new or changed)
    rows: int = 0
    blobs: int = 0
    content_bytes: int = 0  # bytes of file contents read from it


@dataclass
class PushReport:
    machine: str
    team: str
    dry_run: bool
    sources: list[SourcePush] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.sources)

    @property
    def written(self) -> int:
        return sum(s.written for s in self.sources)

    def to_json(self) -> dict:
        return {"machine": self.machine, "team": self.team, "dry_run": self.dry_run,
                "sessions": sum(s.sessions for s in self.sources), "written": self.written, "rows": self.rows,
                "blobs": sum(s.blobs for s in self.sources), "seconds": round(self.seconds, 3),
                "sources": [asdict(s) for s in self.sources]}


def default_machine() -> str:
    return socket.gethostname() or "unknown"


def cursor_key(path: Path) -> tuple[int, int, int]:
    """(size, mtime_ns, inode) of a store's file with its write-ahead log; of a folder, the total
    size and newest mtime of every file under it and their number (a new, grown or touched file
    changes it)."""
    if path.is_file():
        st = path.stat()
        size, mtime = st.st_size, st.st_mtime_ns
        for side in (Path(f"{path}-wal"),):
            if side.exists():
                side_st = side.stat()
                size, mtime = size + side_st.st_size, max(mtime, side_st.st_mtime_ns)
        return size, mtime, st.st_ino
    size = mtime = count = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            size, mtime, count = size + st.st_size, max(mtime, st.st_mtime_ns), count + 1
    return size, mtime, count


def fingerprint(info: SessionInfo | None, tasks: Iterable[TaskInfo]) -> str:
    """What changes when a session grows, finishes or is collected: its own and its tasks' state
    (`info` None: the store's orphan tasks)."""
    when = (lambda d: None if d is None else d.timestamp())
    own = [] if info is None else [info.title, info.status, when(info.updated_at), info.task_count,
                                   info.stored_bytes, info.files_key]
    doc = [own,
           [[str(t.id), t.status, when(t.updated_at), t.step_count, t.checkpoint_count, t.collected, t.pinned,
             t.summary] for t in tasks]]
    return hashlib.sha256(json.dumps(doc, default=str).encode()).hexdigest()


def read_session(source: MemorySource, info: SessionInfo | None, tasks: list[TaskInfo]) -> tuple[PushedSession, int]:
    """The whole session as the source reads it, and the bytes of file contents in it. A side of
    an entry the source cannot read (an agent that recorded no copy) is left out (None)."""
    pushed = PushedSession(info, fingerprint(info, tasks))
    content = 0
    refs = {}
    for task in tasks:
        # Each step with its model and tokens by kind: the team store prices them as the
        # machine's own usage does (memtui.core.store.pushed).
        item = PushedTask(task, steps=list(source.steps(task.id)), messages=list(source.messages(task.id)),
                          questions=list(source.questions(task.id))
                          if isinstance(source, AgentStore) and isinstance(task.id, int) else [])
        for cp in source.checkpoints(task.id):
            entries: list[tuple[str, bytes | None, bytes | None]] = []
            for entry in source.checkpoint_entries(cp.id):
                try:
                    before, after = source.read_entry(entry.id)
                except (MemtuiError, KeyError, ValueError, OSError):
                    before = after = None
                content += len(before or b"") + len(after or b"")
                entries.append((entry.path, before, after))
            item.checkpoints.append(PushedCheckpoint(cp.step_id, cp.label, cp.created_at, entries))
        for ref in source.references(task.id):
            refs[(ref.from_task, ref.to_task, ref.kind)] = ref
        pushed.tasks.append(item)
    pushed.references = list(refs.values())
    return pushed, content


def _sources(paths: Iterable[Path], env: Mapping[str, str] | None) -> list:
    from memtui.core.discovery import discover_given

    found, seen = [], set()
    for path in paths:
        for entry in discover_given(path, env=dict(env) if env is not None else None):
            key = (entry.kind, str(entry.path))
            if entry.kind != "memory-files" and key not in seen:
                seen.add(key)
                found.append(entry)
    return found


def push(paths: Iterable[Path], url: str, *, machine: str | None = None, dry_run: bool = False,
         env: Mapping[str, str] | None = None, progress: Callable[[str], None] | None = None,
         stop: Callable[[], bool] | None = None) -> PushReport:
    """Push every store found at `paths` into the team store at `url` (created on first push;
    a dry run creates and writes nothing and says what a push would write). `stop`: asked before
    each session; when it answers True the push ends there with KeyboardInterrupt (the sessions
    written stay, each whole; the next push goes on from them)."""
    started = time.monotonic()
    machine = machine or default_machine()
    user = getpass.getuser()
    report = PushReport(machine, url, dry_run)
    team = _open_team(url, dry_run)
    try:
        for entry in _sources(paths, env):
            done = SourcePush(entry.kind, str(entry.path))
            report.sources.append(done)
            key = cursor_key(Path(entry.path))
            if team is not None and team.push_cursor(machine, done.path) == key:
                done.unchanged = True
                continue
            with entry.open() as source:
                for info in [*source.sessions(), None]:  # None: the orphan tasks, if any
                    if stop is not None and stop():
                        raise KeyboardInterrupt
                    session_key = ORPHANS if info is None else str(info.id)
                    _push_session(team, source, Origin(machine, user, entry.kind, done.path, session_key), info,
                                  done, dry_run)
                    if progress is not None:
                        progress(f"{entry.kind} {done.path}: {done.sessions} sessions, {done.written} written")
            if team is not None and not dry_run:
                team.set_push_cursor(machine, done.path, key)
    finally:
        if team is not None:
            team.close()
    report.seconds = time.monotonic() - started
    return report


def _open_team(url: str, dry_run: bool) -> TeamStore | None:
    if not dry_run:
        return TeamStore.open(url)
    try:
        return TeamStore.open(url, readonly=True)
    except StoreNotFound as exc:
        if "no memtui store" in str(exc):
            return None  # nothing pushed yet: every session would be written
        raise


def _push_session(team: TeamStore | None, source: MemorySource, origin: Origin, info: SessionInfo | None,
                  done: SourcePush, dry_run: bool) -> None:
    tasks = list(source.tasks(None if info is None else info.id))
    if info is None and not tasks:
        return  # no orphans
    done.sessions += 1  # a store's orphan tasks count as one
    if team is not None and team.pushed_fingerprint(origin) == fingerprint(info, tasks):
        return
    pushed, content = read_session(source, info, tasks)
    done.content_bytes += content
    if dry_run or team is None:
        done.written += 1
        return
    for attempt in range(RETRIES):
        try:
            written = team.write_pushed(origin, pushed)
            break
        except (peewee.IntegrityError, peewee.OperationalError):
            if attempt == RETRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    if written.rows:
        done.written += 1
    done.rows += written.rows
    done.blobs += written.blobs
