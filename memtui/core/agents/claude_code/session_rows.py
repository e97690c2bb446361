"""What a listing reads of a Claude Code session, worked out when its files are read: its
title from its prompts, its current prompt, the transcripts it was read from, each turn's
task row, usage rows and handoffs — kept with the session's part (memtui.core.sources.kept_parts), so `memtui log`, the
sessions pane and search's change check read no turn."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from memtui.core.agents.claude_code.tables import TranscriptSession, TranscriptTables, Turn
from memtui.core.model import Reference, TaskInfo
from memtui.core.sources.transcript_root import turn_usage

PartT = TypeVar("PartT", bound=TranscriptTables)


def first_prompt_title(prompts: list[Turn]) -> str | None:
    """A session's title from its prompts: the first that says something — typed, or a slash
    command given arguments (a custom command's request) — not "." alone, not a bare command
    such as /usage; else the first prompt at all; None when there is none (only the part
    before any prompt)."""
    real = [t for t in prompts if t.uuid is not None]
    said = next((t.title for t in real if any(c.isalnum() for c in t.title) and not (t.command and " " not in t.title)), None)
    return said or (real[0].title if real else None)


def turn_task(turn: Turn, session: TranscriptSession | None) -> TaskInfo:
    """A turn's TaskInfo (`session`: its session, which says what it continues)."""
    times: list[datetime | None] = [i.created_at for i in turn.items if i.created_at] or [turn.created_at]
    last = turn.items[-1] if turn.items else None
    status = "completed"
    if last is not None and last.kind == "event" and last.name == "interrupt":
        status = "interrupted"
    elif last is not None and last.is_error:
        status = "failed"
    notes = []
    if turn.superseded:
        notes.append("on a rewound branch")
    if turn.compacted:
        notes.append("context compacted")
    if session is not None and session.predecessor and session.turns and session.turns[0] == turn.id:
        notes.append(f"continues session {session.predecessor}")
    if turn.side_question:
        notes.append("side question")
    elif turn.agent_id:
        notes.append(f"sub-agent {turn.agent_id}")
    return TaskInfo(
        id=turn.id,
        session_id=turn.session_id,
        title=turn.title,
        status=status,
        superseded=turn.superseded,
        summary="; ".join(notes),
        created_at=turn.created_at,
        updated_at=times[-1],
        finished_at=times[-1],
        step_count=len(turn.items),
        checkpoint_count=sum(1 for i in turn.items if i.change),
    )


def list_sessions(part: PartT) -> PartT:
    """`part` with its sessions' listing filled in (title from prompts, current prompt,
    transcripts read, task rows)."""
    for session in part.sessions.values():
        turns = [part.turns[t] for t in session.turns]
        prompts = [t for t in turns if t.agent_id is None]
        session.prompt_title = first_prompt_title(prompts) or (turns[0].title if turns else None)
        session.current = next((t.id for t in reversed(prompts) if not t.superseded), None)
        session.transcripts = tuple(sorted({str(t.transcript) for t in turns}))
        part.task_rows[session.id] = [turn_task(t, session) for t in turns]
        part.usage_rows.update((t.id, turn_usage(t)) for t in turns)
        part.handoffs.update(_handoffs(part, turns))
    return part


def _handoffs(part: TranscriptTables, turns: list[Turn]) -> dict[str, list[Reference]]:
    """Each turn of a session → the handoffs it is either end of: the turn that called
    Task/Agent → the sub-agent's task, the turn a side question was asked during → the side
    question (in the order of the session's turns)."""
    out: dict[str, list[Reference]] = {}
    for child in turns:
        found = part.calls.get(f"{child.session_id}:{child.parent_call}") if child.parent_call else None
        parent_id = found[0] if found is not None else child.branch_from
        if parent_id is None:
            continue
        ref = Reference(from_task=parent_id, to_task=child.id, kind="handoff")
        for end in dict.fromkeys((parent_id, child.id)):
            out.setdefault(end, []).append(ref)
    return out
