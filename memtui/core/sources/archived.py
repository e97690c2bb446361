"""Archived sessions beside live ones: a Claude Code or Codex source plus the sessions
`memtui cleanup` moved into memtui's archive, listed with status "archived".

Listing reads the manifests only. Opening an archived session unpacks its files once into
memtui's cache (never into the agent's home) and reads them with the agent's own adapter,
so browsing, diffs and search work as for a live session. Ids of turns, steps and file
changes start with "<session id>:" in both adapters: that prefix routes each call.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, ContextManager, Self, Sequence

from memtui.core.cleanup.archive_read import list_archived, unpacked_view
from memtui.core.cleanup.manifest import ArchiveError, Manifest
from memtui.core.memory_source import Capability, LiveWatch, MemorySource, ResumeHooks, RollbackHooks
from memtui.core.model import CheckpointInfo, EntryInfo, Id, MessageInfo, Problem, Reference, SessionInfo, StepInfo, TaskInfo
from memtui.core.sources.base import TRANSCRIPT_ALWAYS
from memtui.core.sources.timestamps import parse_time, sort_key
from memtui.core.sources.transcript_root import RecordedRoot, folder_capabilities, restore_note
from memtui.core.sources.transcript_undo import UndoRecorder


def _when(text: str | None) -> datetime:
    return parse_time(text) or datetime.fromtimestamp(0, tz=timezone.utc)


class WithArchived(RollbackHooks, ResumeHooks, LiveWatch):
    """`live` (a Claude Code or Codex adapter) plus the archived sessions of its home
    (of `project` only, when the source is one project's). It answers the MemorySource
    protocol and nothing else: what the live adapter offers beyond it is not reachable here.

    Where a rollback writes is decided over all its sessions, live and archived: the folder
    given with --root, else the one folder they all worked in, else the task's own session's
    folder — so an archived session's task never restores under the folder the live ones
    share. Its undo is recorded in that folder's log (`_Undo`, its writer)."""

    def __init__(self, live: RecordedRoot[Any], manifests: list[Manifest], archive_root: Path, cache: Path,
                 open_view: Callable[[Path], RecordedRoot[Any]],
                 relist: Callable[[], list[Manifest]] | None = None) -> None:
        self.live = live
        self.archive_root, self.cache, self.open_view = Path(archive_root), Path(cache), open_view
        self.manifests = {m.id: m for m in manifests if m.kind == "session"}
        self._relist = relist  # the manifests again (a cleanup archived more since)
        self._views: dict[str, RecordedRoot[Any]] = {}
        self._archived: set[str] | None = None
        self._folders_of: tuple[frozenset[str], frozenset[str], bool] | None = None
        self._lock = threading.RLock()
        self._problems: list[Problem] = []
        self._root: Path | None = None  # --root: where recorded paths are restored
        self._undo = _Undo(self)

    # -- identity: the live source's --------------------------------------------------------
    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.live.kind

    @property
    def label(self) -> str:  # type: ignore[override]
        return self.live.label

    @property
    def path(self) -> Path:  # type: ignore[override]
        return self.live.path

    @property
    def workspace(self) -> Path | None:  # type: ignore[override]
        """The folder given with --root, else the one folder every session (live or archived)
        worked in; None when they worked in different ones."""
        if self._root is not None:
            return self._root
        cwds = self._cwds()
        return Path(next(iter(cwds))) if len(cwds) == 1 else None

    def with_root(self, root: Path) -> Self:
        """Bound to `root` (--root): the live sessions' and the archived ones' recorded paths
        are restored under it."""
        self._root = Path(root).expanduser()
        with self._lock:
            for source in (self.live, *self._views.values()):
                source.with_root(self._root)
        return self

    def _cwds(self) -> frozenset[str]:
        """The folders the sessions worked in: the live ones' and the archived ones'."""
        return self._folders()[0]

    def _folders(self) -> tuple[frozenset[str], bool]:
        """The sessions' folders and whether one is a folder here: worked out once per listing
        (the live index's, the manifests'), not at each of the footer's capability checks. With
        no session archived, the live sessions are not listed to tell which are archived."""
        live = self.live.recorded_cwds()  # the same set while its index is
        known = self._folders_of
        if known is None or known[0] is not live:
            archived = {self.manifests[i].project for i in self._archived_ids()} if self.manifests else set()
            cwds = frozenset({*live, *(p for p in archived if p)})
            known = self._folders_of = (live, cwds, any(Path(cwd).is_dir() for cwd in cwds))
        return known[1], known[2]

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """The live home's recorded folders', and statistics of its SQLite files where it has some."""
        return folder_capabilities(self, self._folders()[1]) | (self.live.capabilities & {Capability.SQLITE_STATS})

    def can(self, capability: Capability) -> bool:
        """As MemorySource's; what a transcript store can always do (TRANSCRIPT_ALWAYS: search
        it, follow it …) is answered without reading the sessions' folders (the live index)."""
        if capability in TRANSCRIPT_ALWAYS:
            return capability not in self.withheld
        return super().can(capability)

    def instead(self, capability: Capability) -> str:
        if capability in self.withheld:
            return super().instead(capability)
        return self.live.instead(capability)

    # -- writing: the live adapter's (an undo of a rollback is recorded in memtui's state folder)
    @property
    def undo_kept_in(self) -> str:  # type: ignore[override]
        return self.live.undo_kept_in

    def writer(self) -> ContextManager["_Undo"]:
        return self._undo.writer()

    def rollback_checkpoints(self, limit: int = 20) -> Sequence[CheckpointInfo]:
        return self._undo.rollback_checkpoints(limit)

    def rollback_note(self, task_id: Id, root: Path) -> str:
        cwds = self._cwds()
        recorded = Path(next(iter(cwds))) if len(cwds) == 1 else None
        return restore_note(root, self._root, recorded, self.workspace_root(task_id))

    def sessions_key(self, again: bool = False) -> str | None:
        """The live source's (None when it has none), and the archived sessions' manifests
        (with none archived: the live source's)."""
        live = self.live.sessions_key(again)
        if live is None or not self.manifests:
            return live
        manifests = json.dumps([m.to_json() for _id, m in sorted(self.manifests.items())], sort_keys=True, default=str)
        return hashlib.blake2b(f"{live}\0{manifests}".encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    def counts(self) -> dict[str, int]:
        return {**self.live.counts(), "archived_sessions": len(self._archived_ids())}

    def sqlite_files(self) -> list[Path]:
        return list(self.live.sqlite_files())

    @property
    def agent_processes(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.live.agent_processes

    def watched_databases(self) -> list[Path]:
        return list(self.live.watched_databases())

    def watched_files(self) -> list[Path]:
        return list(self.live.watched_files())

    def problems(self) -> list[Problem]:
        return [*self.live.problems(), *self._problems]

    def close(self) -> None:
        self.live.close()
        for view in self._views.values():
            view.close()

    def reload(self) -> None:
        self.live.reload()
        if self._relist is not None:
            self.manifests = {m.id: m for m in self._relist() if m.kind == "session"}
        self._archived = None
        self._folders_of = None

    # -- routing ------------------------------------------------------------------------------
    def _archived_ids(self) -> set[str]:
        """Archived sessions not (again) in the home: a restored one reads live."""
        if self._archived is None:
            live = {str(s.id) for s in self.live.sessions()} if self.manifests else set()
            self._archived = {i for i in self.manifests if i not in live}
        return self._archived

    def _view(self, session_id: str) -> RecordedRoot[Any]:
        with self._lock:
            if session_id not in self._views:
                manifest = self.manifests[session_id]
                try:
                    folder = unpacked_view(self.archive_root, manifest, self.cache)
                except (ArchiveError, OSError) as exc:
                    raise ArchiveError(f"archived session {session_id} cannot be opened: {exc}") from None
                view = self.open_view(folder)
                if self._root is not None:
                    view = view.with_root(self._root)
                self._views[session_id] = view
            return self._views[session_id]

    def _for(self, some_id: Id) -> RecordedRoot[Any]:
        session_id = str(some_id).split(":", 1)[0]
        if session_id in self._archived_ids():
            return self._view(session_id)
        return self.live

    @property
    def reads_forked(self) -> bool:  # type: ignore[override]
        # An archived session is read from a view unpacked into the cache folder when first
        # read: that is done in this process, not in a fork.
        return self.live.reads_forked and not self.manifests

    def reopener(self) -> Callable[[], MemorySource] | None:
        """(MemorySource's) The live sessions' source's, while no session is archived (they are
        read here then: `reads_forked`)."""
        return self.live.reopener() if not self.manifests else None

    # -- the read model -----------------------------------------------------------------------
    def sessions(self) -> Sequence[SessionInfo]:
        live = list(self.live.sessions())
        known = {str(s.id) for s in live}
        self._archived = {i for i in self.manifests if i not in known}  # as _archived_ids finds them, without listing again
        archived = [
            SessionInfo(id=m.id, title=m.title, status="archived", current_task_id=None,
                        created_at=_when(m.first_activity), updated_at=_when(m.last_activity or m.first_activity),
                        task_count=m.tasks or 0, stored_bytes=m.bytes)
            for m in self.manifests.values() if m.id not in known
        ]
        return sorted(live + archived, key=lambda s: sort_key(s.updated_at), reverse=True)  # no time: last

    def tasks(self, session_id: Id | None) -> Sequence[TaskInfo]:
        if session_id is None:
            return self.live.tasks(None)
        return self._for(session_id).tasks(session_id)

    def task(self, task_id: Id) -> TaskInfo:
        return self._for(task_id).task(task_id)

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> Sequence[StepInfo]:
        return self._for(task_id).steps(task_id, offset, limit)

    def step(self, step_id: Id) -> StepInfo:
        return self._for(step_id).step(step_id)

    def step_totals(self, task_id: Id) -> dict[str, float | None]:
        return self._for(task_id).step_totals(task_id)

    def step_usage(self, task_id: Id) -> Sequence[StepInfo]:
        return self._for(task_id).step_usage(task_id)

    def references(self, task_id: Id) -> Sequence[Reference]:
        return self._for(task_id).references(task_id)

    def checkpoints(self, task_id: Id) -> Sequence[CheckpointInfo]:
        return self._for(task_id).checkpoints(task_id)

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        if self._undo.is_undo(checkpoint_id):  # a rollback's undo: in the log of the folder it wrote under
            return self._undo.undo_checkpoint(checkpoint_id)
        return self._for(checkpoint_id).checkpoint(checkpoint_id)

    def checkpoint_entries(self, checkpoint_id: Id) -> Sequence[EntryInfo]:
        if self._undo.is_undo(checkpoint_id):  # a rollback's undo: in the log of the folder it wrote under
            return self._undo.undo_entries(checkpoint_id)
        return self._for(checkpoint_id).checkpoint_entries(checkpoint_id)

    def entry(self, entry_id: Id) -> EntryInfo:
        if self._undo.is_undo(entry_id):  # a rollback's undo: in the log of the folder it wrote under
            return self._undo.undo_entry(entry_id)
        return self._for(entry_id).entry(entry_id)

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        if self._undo.is_undo(entry_id):  # a rollback's undo: in the log of the folder it wrote under
            return self._undo.undo_read(entry_id)
        return self._for(entry_id).read_entry(entry_id)

    def messages(self, task_id: Id) -> Sequence[MessageInfo]:
        return self._for(task_id).messages(task_id)

    def thinking(self, task_id: Id) -> Sequence[MessageInfo]:
        return self._for(task_id).thinking(task_id)

    def resume_command(self, session_id: Id):
        """The agent's resume command; an archived session must be restored first."""
        if str(session_id) in self._archived_ids():
            raise ArchiveError(f"session {session_id} is in memtui's archive, not in the agent's home:"
                               f" restore it first (memtui restore --session {session_id})")
        return self.live.resume_command(session_id)

    def workspace_root(self, task_id: Id) -> Path | None:
        return self._for(task_id).workspace_root(task_id)

    def restore_path(self, path: str, task_id: Id, root: Path) -> str:
        return self._for(task_id).restore_path(path, task_id, root)

    def token_usage(self, session_id: Id) -> dict | None:
        return self._for(session_id).token_usage(session_id)


class _Undo(UndoRecorder):
    """The writer of a WithArchived source: records a rollback's undo in the log of the folder
    the source's `rollback_root` picks for the task, and finds undo checkpoints in the logs of
    every folder its sessions (live and archived) worked in."""

    def __init__(self, source: WithArchived) -> None:
        self.source = source

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.source.kind

    @property
    def workspace(self) -> Path | None:
        return self.source.workspace

    def rollback_root(self, task_id: Id, root: str | Path | None = None) -> Path:
        return self.source.rollback_root(task_id, root)

    def workspace_root(self, task_id: Id) -> Path | None:
        return self.source.workspace_root(task_id)

    def recorded_cwds(self) -> frozenset[str]:
        return self.source._cwds()


def with_archived(live: RecordedRoot[Any], home: Path | None, open_view: Callable[[Path], RecordedRoot[Any]], *,
                  project: Path | None = None, archive_root: Path | None = None, cache: Path | None = None) -> MemorySource:
    """`live` plus the archived sessions of `home` (those of `project` only, if given)."""
    from memtui.core.places import archive_dir, view_cache_dir

    if home is None:
        return live
    root = archive_root or archive_dir()

    def relist() -> list[Manifest]:
        manifests = list_archived(root, live.kind, home=os.path.realpath(home))
        if project is not None:
            target = os.path.realpath(project)
            manifests = [m for m in manifests if m.project and os.path.realpath(m.project) == target]
        return manifests
    return WithArchived(live, relist(), root, cache or view_cache_dir(), open_view, relist)
