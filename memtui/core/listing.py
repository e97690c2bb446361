"""What `memtui log` and `memtui show` print, as plain dicts (their --json shapes), read
from any MemorySource: sessions → tasks → steps like `git log`; one task, step,
checkpoint or entry like `git show`. The ids are the ones `memtui rollback` takes."""

from __future__ import annotations

from typing import Any, Iterator

from memtui.core.diff import unified_diff
from memtui.core.memory_source import Capability, MemorySource, UnknownId
from memtui.core.errors import MemtuiError
from memtui.core.ids import unique_start
from memtui.core.model import CheckpointInfo, EntryInfo, Id, SessionInfo, StepInfo, TaskInfo

ACTIONS = {"added": "create", "deleted": "delete", "modified": "modify"}


def _task_row(source: MemorySource, task: TaskInfo) -> dict[str, Any]:
    return {"id": task.id, "title": task.title, "status": task.status, "steps": task.step_count,
            "checkpoints": task.checkpoint_count}


def log_sessions(source: MemorySource, session_id: Id | None = None) -> dict[str, Any]:
    """`{"sessions": [{"id", "title", "status", "tasks": [{"id", "title", "status", "steps",
    "checkpoints"}]}]}`, newest session first; tasks whose session is gone come last under
    a session with id None and status "orphaned"."""
    sessions = list(source.sessions())
    if session_id is not None:
        sessions = [find_session(source, session_id, sessions)]
    out = [{"id": s.id, "title": s.title, "status": s.status, **({"origin": s.origin} if s.origin else {}),
            "tasks": [_task_row(source, t) for t in source.tasks(s.id)]} for s in sessions]
    if session_id is None:
        orphans = list(source.tasks(None))
        if orphans:
            out.append({"id": None, "title": "tasks whose session was deleted", "status": "orphaned",
                        "tasks": [_task_row(source, t) for t in orphans]})
    return {"sessions": out}


def find_session(source: MemorySource, given: Id, sessions: list[SessionInfo] | None = None) -> SessionInfo:
    """The session `given` names: its id, or — for another agent's store, whose ids are long
    (`memtui cleanup` prints them shortened) — the one id it starts. UnknownId if none does,
    MemtuiError if several do."""
    sessions = list(source.sessions()) if sessions is None else sessions
    by_id = {str(s.id): s for s in reversed(sessions)}  # the first of equal ids
    if str(given) in by_id:
        return by_id[str(given)]
    named = unique_start(str(given), [s.id for s in sessions if isinstance(s.id, str)], "sessions")  # not 1 for 12
    if named is None:
        raise UnknownId(f"no session {given!r} in {source.path}")
    return by_id[named]


def resolve_id(source: MemorySource, given: Id, kind: str) -> Id:
    """The id of the one `kind` record (session, task, step, checkpoint, entry) that `given`
    names: its id, or — for another agent's long compound ids (SESSION:TURN:…, which `memtui
    log` prints whole and people shorten) — the one whose every part starts with the part given:
    `7f2abd2d:f370ce0f` names task `7f2abd2d-…:f370ce0f…`. UnknownId if none does, MemtuiError
    if several do. Every verb that takes an id asks this."""
    if kind == "session":
        return find_session(source, given).id
    lookup = {"task": source.task, "step": source.step, "checkpoint": source.checkpoint, "entry": source.entry}[kind]
    try:
        return lookup(given).id
    except UnknownId as exc:
        if not isinstance(given, str) or not given:
            raise
        missing = exc
    parts = given.split(":")
    sessions = [s for s in source.sessions() if isinstance(s.id, str) and s.id.startswith(parts[0])]
    matches = [i for i in dict.fromkeys(_ids_in(source, [s.id for s in sessions], kind))
               if isinstance(i, str) and _starts_part_by_part(i, parts)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(matches[:3]) + (", …" if len(matches) > 3 else "")
        raise MemtuiError(f"{given!r} starts {len(matches)} {kind} ids ({shown}): give more of the id")
    raise missing


def _starts_part_by_part(full: str, parts: list[str]) -> bool:
    whole = full.split(":")
    return len(parts) <= len(whole) and all(w.startswith(p) for w, p in zip(whole, parts))


def _ids_in(source: MemorySource, session_ids: list[Id], kind: str) -> Iterator[Id]:
    """Every `kind` id of these sessions (what a shortened id is matched against)."""
    for session_id in session_ids:
        for task in source.tasks(session_id):
            if kind == "task":
                yield task.id
            elif kind == "step":
                yield from (step.id for step in source.steps(task.id))
            else:
                for cp in source.checkpoints(task.id):
                    if kind == "checkpoint":
                        yield cp.id
                    else:
                        yield from (entry.id for entry in source.checkpoint_entries(cp.id))


def _step_row(step: StepInfo) -> dict[str, Any]:
    return {"id": step.id, "seq": step.seq, "tool": step.tool, "status": step.status,
            "checkpoint": step.checkpoint_id}


def log_task(source: MemorySource, task_id: Id) -> dict[str, Any]:
    """`{"task": {"id", "title", "status", "steps", "checkpoints", "session"}, "steps": [{"id",
    "seq", "tool", "status", "checkpoint"}]}`."""
    task = source.task(resolve_id(source, task_id, "task"))
    return {"task": {**_task_row(source, task), "session": task.session_id},
            "steps": [_step_row(s) for s in source.steps(task.id)]}


def _entry_row(entry: EntryInfo) -> dict[str, Any]:
    return {"id": entry.id, "path": entry.path, "action": ACTIONS.get(entry.kind, entry.kind),
            "before_size": entry.before_size, "after_size": entry.after_size}


def _with_diff(source: MemorySource, row: dict[str, Any], entry: EntryInfo) -> dict[str, Any]:
    try:
        before, after = source.read_entry(entry.id)
    except Exception as exc:  # content unknown, corrupt or too large: said in place of the diff
        return {**row, "diff": None, "diff_error": str(exc) or type(exc).__name__}
    return {**row, "diff": unified_diff(before, after, entry.path)}


def _checkpoint_row(cp: CheckpointInfo) -> dict[str, Any]:
    return {"id": cp.id, "task": cp.task_id, "step": cp.step_id, "label": cp.label}


def show_checkpoint(source: MemorySource, checkpoint_id: Id, diff: bool = False) -> dict[str, Any]:
    """`{"checkpoint": {"id", "task", "step", "label"}, "entries": [{"id", "path", "action",
    "before_size", "after_size"}]}`; with `diff`, each entry also has its unified "diff"."""
    source.require(Capability.DIFF)
    cp = source.checkpoint(resolve_id(source, checkpoint_id, "checkpoint"))
    entries = list(source.checkpoint_entries(cp.id))
    rows = [_with_diff(source, _entry_row(e), e) if diff else _entry_row(e) for e in entries]
    return {"checkpoint": _checkpoint_row(cp), "entries": rows}


def show_entry(source: MemorySource, entry_id: Id, diff: bool = False) -> dict[str, Any]:
    """`{"entry": {"id", "path", "action", "before_size", "after_size", "checkpoint"}}` (+ "diff")."""
    source.require(Capability.DIFF)
    entry = source.entry(resolve_id(source, entry_id, "entry"))
    row = {**_entry_row(entry), "checkpoint": entry.checkpoint_id}
    return {"entry": _with_diff(source, row, entry) if diff else row}


def show_step(source: MemorySource, step_id: Id) -> dict[str, Any]:
    """`{"step": {"id", "task", "seq", "tool", "status", "error", "args", "result", "checkpoint",
    "tokens_in", "tokens_out", "duration_ms"}}`."""
    step = source.step(resolve_id(source, step_id, "step"))
    return {"step": {"id": step.id, "task": step.task_id, "seq": step.seq, "tool": step.tool,
                     "status": step.status, "error": step.error, "args": step.args, "result": step.result,
                     "checkpoint": step.checkpoint_id, "tokens_in": step.tokens_in,
                     "tokens_out": step.tokens_out, "duration_ms": step.duration_ms}}


def show_task(source: MemorySource, task_id: Id) -> dict[str, Any]:
    """`{"task": {...the log row, "session", "summary", "pinned"}, "checkpoints": [{"id", "task",
    "step", "label", "entries"}], "references": [{"from", "to", "kind"}]}`."""
    task = source.task(resolve_id(source, task_id, "task"))
    return {"task": {**_task_row(source, task), "session": task.session_id, "summary": task.summary,
                     "pinned": task.pinned},
            "checkpoints": [{**_checkpoint_row(c), "entries": c.entry_count} for c in source.checkpoints(task.id)],
            "references": [{"from": r.from_task, "to": r.to_task, "kind": r.kind}
                           for r in source.references(task.id)]}
