"""Gemini CLI chats as a memtui source: sessions → tasks (typed prompts) → steps (replies with
their tokens, tool calls with their results) → file changes of write_file and replace calls.
See chats.py for how a chat file is read.

Reading never writes. A change whose contents the chat recorded, or whose before Gemini CLI's
own checkpoint holds (its shadow git repository: checkpoints.py), rolls back under the project
folder its session worked in (`.project_root`), or under --root: the rollback engine checks
containment and conflicts, writes atomically, and keeps the undo in memtui's state folder
(memtui.core.sources.transcript_undo), never in the Gemini home."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from memtui.core.agents.gemini_cli.chats import Change, Chat, GeminiIndex, Step, Turn
from memtui.core.agents.gemini_cli.home import home_of
from memtui.core.agents.gemini_cli.listing import ChatSignature, GeminiListing, index_chat, index_listing, merge_chats, read_listing
from memtui.core.memory_source import Capability, LiveWatch, ResumeHooks, RollbackHooks, UnknownId
from memtui.core.model import (CheckpointInfo, Id, MessageInfo, Reference, ResumeCommand, StepInfo,
                               TaskInfo)
from memtui.core.sources.base import ContentUnknown, SourceEntryInfo, files_and_folders, page, preview
from memtui.core.sources.listing import Listing, ListingSource
from memtui.core.sources.relist import Parts
from memtui.core.sources.timestamps import sort_key
from memtui.core.sources.transcript_root import restore_note
from memtui.core.sources.transcript_undo import UndoRecorder

READING = frozenset({Capability.DIFF, Capability.RESUME, Capability.LIVE, Capability.SEARCH, Capability.CLEANUP})


class GeminiCliSource(UndoRecorder, ListingSource[GeminiIndex], RollbackHooks, ResumeHooks, LiveWatch):
    """The Gemini CLI chats of a home, of one project, or one chat file."""

    kind = "gemini-cli"
    label = "Gemini CLI"
    listing_class = GeminiListing
    workspace: Path | None = None  # the --root folder (with_root), where recorded paths are restored

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """Diffs where the chat recorded the contents, resume, search (its index is kept in
        memtui's cache folder), cleanup of the home (a chat file per session); rollback when a folder to restore under is on this machine (the
        --root given, or a session's project folder)."""
        return READING | {Capability.ROLLBACK} if self._some_folder_here() else READING

    def instead(self, capability: Capability) -> str:
        if capability is Capability.ROLLBACK and capability not in self.withheld:
            return ("its sessions worked in project folders that are not on this machine; open this store with"
                    " --root DIR (memtui PATH --root DIR) to restore into a copy of the project")
        return super().instead(capability)

    def _some_folder_here(self) -> bool:
        if self.workspace is not None:
            return Path(self.workspace).is_dir()
        listed = self.listing()  # the sessions' project folders: no chat parsed for them
        known = self.__dict__.get("_folders_of")
        if known is None or known[0] is not listed:  # asked at every key the footer shows: once per listing
            known = self._folders_of = (listed, any(r.extra is not None and os.path.isdir(r.extra) for r in listed.sessions.values()))
        return known[1]

    def __init__(self, chats: Sequence[Path], *, home: Path | None, path: Path,
                 relist: Callable[[], list[Path]] | None = None) -> None:
        super().__init__(Path(path))
        self.home = home
        self._chats = list(chats)
        self._relist = relist
        self._parts = Parts()  # each chat's index, kept while the chat is unchanged

    @classmethod
    def from_path(cls, path: Path) -> "GeminiCliSource":
        from memtui.core.agents.gemini_cli.home import folder_lister, home_lister

        path = Path(path)
        if path.is_file():
            return cls([path], home=home_of(path), path=path)
        relist = home_lister(path) if (path / "tmp").is_dir() else folder_lister(path)
        return cls(relist(), home=path if (path / "tmp").is_dir() else home_of(path), path=path, relist=relist)

    def listed_now(self) -> list[Path]:
        return self._relist() if self._relist is not None else list(self._chats)

    def reload(self) -> None:
        with self.index_lock:
            if self._relist is not None:
                self._chats = self._relist()
            super().reload()

    def watched_files(self) -> list[Path]:
        return [*files_and_folders(self.listed_now()), Path(self.path)]

    # -- the index ----------------------------------------------------------------------------
    def build_index(self) -> GeminiIndex:
        """The chats' indexes merged; a chat (with its sub-agents') is parsed again only when
        it changed since the last build (follow mode reloads as an agent writes one chat)."""
        return merge_chats(self._parts.each(self._chats, ChatSignature(), index_chat))

    def units(self) -> list[Path]:
        return list(self._chats)

    def unit_signature(self) -> ChatSignature:
        return ChatSignature()

    def unit_reader(self) -> Callable[[Path], Listing]:
        return read_listing

    def index_listing(self, ix: GeminiIndex) -> Listing:
        return index_listing(ix)

    def turn_of(self, ix: GeminiIndex, task_id: Id) -> Turn:
        return self.found(ix.turns, task_id, "task")

    # -- the read model -------------------------------------------------------------------------
    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        if session_id is None:
            return []
        chat = self.index().sessions.get(str(session_id))
        return [self._task(t) for t in chat.turns] if chat else []

    def task(self, task_id: Id) -> TaskInfo:
        return self._task(self.turn_of(self.index(), task_id))

    def _task(self, turn: Turn) -> TaskInfo:
        times = [s.finished_at or s.created_at for s in turn.steps if s.finished_at or s.created_at]
        last = times[-1] if times else turn.created_at
        cancelled = any(s.status == "cancelled" for s in turn.steps)
        return TaskInfo(id=turn.id, session_id=turn.listed_in or turn.session_id,
                        title=preview(turn.prompt) + (" (sub-agent)" if turn.listed_in else ""),
                        status="cancelled" if cancelled else "completed", created_at=turn.created_at,
                        updated_at=last, finished_at=last, step_count=len(turn.steps),
                        checkpoint_count=sum(1 for s in turn.steps if s.change is not None))

    def references(self, task_id: Id) -> list[Reference]:
        """Handoffs at either end: the turn whose `invoke_agent` call started a sub-agent → its turns."""
        handoffs = self.index().handoffs
        found = [Reference(from_task=str(task_id), to_task=child, kind="handoff") for child in handoffs.get(str(task_id), [])]
        return found + [Reference(from_task=parent, to_task=str(task_id), kind="handoff")
                        for parent, children in handoffs.items() if str(task_id) in children]

    def step(self, step_id: Id) -> StepInfo:
        """A step by id ("<session>:<message or call id>"), from its session's turns."""
        session_id = str(step_id).split(":", 1)[0]
        chat = self.index().listed.get(session_id)  # a sub-agent's steps are in its caller's chat
        for turn in chat.turns if chat else []:
            for seq, step in enumerate(turn.steps, start=1):
                if f"{turn.session_id}:{step.key}" == str(step_id):
                    return self._step(turn, seq, step)
        raise UnknownId(f"no step {step_id!r} in {self.path}")

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        turn = self.turn_of(self.index(), task_id)
        return [self._step(turn, seq, s) for seq, s in enumerate(page(turn.steps, offset, limit), start=offset + 1)]

    def _step(self, turn: Turn, seq: int, step: Step) -> StepInfo:
        step_id = f"{turn.session_id}:{step.key}"
        duration = None
        if step.finished_at is not None and step.created_at is not None:
            duration = max(0, int((sort_key(step.finished_at) - sort_key(step.created_at)) * 1000))
        usage = step.usage
        return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool=step.tool, args=step.args, result=step.result,
                        status=step.status, error=step.error, created_at=step.created_at, duration_ms=duration,
                        tokens_in=usage.prompt if usage else 0, tokens_out=usage.output if usage else 0,
                        model=step.model, usage=usage, checkpoint_id=step_id if step.change is not None else None)

    def messages(self, task_id: Id) -> list[MessageInfo]:
        turn = self.turn_of(self.index(), task_id)
        out = [MessageInfo(id=f"{turn.id}/prompt", task_id=turn.id, role="user", content=turn.prompt, created_at=turn.created_at)]
        out += [MessageInfo(id=f"{turn.id}/reply{n}", task_id=turn.id, role="assistant", content=text, created_at=when)
                for n, (text, when) in enumerate(turn.replies)]
        return out

    # -- file changes ---------------------------------------------------------------------------
    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        turn = self.turn_of(self.index(), task_id)
        return [CheckpointInfo(id=f"{turn.session_id}:{s.key}", task_id=turn.id, step_id=f"{turn.session_id}:{s.key}",
                               created_at=s.finished_at or s.created_at, entry_count=1)
                for s in turn.steps if s.change is not None] + self.undo_checkpoints(turn.id)

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        if self.is_undo(checkpoint_id):
            return self.undo_checkpoint(checkpoint_id)
        found = self.index().changes.get(str(checkpoint_id))
        if found is None:
            raise UnknownId(f"no file change {checkpoint_id!r} in {self.path}")
        turn, step = found
        return CheckpointInfo(id=str(checkpoint_id), task_id=turn.id, step_id=str(checkpoint_id),
                              created_at=step.finished_at or step.created_at, entry_count=1)

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        if self.is_undo(checkpoint_id):
            return self.undo_entries(checkpoint_id)
        found = self.index().changes.get(str(checkpoint_id))
        return [] if found is None else [self._entry(str(checkpoint_id), *found)]

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        if self.is_undo(entry_id):
            return self.undo_entry(entry_id)
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        found = self.index().changes.get(checkpoint_id)
        if found is None or not str(entry_id).endswith(":0"):
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        return self._entry(checkpoint_id, *found)

    def _entry(self, checkpoint_id: str, turn: Turn, step: Step) -> SourceEntryInfo:
        change: Change = step.change  # type: ignore[assignment]
        return SourceEntryInfo(
            id=f"{checkpoint_id}:0", checkpoint_id=checkpoint_id, path=self._relative(turn, change.path), kind=change.kind,
            before_size=len(change.before.encode()) if change.before is not None else None,
            after_size=len(change.after.encode()) if change.after is not None else None,
            before_known=change.before_known, after_known=change.after_known,
            unknown_reason=change.reason, diff=change.diff)

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) of a write_file / replace; ContentUnknown where the chat did not
        record a side (the entry's `diff` still holds the change)."""
        if self.is_undo(entry_id):
            return self.undo_read(entry_id)
        entry = self.entry(entry_id)
        _turn, step = self.index().changes[str(entry.checkpoint_id)]
        change: Change = step.change  # type: ignore[assignment]
        if not (change.before_known and change.after_known):
            raise ContentUnknown(f"{entry.path}: {change.reason or 'Gemini CLI did not record this side of the change'}")
        return (None if change.before is None else change.before.encode("utf-8", "surrogateescape"),
                None if change.after is None else change.after.encode("utf-8", "surrogateescape"))

    def _relative(self, turn: Turn, path: str) -> str:
        """A recorded absolute path, relative to the source's workspace or the session's project
        when it lies under it; any other path as recorded."""
        for root in (self.workspace, self.index().roots.get(turn.session_id)):
            if root is not None and path.startswith(str(root).rstrip("/") + "/"):
                return os.path.relpath(path, root)
        return path

    # -- rollback and resume ----------------------------------------------------------------------
    def workspace_root(self, task_id: Id) -> Path | None:
        """The project folder the task's session worked in (its tmp folder's .project_root)."""
        ix = self.index()
        turn = ix.turns.get(str(task_id))
        return ix.roots.get(turn.session_id) if turn else None

    def recorded_cwds(self) -> frozenset[str]:
        return frozenset(str(r) for r in self.index().roots.values() if r is not None)

    def rollback_note(self, task_id: Id, root: Path) -> str:
        recorded = self.recorded_cwds()
        return restore_note(root, self.workspace, Path(next(iter(recorded))) if len(recorded) == 1 else None,
                            self.workspace_root(task_id))

    def resume_command(self, session_id: Id) -> ResumeCommand:
        ix = self.index()
        if str(session_id) not in ix.sessions:
            raise UnknownId(f"no session {session_id!r} in {self.path}")
        return ResumeCommand(argv=("gemini", "--resume", str(session_id)), cwd=ix.roots.get(str(session_id)))

    def chat_of(self, session_id: Id) -> Chat:
        return self.found(self.index().sessions, session_id, "session")
