"""Aider's history of one repository as a memtui source: sessions → tasks (prompts) → steps
(replies with aider's token counts, applied edits, shell commands, commits) → the files of
each commit aider made, whose diff is the commit's (history.py reads the chat history,
commits.py the repository). Reading writes nothing; a rollback puts a commit's files back as
they were before it, through memtui's writer (containment and conflict checks, the undo kept
in memtui's state folder, never in the repository).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Hashable

from memtui.core.agents.aider.commits import (Commit, FileChange, GitError, blob_sizes, read_blob, read_commits,
                                              toplevel)
from memtui.core.agents.aider.history import (INPUT_HISTORY, Chat, Step, Turn, date_prompts,
                                              read_history, read_input_times)
from memtui.core.agents.aider.processes import aider_running_in, forget_processes
from memtui.core.memory_source import Capability, LiveWatch, ResumeHooks, RollbackHooks, UnknownId
from memtui.core.model import CheckpointInfo, Id, MessageInfo, Problem, ResumeCommand, SessionInfo, StepInfo, TaskInfo
from memtui.core.paths import stat_key
from memtui.core.sources.base import ContentUnknown, Index, SourceEntryInfo, page, preview
from memtui.core.sources.listing import ListedRow, Listing, ListingSource, listed_sessions, listing_of
from memtui.core.sources.timestamps import file_time, sort_key
from memtui.core.sources.transcript_undo import UndoRecorder

CLEANUP_REFUSAL = ("Aider keeps one chat history per repository (.aider.chat.history.md), not a file per session: "
                   "there is no session's file to archive; edit or remove the history file yourself")


@dataclass
class AiderIndex(Index):
    """The sessions of one history file, their prompts, and the commits they name."""

    sessions: dict[str, Chat] = field(default_factory=dict)
    turns: dict[str, Turn] = field(default_factory=dict)
    commits: dict[str, tuple[Turn, Step, Commit]] = field(default_factory=dict)  # commit step id → its commit
    sizes: dict[str, int] = field(default_factory=dict)  # blob → bytes
    of_turn: dict[str, list[str]] = field(default_factory=dict)  # task id → its commit step ids
    running: bool | None = None  # an aider process works in the repository (None: cannot tell)


class AiderListing(Listing):
    """Aider's session listing (its parts keyed by this package's code)."""


def index_history(history: Path, repo: Path | None) -> AiderIndex:
    """The index of the chat history `history`, with the commits it names read from `repo`."""
    ix = AiderIndex()
    problems: list[Problem] = []
    chats = read_history(history, problems)
    date_prompts(chats, read_input_times(history.with_name(INPUT_HISTORY)))
    wanted: list[tuple[Turn, int, Step]] = []
    for chat in chats:
        ix.sessions[chat.id] = chat
        for turn in chat.turns:
            ix.turns[turn.id] = turn
            wanted += [(turn, seq, s) for seq, s in enumerate(turn.steps, start=1) if s.tool == "commit"]
    if wanted:
        _read_commits(ix, history, repo, wanted, problems)
    ix.problems = problems
    ix.counts = {"sessions": len(ix.sessions), "prompts": len(ix.turns), "commits": len(ix.commits),
                 "file_changes": sum(len(c.files) for _t, _s, c in ix.commits.values())}
    return ix


def _read_commits(ix: AiderIndex, history: Path, repo: Path | None, wanted: list[tuple[Turn, int, Step]],
                  problems: list[Problem]) -> None:
    if repo is None:
        problems.append(Problem(str(history), None, "not in a git repository here: the commits aider made are not shown"))
        return
    try:
        found, missing = read_commits(repo, [s.sha for _t, _n, s in wanted])
        blobs = sorted({b for c in found.values() for f in c.files for b in (f.before, f.after) if b})
        ix.sizes = blob_sizes(repo, blobs)
    except GitError as exc:
        problems.append(Problem(str(history), None, f"commits not read: {exc}"))
        return
    for turn, seq, step in wanted:
        commit = found.get(step.sha)
        if commit is None:
            if step.sha in missing:
                problems.append(Problem(str(history), step.line, f"commit {step.sha} is not in the repository "
                                        "(undone and pruned, or another clone): its files are not shown"))
            continue
        ix.commits[f"{turn.id}:{seq}"] = (turn, step, commit)
        ix.of_turn.setdefault(turn.id, []).append(f"{turn.id}:{seq}")


def turn_task(ix: AiderIndex, turn: Turn) -> TaskInfo:
    """A prompt as a task: done when its last commit was (else when it was typed)."""
    commits = [ix.commits[key][2] for key in ix.of_turn.get(turn.id, [])]
    done = [c.committed_at for c in commits if c.committed_at]
    last = max(done, key=sort_key) if done else turn.created_at
    failed = any(s.status == "error" for s in turn.steps)
    return TaskInfo(id=turn.id, session_id=turn.session_id, title=preview(turn.prompt) or turn.id,
                    status="failed" if failed else "completed", summary=turn.prompt, created_at=turn.created_at,
                    updated_at=last, finished_at=last, step_count=len(turn.steps),
                    checkpoint_count=len(commits))


def index_listing(history: Path, ix: AiderIndex) -> AiderListing:
    """The session rows of an index; each row's `extra` says whether it is the history's last
    conversation (the one a running aider continues). Their status is looked at when listed."""
    rows = []
    last = next(reversed(ix.sessions), None)
    for chat in ix.sessions.values():
        created = chat.started_at or file_time(history)
        updated = max((turn_task(ix, t).updated_at or created for t in chat.turns), key=sort_key, default=created)
        info = SessionInfo(id=chat.id, title=preview(chat.turns[0].prompt), status="unknown",
                           current_task_id=chat.turns[-1].id, created_at=created, updated_at=updated,
                           task_count=len(chat.turns), current_title=preview(chat.turns[-1].prompt))
        rows.append(ListedRow(info, str(history), (str(history),), chat.id == last))
    return listing_of(rows, ix.counts, ix.problems, AiderListing)  # type: ignore[return-value]


def read_listing(history: Path) -> AiderListing:
    """The listing of one history file (the commits it names read for their times)."""
    return index_listing(history, index_history(history, toplevel(history.parent) if history.parent.is_dir() else None))


def history_signature(history: Path) -> tuple:
    """The history's and the input history's stat keys (the prompts' times are read from the
    latter). A history gone is read too: the store is that one file, its listing says it is gone."""
    return stat_key(history), stat_key(history.with_name(INPUT_HISTORY))


class AiderSource(UndoRecorder, ListingSource[AiderIndex], RollbackHooks, ResumeHooks, LiveWatch):
    """The Aider chat history of one repository (`.aider.chat.history.md` at its root)."""

    kind = "aider"
    label = "Aider"
    listing_class = AiderListing
    listed_from_index = True

    def __init__(self, history: Path) -> None:
        history = Path(history)
        super().__init__(history.parent)
        self.history = history
        self._root: Path | None = None
        self._repo: Path | None | bool = False  # False: not looked up yet

    @property
    def repo(self) -> Path | None:
        """The git work tree the history's commits are in (its folder's), or None."""
        if self._repo is False:
            self._repo = toplevel(self.history.parent) if self.history.parent.is_dir() else None
        return self._repo  # type: ignore[return-value]

    @property
    def workspace(self) -> Path | None:  # type: ignore[override]
        return self._root or self.repo or self.history.parent

    def with_root(self, root: Path):  # type: ignore[override]
        self._root = Path(root).expanduser()
        return self

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        can = {Capability.DIFF, Capability.RESUME, Capability.LIVE, Capability.SEARCH}
        if self.repo is not None and self.workspace is not None and self.workspace.is_dir():
            can.add(Capability.ROLLBACK)
        return frozenset(can)

    def instead(self, capability: Capability) -> str:
        if capability is Capability.CLEANUP:
            return CLEANUP_REFUSAL
        if capability is Capability.ROLLBACK and self.repo is None:
            return f"{self.history.parent} is not a git repository here: Aider's commits (its file changes) cannot be read"
        return super().instead(capability)

    def watched_files(self) -> list[Path]:
        return [self.history, self.history.with_name(INPUT_HISTORY), self.history.parent]

    def reload(self) -> None:
        forget_processes()
        super().reload()

    # -- the index ----------------------------------------------------------------------------
    def build_index(self) -> AiderIndex:
        ix = index_history(self.history, self.repo)
        ix.running = aider_running_in(self.workspace) if ix.sessions and self.workspace is not None else None
        return ix

    def units(self) -> list[Path]:
        return [self.history]

    def unit_signature(self) -> Callable[[Path], Hashable | None]:
        return history_signature

    def unit_reader(self) -> Callable[[Path], Listing]:
        return read_listing

    def index_listing(self, ix: AiderIndex) -> Listing:
        return index_listing(self.history, ix)

    # -- the read model -------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        """The listed sessions; only the last conversation can be the one a running aider continues."""
        listed = self.listing()
        rows = listed_sessions(listed)
        if not rows:
            return rows
        known = self.__dict__.get("_running_for")
        if known is None or known[0] is not listed:  # looked at once per listing, as the index is
            known = self._running_for = (listed, aider_running_in(self.workspace) if self.workspace is not None else None)
        running = known[1]
        return [replace(s, status="unknown" if running is None else "open" if running and listed.sessions[str(s.id)].extra
                        else "closed") for s in rows]

    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        if session_id is None:
            return []  # every prompt is in its conversation: no orphans
        ix = self.index()
        chat = ix.sessions.get(str(session_id)) if session_id is not None else None
        return [self._task(ix, t) for t in chat.turns] if chat else []

    def task(self, task_id: Id) -> TaskInfo:
        ix = self.index()
        return self._task(ix, self.found(ix.turns, task_id, "task"))

    def _task(self, ix: AiderIndex, turn: Turn) -> TaskInfo:
        return turn_task(ix, turn)

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        ix = self.index()
        turn = self.found(ix.turns, task_id, "task")
        return [self._step(ix, turn, seq, s) for seq, s in enumerate(page(turn.steps, offset, limit), start=offset + 1)]

    def step(self, step_id: Id) -> StepInfo:
        ix = self.index()
        task_id, _, seq = str(step_id).rpartition(":")
        turn = ix.turns.get(task_id)
        if turn is None or not seq.isdigit() or not 1 <= int(seq) <= len(turn.steps):
            raise UnknownId(f"no step {step_id!r} in {self.path}")
        return self._step(ix, turn, int(seq), turn.steps[int(seq) - 1])

    def _step(self, ix: AiderIndex, turn: Turn, seq: int, step: Step) -> StepInfo:
        step_id = f"{turn.id}:{seq}"
        commit = ix.commits.get(step_id)
        usage = step.usage
        chat = ix.sessions.get(turn.session_id)
        return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool=step.tool, args=step.args, result=step.result,
                        status=step.status, error=step.error, tokens_in=usage.prompt if usage else 0,
                        tokens_out=usage.output if usage else 0, cost=step.cost,
                        created_at=commit[2].committed_at if commit else turn.created_at,
                        checkpoint_id=step_id if commit else None, model=chat.model if chat and step.tool == "reply" else "",
                        usage=usage)

    def messages(self, task_id: Id) -> list[MessageInfo]:
        turn = self.found(self.index().turns, task_id, "task")
        out = [MessageInfo(id=f"{turn.id}/prompt", task_id=turn.id, role="user", content=turn.prompt, created_at=turn.created_at)]
        out += [MessageInfo(id=f"{turn.id}/reply{n}", task_id=turn.id, role="assistant", content=s.result, created_at=turn.created_at)
                for n, s in enumerate(s for s in turn.steps if s.tool == "reply")]
        return out

    # -- file changes: the commits --------------------------------------------------------------
    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        ix = self.index()
        turn = self.found(ix.turns, task_id, "task")
        return [CheckpointInfo(id=key, task_id=turn.id, step_id=key, created_at=ix.commits[key][2].committed_at,
                               entry_count=len(ix.commits[key][2].files))
                for key in ix.of_turn.get(turn.id, [])] + self.undo_checkpoints(turn.id)

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        if self.is_undo(checkpoint_id):
            return self.undo_checkpoint(checkpoint_id)
        turn, _step, commit = self.found(self.index().commits, checkpoint_id, "commit")
        return CheckpointInfo(id=str(checkpoint_id), task_id=turn.id, step_id=str(checkpoint_id),
                              created_at=commit.committed_at, entry_count=len(commit.files))

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        if self.is_undo(checkpoint_id):
            return self.undo_entries(checkpoint_id)
        ix = self.index()
        found = ix.commits.get(str(checkpoint_id))
        if found is None:
            return []
        return [self._entry(ix, str(checkpoint_id), n, f) for n, f in enumerate(found[2].files)]

    def _entry(self, ix: AiderIndex, checkpoint_id: str, n: int, f: FileChange) -> SourceEntryInfo:
        return SourceEntryInfo(id=f"{checkpoint_id}:{n}", checkpoint_id=checkpoint_id, path=f.path, kind=f.kind,
                               before_size=ix.sizes.get(f.before) if f.before else None,
                               after_size=ix.sizes.get(f.after) if f.after else None,
                               before_hash=f.before, after_hash=f.after)

    def _change(self, entry_id: Id) -> FileChange:
        checkpoint_id, _, n = str(entry_id).rpartition(":")
        found = self.index().commits.get(checkpoint_id)
        if found is None or not n.isdigit() or int(n) >= len(found[2].files):
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        return found[2].files[int(n)]

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        if self.is_undo(entry_id):
            return self.undo_entry(entry_id)
        checkpoint_id, _, n = str(entry_id).rpartition(":")
        return self._entry(self.index(), checkpoint_id, int(n), self._change(entry_id))

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) of a file as the commit's parent and the commit hold it (None: absent)."""
        if self.is_undo(entry_id):
            return self.undo_read(entry_id)
        change = self._change(entry_id)
        repo = self.repo
        if repo is None:
            raise ContentUnknown(f"{change.path}: not in a git repository here")
        try:
            return (read_blob(repo, change.before) if change.before else None,
                    read_blob(repo, change.after) if change.after else None)
        except GitError as exc:
            raise ContentUnknown(f"{change.path}: {exc}") from None

    # -- rollback and resume ----------------------------------------------------------------------
    def workspace_root(self, task_id: Id) -> Path | None:
        return self.workspace

    def recorded_cwds(self) -> frozenset[str]:
        return frozenset({str(self.workspace)}) if self.workspace is not None else frozenset()

    def resume_command(self, session_id: Id) -> ResumeCommand:
        """Aider resumes a repository's last conversation, not a chosen one: the command is the
        same for every session of the history."""
        ix = self.index()
        self.found(ix.sessions, session_id, "session")
        return ResumeCommand(("aider", "--restore-chat-history"), self.workspace, open=bool(ix.running))

