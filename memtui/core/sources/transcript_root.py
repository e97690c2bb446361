"""Where the recorded paths of a Claude Code or Codex store are restored, and the reads both
adapters answer the same way from their index (tasks, messages, the recorded cwd, resume).

Their edits name files by absolute paths under the working directory the sessions recorded
(`cwd`). Opened from anywhere — the agent's home, a projects folder, one transcript — the
store still restores into that recorded folder, and says so; `--root DIR` (memtui PATH
--root DIR) maps the recorded folder to another copy of the project instead. A home whose
sessions worked in different folders keeps entry paths absolute: a rollback makes them
relative to the task's own session folder (`restore_path`) and restores under that folder,
or under `--root`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Generic, Protocol, Self, TypeVar

from memtui.core.atomic import write_atomic
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability, LiveWatch, MemorySource, ResumeHooks, RollbackHooks, UnknownId
from memtui.core.model import Id, MessageInfo, StepInfo, TaskInfo
from memtui.core.model import ResumeCommand
from memtui.core.sources.base import TRANSCRIPT_ALWAYS, transcript_capabilities
from memtui.core.sources.relist import ListedIndex, ListedSource


def folder_capabilities(source, some_folder_here: bool) -> frozenset[Capability]:
    """A transcript store's capabilities: those of its one workspace (`transcript_capabilities`),
    plus rollback when its sessions worked in different folders and one of them is here (a task
    then rolls back under its own session's folder)."""
    found = transcript_capabilities(source)
    if source.workspace is None and some_folder_here:
        return found | {Capability.ROLLBACK}
    return found


def restore_note(root: Path, given: Path | None, recorded: Path | None, task_folder: Path | None) -> str:
    """The rollback dialog's line on where recorded paths are restored: under `root` (the task's
    `rollback_root`), the folder `given` with --root, else the one folder every session
    `recorded`, else the task's own session folder."""
    if given is not None:
        recorded = recorded or task_folder
        if recorded is not None and root != recorded:
            return f"Paths recorded under {recorded} are restored under {root} (--root)."
        return f"Paths are restored under {root} (--root)."
    whose = ("the working directory the sessions recorded" if recorded is not None
             else "the working directory of this task's session")
    return f"Paths are restored under {root}, {whose}; to restore into another copy of the project, open it with --root DIR."


class RecordedSession(Protocol):
    """A session of a transcript index (Claude Code's, Codex's): read where it recorded its cwd."""

    @property
    def id(self) -> str: ...

    @property
    def file(self) -> Path: ...

    @property
    def cwd(self) -> str | None: ...

    @property
    def turns(self) -> list[str]: ...


class RecordedTurn(Protocol):
    """A turn of a transcript index: its prompt and the assistant's replies."""

    @property
    def id(self) -> str: ...

    @property
    def session_id(self) -> str: ...

    @property
    def prompt(self) -> str: ...

    @property
    def created_at(self) -> datetime | None: ...

    @property
    def replies(self) -> list[tuple[str, datetime | None]]: ...


SessionT = TypeVar("SessionT", bound=RecordedSession)
TurnT = TypeVar("TurnT", bound=RecordedTurn)


@dataclass
class TurnIndex(ListedIndex[SessionT], Generic[SessionT, TurnT]):
    """A transcript index: its sessions (each with a cwd and its turn ids, in order) and turns."""

    turns: dict[str, TurnT] = field(default_factory=dict)


TurnIndexT = TypeVar("TurnIndexT", bound=TurnIndex[Any, Any])


def turn_usage(turn: Any) -> list[StepInfo]:
    """The steps of a turn that used tokens, as `step_usage` answers: a usage row each."""
    return [StepInfo(id=f"{turn.session_id}:{item.key}", task_id=turn.id, seq=seq, tool=item.name or item.kind,
                     args=None, result=None, tokens_in=item.tokens_in, tokens_out=item.tokens_out,
                     created_at=item.created_at, model=item.model, usage=item.usage)
            for seq, item in enumerate(turn.items, start=1) if item.usage is not None or item.tokens_in or item.tokens_out]


@dataclass(frozen=True)
class Reopened:
    """How a worker process opens a transcript source again (`RecordedRoot.reopener`): the
    agent's adapter over the files listed, its home, path and `--root`. Picklable; equal when
    it opens the same."""

    kind: "type[RecordedRoot[Any]]"
    files: tuple[Path, ...]
    home: Path | None
    path: Path
    root: Path | None

    def __call__(self) -> "RecordedRoot[Any]":
        source = self.kind(self.files, home=self.home, path=self.path)
        return source.with_root(self.root) if self.root is not None else source


class RecordedRoot(ListedSource[TurnIndexT], RollbackHooks, ResumeHooks, LiveWatch):
    """A transcript adapter (Claude Code, Codex): `workspace` is the `--root` folder if one was
    given, else the recorded working directory (`recorded_workspace`, the one `cwd` all indexed
    sessions recorded). Its index is a TurnIndex; the adapter makes a turn's TaskInfo
    (`task_info(turn)`)."""

    _root: Path | None = None
    _folders_of: tuple[Any, frozenset[str], bool]  # (the index or None: noted, cwds, one is a folder here)
    resume_argv: tuple[str, ...] = ()  # the agent's resume command, before the session id
    reads_forked = True  # transcripts or rollouts, and the index file: each opened again in a fork

    def step_usage(self, task_id: Id) -> list[StepInfo]:
        """From the index alone (its usage rows, `turn_usage`): no transcript or rollout line is
        read again, and where the index is kept, no turn either."""
        ix = self.index()
        rows = ix.usage_rows.get(str(task_id))
        return list(rows) if rows is not None else turn_usage(self.turn_of(ix, task_id))

    def task_info(self, turn: Any) -> TaskInfo:
        """The TaskInfo of one of the index's turns."""
        raise NotImplementedError

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        return folder_capabilities(self, self._folders()[1])

    def can(self, capability: Capability) -> bool:
        """As MemorySource's; what a transcript store can always do (TRANSCRIPT_ALWAYS: search
        it, follow it …) is answered without reading its sessions' folders (its index)."""
        if capability in TRANSCRIPT_ALWAYS:
            return capability not in self.withheld
        return super().can(capability)

    def recorded_cwds(self) -> frozenset[str]:
        """The working directories the sessions recorded."""
        return self._folders()[0]

    def _folders(self) -> tuple[frozenset[str], bool]:
        """The sessions' working directories, and whether one is a folder here: worked out once
        per index (capabilities are asked at every key the footer shows). Before the index is
        read, those noted in memtui's cache folder with the sessions key they were read at
        (`sessions_key`), while it is the same: a warm search or a capability need no index."""
        known: tuple[Any, frozenset[str], bool] | None = self.__dict__.get("_folders_of")
        if not self.index_read:
            if known is not None and known[0] is None:
                return known[1], known[2]
            cwds = self._noted_cwds()
            if cwds is not None:
                known = self._folders_of = (None, cwds, any(Path(cwd).is_dir() for cwd in cwds))
                return known[1], known[2]
        ix = self.index()
        if known is None or known[0] is not ix:  # a reload builds a new index
            cwds = frozenset(s.cwd for s in ix.sessions.values() if s.cwd)
            known = self._folders_of = (ix, cwds, any(Path(cwd).is_dir() for cwd in cwds))
            self._note_cwds(cwds)
        return known[1], known[2]

    def _cwds_note(self) -> tuple[str, Path] | None:
        """The sessions key the store has now and where the working directories read at it are
        noted (beside the home's index); None when it has no key or nothing may be noted."""
        from memtui.core.sources.part_store import index_path

        key = self.sessions_key()
        path = index_path(self.path, self.kind, folder_name="folders") if key is not None else None
        return (key, path.with_suffix(".json")) if key is not None and path is not None else None

    def _noted_cwds(self, at: tuple[str, Path] | None = None) -> frozenset[str] | None:
        """The working directories noted with the sessions key the store has now (None: none
        noted, or at another key); `at`: that key and note, as `_cwds_note` found them."""
        at = at or self._cwds_note()
        if at is None:
            return None
        key, note = at
        try:
            noted = json.loads(note.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(noted, dict) or noted.get("key") != key or not isinstance(noted.get("cwds"), list):
            return None
        return frozenset(str(cwd) for cwd in noted["cwds"])

    def _note_cwds(self, cwds: frozenset[str]) -> None:
        """Note the working directories of the index read after the sessions key was made (that
        key's, or a newer store's: a later key then differs) for the next run."""
        at = self._cwds_note()
        if at is None:
            return
        try:
            if self._noted_cwds(at) != cwds:
                write_atomic(at[1], json.dumps({"key": at[0], "cwds": sorted(cwds)}).encode("utf-8", "surrogateescape"))
        except (OSError, MemtuiError):
            pass  # only a shortcut: the next run reads the index

    def turn_of(self, ix: TurnIndexT, task_id: Id) -> Any:
        """The turn `task_id` of the index `ix` (UnknownId when it has none)."""
        return self.found(ix.turns, task_id, "turn")

    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        """The session's tasks as its part listed them (`ListedIndex.task_rows`): no turn is read."""
        ix = self.index()
        if session_id is None or str(session_id) not in ix.sessions:
            return []
        rows = ix.task_rows.get(str(session_id))
        return list(rows) if rows is not None else [self.task_info(ix.turns[t]) for t in ix.sessions[str(session_id)].turns]

    def task(self, task_id: Id) -> TaskInfo:
        """The task's row as its session's part listed it (no turn read: the sessions pane asks
        each listed session's current task)."""
        ix = self.index()
        for row in ix.task_rows.get(str(task_id).split(":", 1)[0]) or ():
            if str(row.id) == str(task_id):
                return row
        return self.task_info(self.turn_of(ix, task_id))

    def step_info(self, ix: TurnIndexT, turn: Any, seq: int, item: Any) -> StepInfo:
        """The StepInfo of `item`, the `seq`-th step (from 1) of one of the index's turns."""
        raise NotImplementedError

    def step(self, step_id: Id) -> StepInfo:
        """A step ("<session>:<key>") found among its session's turns in the index; only that
        step's record is read."""
        ix = self.index()
        session = ix.sessions.get(str(step_id).split(":", 1)[0])
        for turn_id in session.turns if session is not None else []:
            turn = ix.turns[turn_id]
            for seq, item in enumerate(turn.items, start=1):
                if f"{turn.session_id}:{item.key}" == str(step_id):
                    return self.step_info(ix, turn, seq, item)
        raise UnknownId(f"no step {step_id!r} in {self.path}")

    @property
    def recorded_workspace(self) -> Path | None:
        """The one working directory all sessions recorded (entry paths are relative to
        it), or None when they differ — then entry paths stay absolute."""
        cwds = self.recorded_cwds()
        return Path(next(iter(cwds))) if len(cwds) == 1 else None

    def workspace_root(self, task_id: Id) -> Path | None:
        """The cwd the task's session recorded: entry paths are relative to it."""
        cwd = self.session_of_task(task_id).cwd
        return Path(cwd) if cwd else None

    def session_of_task(self, task_id: Id) -> Any:
        """The session of task `task_id` (its id starts with the session's), its turns not read."""
        ix = self.index()
        session = ix.sessions.get(str(task_id).split(":", 1)[0])
        if session is not None and str(task_id) in session.turns:
            return session
        return ix.sessions[self.turn_of(ix, task_id).session_id]

    def restore_path(self, path: str, task_id: Id, root: Path) -> str:
        """An absolute recorded path (a home whose sessions worked in different folders keeps
        them so) made relative to the task's session cwd, else to `root`, when it lies under
        it; any other path as recorded (an absolute one is refused)."""
        if not os.path.isabs(path):
            return path
        for base in (self.workspace_root(task_id), Path(root), Path(root).resolve()):
            if base is not None and path.startswith(str(base).rstrip("/") + "/"):
                return os.path.relpath(path, base)
        return path

    def resume_command(self, session_id: Id) -> ResumeCommand:
        """The agent's resume command (`resume_argv` + the session id) in the directory the
        session recorded."""
        session = self.found(self.index().sessions, session_id, "session")
        return ResumeCommand((*self.resume_argv, session.id), Path(session.cwd) if session.cwd else None,
                             open=self.session_open(session.id))

    def session_open(self, session_id: Id) -> bool:
        """True when a running process of the agent has the session open (the agent's
        registry tells; without one, nothing on disk does)."""
        return False

    def relative_to_recorded(self, path: str) -> str:
        """An absolute recorded path made relative to `recorded_workspace` when it lies under
        it; any other path unchanged."""
        root = self.recorded_workspace
        if root is not None and path.startswith(str(root).rstrip("/") + "/"):
            return os.path.relpath(path, root)
        return path

    def messages(self, task_id: Id) -> list[MessageInfo]:
        """The turn's prompt, then its assistant replies."""
        turn = self.turn_of(self.index(), task_id)
        out = []
        if turn.prompt:
            out.append(MessageInfo(id=f"{turn.id}/prompt", task_id=turn.id, role="user", content=turn.prompt, created_at=turn.created_at))
        for n, (text, when) in enumerate(turn.replies):
            out.append(MessageInfo(id=f"{turn.id}/reply{n}", task_id=turn.id, role="assistant", content=text, created_at=when))
        return out

    @property
    def workspace(self) -> Path | None:
        return self._root or self.recorded_workspace

    def with_root(self, root: Path) -> Self:
        """Bound to `root` (--root): recorded paths are restored under it."""
        self._root = Path(root).expanduser()
        return self

    def reopener(self) -> Callable[[], MemorySource] | None:
        """(MemorySource's) The same agent's source over the files listed now, its home and
        `--root`: it reads its index from the same file of memtui's cache folder. None while this
        one keeps its index in no such file (a worker would parse every transcript again)."""
        if not self.index_kept:
            return None
        return Reopened(type(self), tuple(self.files), self.home, Path(self.path), self._root)

    def rollback_note(self, task_id: Id, root: Path) -> str:
        """One line for the rollback dialog: the folder recorded paths are restored under."""
        return restore_note(root, self._root, self.recorded_workspace, self.workspace_root(task_id))

    def instead(self, capability: Capability) -> str:
        if capability in (Capability.ROLLBACK, Capability.EDIT_MEMORY) and capability not in self.withheld:
            recorded = self.recorded_workspace
            what = "roll back its files" if capability is Capability.ROLLBACK else "edit its memory documents"
            if recorded is None and capability is Capability.ROLLBACK:
                return ("its sessions worked in folders that are not on this machine; open the project folder,"
                        " or this store with --root DIR (memtui PATH --root DIR) to restore into a copy of it")
            if recorded is None:
                return f"its sessions worked in different folders; open the project folder (memtui PROJECT) to {what}"
            if capability is Capability.EDIT_MEMORY:
                return f"its sessions worked in {recorded}, which is not a folder on this machine; open the project folder"
            return (f"its sessions worked in {recorded}, which is not a folder on this machine; open the project"
                    " folder, or this store with --root DIR (memtui PATH --root DIR) to restore into a copy of it")
        return super().instead(capability)
