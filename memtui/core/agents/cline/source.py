"""Cline's task folders as a memtui source (read-only): sessions (task folders) → tasks (the task
and each follow-up the user typed) → steps (replies, reasoning, tool uses with their results,
commands with their output, checkpoints, the tokens and cost of each model request) → the file
each new-file or edit tool use changed (tasks.py reads a folder)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Hashable, cast

from memtui.core.agents.cline.folders import is_session_folder, session_files, task_history
from memtui.core.agents.cline.sessions import read_session
from memtui.core.agents.cline.tasks import Change, ClineTask, Prompt, Step, read_task
from memtui.core.memory_source import Capability, LiveWatch, ResumeHooks, UnknownId
from memtui.core.model import CheckpointInfo, Id, MessageInfo, Problem, ResumeCommand, SessionInfo, StepInfo, TaskInfo
from memtui.core.sources.base import ContentUnknown, Index, SourceEntryInfo, files_and_folders, page, preview
from memtui.core.sources.listing import ListedRow, Listing, ListingSource, folder_signature, listing_of
from memtui.core.sources.relist import Parts
from memtui.core.sources.timestamps import file_time


CLEANUP_REFUSAL = ("Cline lists every task in one index beside the task folders (state/taskHistory.json;"
                   " the CLI 3.x's db/sessions.db): archiving a task's folder alone would leave Cline's history"
                   " naming a task that is gone, and memtui never rewrites Cline's index; delete old tasks in Cline"
                   " (its task history)")


@dataclass
class ClineIndex(Index):
    sessions: dict[str, ClineTask] = field(default_factory=dict)
    prompts: dict[str, tuple[ClineTask, Prompt]] = field(default_factory=dict)  # task id → its prompt
    changes: dict[str, tuple[str, Step]] = field(default_factory=dict)  # step id → (task id, step)
    unknown: dict[str, int] = field(default_factory=dict)  # kind of message memtui does not know → how many


@dataclass
class ClineListing(Listing):
    """Cline's session listing (its parts keyed by this package's code), with the messages of
    unknown kinds counted across the folders."""

    unknown: dict[str, int] = field(default_factory=dict)

    def merge(self, part: "ClineListing") -> bool:  # type: ignore[override]
        if not super().merge(part):
            return False
        for kind, n in part.unknown.items():
            self.unknown[kind] = self.unknown.get(kind, 0) + n
        return True


def index_folders(folders: list[Path], history: dict[str, dict]) -> ClineIndex:
    """The index of the task folders `folders` (each task's working directory from `history`,
    the data folder's task history, where it names one)."""
    return merge_tasks([index_task(folder) for folder in folders], history)


def index_task(folder: Path) -> ClineIndex:
    """The index of one task folder (its working directory as its messages say)."""
    ix = ClineIndex()
    task = read_folder(folder, ix.problems)
    if task is None:
        return ix
    ix.sessions[task.id] = task
    ix.unknown.update(task.unknown)
    for number, prompt in enumerate(task.prompts, start=1):
        task_id = f"{task.id}:{number}"
        ix.prompts[task_id] = (task, prompt)
        for seq, step in enumerate(prompt.steps, start=1):
            if step.change is not None:
                ix.changes[f"{task_id}:{seq}"] = (task_id, step)
    return ix


def merge_tasks(parts: list[ClineIndex], history: dict[str, dict]) -> ClineIndex:
    """One index of the task folders' indexes (`index_task`), in order, each task's working
    directory the one `history` names where it names one."""
    ix = ClineIndex()
    unknown = ix.unknown
    for part in parts:
        ix.problems.extend(part.problems)
        for task in part.sessions.values():
            cwd = history.get(task.id, {}).get("cwdOnTaskInitialization")
            if isinstance(cwd, str) and cwd and cwd != task.cwd:
                task = replace(task, cwd=cwd)  # the part is kept as read: a later history may say otherwise
            ix.sessions[task.id] = task
            ix.prompts.update((task_id, (task, prompt)) for task_id, (_read, prompt) in part.prompts.items())
        ix.changes.update(part.changes)
        for kind, n in part.unknown.items():
            unknown[kind] = unknown.get(kind, 0) + n
    ix.counts = {"sessions": len(ix.sessions), "prompts": len(ix.prompts),
                 "tool_uses": sum(1 for _t, p in ix.prompts.values() for s in p.steps
                                  if s.tool not in ("reply", "reasoning", "checkpoint", "notification", "attempt_completion")),
                 "file_changes": len(ix.changes)}
    if unknown:
        ix.counts["unknown_records"] = sum(unknown.values())
    return ix


def index_listing(ix: ClineIndex) -> ClineListing:
    """The session rows of an index."""
    rows = []
    for task in ix.sessions.values():
        created = task.started or file_time(task.folder)
        title = task.prompts[0].text if task.prompts else task.id
        info = SessionInfo(id=task.id, title=preview(title), status=task.session_status,
                           current_task_id=f"{task.id}:{len(task.prompts)}" if task.prompts else None,
                           created_at=created, updated_at=task.updated or created, task_count=len(task.prompts),
                           current_title=preview(task.prompts[-1].text) if task.prompts else "")
        rows.append(ListedRow(info, str(task.folder), session_files(task.folder)))
    listed = listing_of(rows, ix.counts, ix.problems, ClineListing)
    listed.unknown = dict(ix.unknown)  # type: ignore[attr-defined]
    return listed  # type: ignore[return-value]


def read_listing(folder: Path) -> ClineListing:
    """One task folder's part of the listing."""
    return index_listing(index_folders([folder], {}))


class ClineSource(ListingSource[ClineIndex], ResumeHooks, LiveWatch):
    """The tasks of a Cline data folder (the CLI's `~/.cline/data` or the extension's
    globalStorage folder), of one of its workspaces, or one task folder."""

    kind = "cline"
    label = "Cline"
    agent_processes = ("cline",)
    listing_class = ClineListing

    def __init__(self, path: Path, lister: Callable[[], list[Path]], *, data: Path | None, cli: bool) -> None:
        super().__init__(Path(path))
        self.data = data
        self.cli = cli  # the `cline` CLI's data folder: `cline --taskId ID` resumes a task
        self._lister = lister
        self._parts = Parts()  # each task folder's index, kept while its files are unchanged

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        can = {Capability.DIFF, Capability.LIVE, Capability.SEARCH}
        if self.sqlite_files():
            can.add(Capability.SQLITE_STATS)
        return frozenset({*can, Capability.RESUME} if self.cli else can)

    def sqlite_files(self) -> list[Path]:
        """The CLI 3.x's session database (`db/sessions.db`), for `memtui stats` (read-only)."""
        db = self.data / "db" / "sessions.db" if self.data is not None else None
        return [db] if db is not None and db.is_file() else []

    def instead(self, capability: Capability) -> str:
        if capability is Capability.RESUME:
            return "a task of Cline's VS Code extension is resumed from its history in VS Code"
        if capability is Capability.CLEANUP:
            return CLEANUP_REFUSAL
        if capability is Capability.ROLLBACK:
            return ("Cline's checkpoints are commits of a shadow git repository memtui does not read yet;"
                    " restore a checkpoint in Cline")
        return super().instead(capability)

    def watched_files(self) -> list[Path]:
        folders = self._lister()
        return [*files_and_folders([f / "ui_messages.json" for f in folders]), Path(self.path)]

    # -- the index ----------------------------------------------------------------------------
    def build_index(self) -> ClineIndex:
        """The task folders' indexes merged; a folder is read again only when one of its files
        changed since the last build (follow mode reloads as Cline writes one task)."""
        parts = self._parts.each(self._lister(), folder_signature, index_task)
        return merge_tasks(parts, task_history(self.data) if self.data is not None else {})

    def units(self) -> list[Path]:
        return self._lister()

    def unit_signature(self) -> Callable[[Path], Hashable | None]:
        return folder_signature

    def unit_reader(self) -> Callable[[Path], Listing]:
        return read_listing

    def index_listing(self, ix: ClineIndex) -> Listing:
        return index_listing(ix)

    def problems(self) -> list[Problem]:
        """The problems met reading the folders, then each unknown kind of message, counted."""
        listed = cast(ClineListing, self.listing())  # index_listing's, or the kept parts' merged
        return [*listed.problems, *(Problem(str(self.path), None, f"{n} message(s) of unknown kind {kind!r}: shown as notifications")
                                    for kind, n in sorted(listed.unknown.items()))]

    # -- the read model -------------------------------------------------------------------------
    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        task = self.index().sessions.get(str(session_id)) if session_id is not None else None
        return [self.task(f"{task.id}:{n}") for n in range(1, len(task.prompts) + 1)] if task else []

    def task(self, task_id: Id) -> TaskInfo:
        task, prompt = self.found(self.index().prompts, task_id, "task")
        times = [s.at for s in prompt.steps if s.at]
        last = times[-1] if times else prompt.at
        failed = any(s.status == "error" for s in prompt.steps)
        done = any(s.tool == "attempt_completion" for s in prompt.steps) or task.status == "completed"
        return TaskInfo(id=str(task_id), session_id=task.id, title=preview(prompt.text) or str(task_id),
                        status="failed" if failed and not done else "completed" if done else "unknown",
                        summary=prompt.text, created_at=prompt.at, updated_at=last, finished_at=last if done else None,
                        step_count=len(prompt.steps), checkpoint_count=sum(1 for s in prompt.steps if s.change))

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        _task, prompt = self.found(self.index().prompts, task_id, "task")
        return [self._step(str(task_id), seq, s) for seq, s in enumerate(page(prompt.steps, offset, limit), start=offset + 1)]

    def step(self, step_id: Id) -> StepInfo:
        task_id, _, seq = str(step_id).rpartition(":")
        found = self.index().prompts.get(task_id)
        if found is None or not seq.isdigit() or not 1 <= int(seq) <= len(found[1].steps):
            raise UnknownId(f"no step {step_id!r} in {self.path}")
        return self._step(task_id, int(seq), found[1].steps[int(seq) - 1])

    def _step(self, task_id: str, seq: int, s: Step) -> StepInfo:
        step_id = f"{task_id}:{seq}"
        return StepInfo(id=step_id, task_id=task_id, seq=seq, tool=s.tool, args=s.args, result=s.result, status=s.status,
                        error=s.error, tokens_in=s.usage.prompt if s.usage else 0, tokens_out=s.usage.output if s.usage else 0,
                        cost=s.cost, created_at=s.at, model=s.model, usage=s.usage,
                        checkpoint_id=step_id if s.change is not None else None)

    def messages(self, task_id: Id) -> list[MessageInfo]:
        _task, prompt = self.found(self.index().prompts, task_id, "task")
        out = [MessageInfo(id=f"{task_id}/prompt", task_id=task_id, role="user", content=prompt.text, created_at=prompt.at)]
        out += [MessageInfo(id=f"{task_id}/reply{n}", task_id=task_id, role="assistant", content=str(s.result), created_at=s.at)
                for n, s in enumerate(s for s in prompt.steps if s.tool in ("reply", "attempt_completion") and s.result)]
        return out

    # -- file changes ---------------------------------------------------------------------------
    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        _task, prompt = self.found(self.index().prompts, task_id, "task")
        return [CheckpointInfo(id=f"{task_id}:{seq}", task_id=task_id, step_id=f"{task_id}:{seq}", created_at=s.at, entry_count=1)
                for seq, s in enumerate(prompt.steps, start=1) if s.change is not None]

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        task_id, step = self.found(self.index().changes, checkpoint_id, "file change")
        return CheckpointInfo(id=str(checkpoint_id), task_id=task_id, step_id=str(checkpoint_id), created_at=step.at, entry_count=1)

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        found = self.index().changes.get(str(checkpoint_id))
        return [] if found is None else [self._entry(str(checkpoint_id), found[0], found[1].change)]  # type: ignore[arg-type]

    def _entry(self, checkpoint_id: str, task_id: str, c: Change) -> SourceEntryInfo:
        return SourceEntryInfo(id=f"{checkpoint_id}:0", checkpoint_id=checkpoint_id, path=self._relative(task_id, c.path),
                               kind=c.kind, before_size=len(c.before.encode()) if c.before is not None else None,
                               after_size=len(c.after.encode()) if c.after is not None else None,
                               before_known=c.before_known, after_known=c.after_known, unknown_reason=c.reason, diff=c.diff)

    def _change(self, entry_id: Id) -> tuple[str, str, Change]:
        checkpoint_id, _, n = str(entry_id).rpartition(":")
        found = self.index().changes.get(checkpoint_id)
        if found is None or n != "0" or found[1].change is None:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        return checkpoint_id, found[0], found[1].change

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        return self._entry(*self._change(entry_id))

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) of a new file or an edit; ContentUnknown for a side Cline did not record."""
        _checkpoint, _task, c = self._change(entry_id)
        if not (c.before_known and c.after_known):
            raise ContentUnknown(f"{c.path}: {c.reason or 'Cline did not record this side of the change'}")
        encode = lambda t: None if t is None else t.encode("utf-8", "surrogateescape")  # noqa: E731
        return encode(c.before), encode(c.after)

    def _relative(self, task_id: str, path: str) -> str:
        cwd = self.index().prompts[task_id][0].cwd
        if cwd and os.path.isabs(path) and path.startswith(cwd.rstrip("/") + "/"):
            return os.path.relpath(path, cwd)
        return path

    # -- resume -----------------------------------------------------------------------------------
    def workspace_root(self, task_id: Id) -> Path | None:
        found = self.index().prompts.get(str(task_id))
        return Path(found[0].cwd) if found and found[0].cwd else None

    def resume_command(self, session_id: Id) -> ResumeCommand:
        task = self.found(self.index().sessions, session_id, "session")
        return ResumeCommand((*task.resume, task.id), Path(task.cwd) if task.cwd else None)


def read_folder(folder: Path, problems: list[Problem]) -> ClineTask | None:
    """A task folder or a 3.x session folder, read whole."""
    return read_session(folder, problems) if is_session_folder(folder) else read_task(folder, problems)
