"""OpenCode 1.18's SQLite store, `opencode.db`, read-only (never a byte written, no -wal/-shm
created: memtui.core.sqlite_readonly).

How its records map onto sessions, tasks, steps and file changes (sub-agents nested under the
task that started them): memtui.core.agents.opencode.index.

A change whose both sides are known rolls back under the directory its session recorded, or
under --root: the rollback engine checks containment and conflicts, writes atomically and keeps
the undo in memtui's state folder (memtui.core.sources.transcript_undo); nothing is written into
OpenCode's database or snapshot store.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from functools import partial
from pathlib import Path
from typing import Callable, Hashable

from memtui.core.agents.opencode.index import Change, OpenCodeIndex, read_index
from memtui.core.memory_source import Capability, LiveWatch, ResumeHooks, RollbackHooks, UnknownId
from memtui.core.model import (CheckpointInfo, Id, MessageInfo, Problem, Reference, ResumeCommand, StepInfo,
                               TaskInfo)
from memtui.core.paths import stat_key
from memtui.core.sources.base import ContentUnknown, SourceEntryInfo, page
from memtui.core.sources.listing import ListedRow, Listing, ListingSource, listing_of
from memtui.core.sources.transcript_root import restore_note
from memtui.core.sources.transcript_undo import UndoRecorder
from memtui.core.sqlite_readonly import connect_readonly

READING = frozenset({Capability.DIFF, Capability.RESUME, Capability.LIVE, Capability.SEARCH, Capability.SQLITE_STATS})
CLEANUP_REFUSAL = ("OpenCode keeps every session in one SQLite database (opencode.db), not in a file per session:"
                   " archiving one would mean writing into OpenCode's database, which memtui never does;"
                   " `memtui stats PATH` shows what the database holds")


class OpenCodeListing(Listing):
    """OpenCode's session listing (its parts keyed by this package's code)."""


def index_db(db: Path, workspace_filter: str | None = None) -> OpenCodeIndex:
    """The index of the OpenCode database `db` (of one workspace's sessions when filtered)."""
    ix = OpenCodeIndex()
    try:
        conn = connect_readonly(db)
    except sqlite3.Error as exc:
        ix.problems.append(Problem(str(db), None, f"cannot open: {exc}"))
        return ix
    try:
        ix = read_index(conn, db.parent, db, workspace_filter)
    except sqlite3.Error as exc:
        ix.problems.append(Problem(str(db), None, f"cannot read: {exc}"))
    finally:
        conn.close()
    return ix


def index_listing(db: Path, ix: OpenCodeIndex) -> OpenCodeListing:
    """The session rows of an index, each with the folder it recorded (for rollback's offer)."""
    rows = [ListedRow(s, str(db), None, ix.session_dirs.get(str(s.id))) for s in ix.sessions.values()]
    return listing_of(rows, ix.counts, ix.problems, OpenCodeListing)  # type: ignore[return-value]


def read_listing(db: Path, workspace_filter: str | None = None) -> OpenCodeListing:
    """The listing of the database: read whole (one part), again when it or its log changed."""
    return index_listing(db, index_db(db, workspace_filter))


def db_signature(db: Path) -> tuple | None:
    """The database's and its write-ahead log's stat keys: a commit changes one of them."""
    own = stat_key(db)
    return None if own is None else (own, stat_key(db.with_name(db.name + "-wal")))


class OpenCodeSource(UndoRecorder, ListingSource[OpenCodeIndex], RollbackHooks, ResumeHooks, LiveWatch):
    """The sessions of one OpenCode database (of one workspace when `workspace_filter` is set)."""

    kind = "opencode"
    label = "OpenCode"
    agent_processes = ("opencode",)
    listing_class = OpenCodeListing
    listed_from_index = True
    workspace: Path | None = None  # the --root folder (with_root), where recorded paths are restored

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """Diffs, resume, following; rollback when a folder to restore under is on this machine
        (the --root given, or a session's recorded directory)."""
        if self.workspace is not None:
            here = Path(self.workspace).is_dir()
        else:
            listed = self.listing()  # the sessions' recorded folders: no message read for them
            known = self.__dict__.get("_folders_of")
            if known is None or known[0] is not listed:  # asked at every key the footer shows: once per listing
                known = self._folders_of = (listed, any(Path(r.extra).is_dir() for r in listed.sessions.values() if r.extra))
            here = known[1]
        return READING | {Capability.ROLLBACK} if here else READING

    def instead(self, capability: Capability) -> str:
        if capability is Capability.CLEANUP:
            return CLEANUP_REFUSAL
        if capability is Capability.ROLLBACK and capability not in self.withheld:
            return ("its sessions worked in folders that are not on this machine; open this store with --root DIR"
                    " (memtui PATH --root DIR) to restore into a copy of the project")
        return super().instead(capability)

    def __init__(self, db: Path, workspace_filter: Path | None = None) -> None:
        db = Path(db)
        super().__init__(db.parent)
        self.db = db
        self.workspace_filter = os.path.realpath(workspace_filter) if workspace_filter else None


    def sqlite_files(self) -> list[Path]:
        """opencode.db, for `memtui stats` (read-only)."""
        return [self.db]

    def watched_files(self) -> list[Path]:
        """The database and its write-ahead log (stat only: a commit changes one of them)."""
        return [self.db, self.db.with_name(self.db.name + "-wal")]

    # -- index -------------------------------------------------------------------------------
    def build_index(self) -> OpenCodeIndex:
        return index_db(self.db, self.workspace_filter)

    def units(self) -> list[Path]:
        return [self.db]

    def unit_signature(self) -> Callable[[Path], Hashable | None]:
        return db_signature

    def unit_reader(self) -> Callable[[Path], Listing]:
        return partial(read_listing, workspace_filter=self.workspace_filter)

    def index_listing(self, ix: OpenCodeIndex) -> Listing:
        return index_listing(self.db, ix)

    def listing_kind(self) -> str:
        """One workspace's sessions are listed apart from the whole database's."""
        if self.workspace_filter is None:
            return self.kind
        return f"{self.kind}-{hashlib.sha256(self.workspace_filter.encode('utf-8', 'surrogateescape')).hexdigest()[:12]}"

    # -- read model --------------------------------------------------------------------------
    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        if session_id is None:
            return []  # every task has its session: no orphans
        ix = self.index()
        return [ix.tasks[t].info for t in ix.order.get(str(session_id), [])]

    def task(self, task_id: Id) -> TaskInfo:
        return self.found(self.index().tasks, task_id, "task").info

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        return page(self.found(self.index().tasks, task_id, "task").steps, offset, limit)

    def messages(self, task_id: Id) -> list[MessageInfo]:
        """The prompt, then OpenCode's text replies."""
        task = self.found(self.index().tasks, task_id, "task")
        out = [MessageInfo(id=f"{task.info.id}/prompt", task_id=task.info.id, role="user", content=task.info.summary,
                           created_at=task.info.created_at)]
        return out + [MessageInfo(id=f"{s.id}/reply", task_id=task.info.id, role="assistant", content=s.result,
                                  created_at=s.created_at)
                      for s in task.steps if s.tool == "reply" and isinstance(s.result, str) and s.result]

    def references(self, task_id: Id) -> list[Reference]:
        """Handoffs at either end: the task whose `task` call started a sub-agent → its tasks."""
        ix = self.index()
        found = [Reference(from_task=str(task_id), to_task=child, kind="handoff")
                 for child in ix.handoffs.get(str(task_id), [])]
        return found + [Reference(from_task=parent, to_task=str(task_id), kind="handoff")
                        for parent, children in ix.handoffs.items() if str(task_id) in children]

    def step(self, step_id: Id) -> StepInfo:
        return self.found(self.index().steps, step_id, "step")

    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        task = self.found(self.index().tasks, task_id, "task")
        return [CheckpointInfo(id=c.step_id, task_id=task.info.id, step_id=c.step_id,
                               created_at=self.index().steps[c.step_id].created_at, entry_count=1)
                for c in task.changes] + self.undo_checkpoints(task.info.id)

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        if self.is_undo(checkpoint_id):
            return self.undo_checkpoint(checkpoint_id)
        task_id, change = self.found(self.index().changes, checkpoint_id, "checkpoint")
        return CheckpointInfo(id=change.step_id, task_id=task_id, step_id=change.step_id,
                              created_at=self.index().steps[change.step_id].created_at, entry_count=1)

    def _relative(self, change: Change, session_id: Id | None) -> str:
        cwd = self.index().session_dirs.get(str(session_id)) if session_id is not None else None
        if cwd and change.path.startswith(cwd.rstrip("/") + "/"):
            return change.path[len(cwd.rstrip("/")) + 1:]
        return change.path

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        if self.is_undo(checkpoint_id):
            return self.undo_entries(checkpoint_id)
        task_id, c = self.found(self.index().changes, checkpoint_id, "checkpoint")
        session_id = self.index().tasks[task_id].info.session_id
        return [SourceEntryInfo(id=f"{c.step_id}:0", checkpoint_id=c.step_id, path=self._relative(c, session_id),
                                kind=c.kind, before_size=len(c.before) if c.before is not None else None,
                                after_size=len(c.after) if c.after is not None else None,
                                before_known=c.before_known, after_known=c.after_known,
                                unknown_reason=c.reason, diff=c.diff)]

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        if self.is_undo(entry_id):
            return self.undo_entry(entry_id)
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        if not str(entry_id).endswith(":0") or checkpoint_id not in self.index().changes:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        return self.checkpoint_entries(checkpoint_id)[0]

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) where OpenCode's records hold them (an unknown side is None: see the
        entry's `before_known`/`after_known`); ContentUnknown when neither is (the entry's diff
        holds the change). A rollback restores only an entry whose both sides are known."""
        if self.is_undo(entry_id):
            return self.undo_read(entry_id)
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        found = self.index().changes.get(checkpoint_id)
        if found is None or not str(entry_id).endswith(":0"):
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        c = found[1]
        if not (c.before_known or c.after_known):
            raise ContentUnknown(f"{c.path}: {c.reason}")
        return c.before, c.after

    # -- rollback and resume --------------------------------------------------------------------
    def workspace_root(self, task_id: Id) -> Path | None:
        """The directory the task's session recorded (its change paths are relative to it)."""
        task = self.index().tasks.get(str(task_id))
        cwd = self.index().session_dirs.get(str(task.info.session_id)) if task is not None else None
        return Path(cwd) if cwd else None

    def recorded_cwds(self) -> frozenset[str]:
        return frozenset(d for d in self.index().session_dirs.values() if d)

    def rollback_note(self, task_id: Id, root: Path) -> str:
        recorded = self.recorded_cwds()
        return restore_note(root, self.workspace, Path(next(iter(recorded))) if len(recorded) == 1 else None,
                            self.workspace_root(task_id))

    def resume_command(self, session_id: Id) -> ResumeCommand:
        cwd = self.index().session_dirs.get(str(session_id))
        return ResumeCommand(("opencode", "--session", str(session_id)), Path(cwd) if cwd else None)
