"""Gemini CLI's sub-agents (0.61): an `invoke_agent` call runs an agent (the generalist, the
codebase investigator, …) whose chat Gemini CLI keeps beside its caller's, in
`chats/<caller's sessionId>/<sub-agent sessionId>.jsonl`, its header saying `kind: "subagent"`;
the sub-agent's first prompt is the call's `prompt`. Its turns are listed in the caller's
session, right after the turn whose call started it (a handoff), not as a session of their own.
"""

from __future__ import annotations

from pathlib import Path

from memtui.core.agents.gemini_cli.chats import Chat, GeminiIndex, Turn, read_chat
from memtui.core.model import Problem
from memtui.core.paths import plain_name

INVOKE = "invoke_agent"


def sub_agent_files(chat: Chat) -> list[Path]:
    """The sub-agent chats kept beside `chat` (in a folder named by its session id; none when
    the recorded id is not a plain name: it could lead to any folder)."""
    if not plain_name(chat.id):
        return []
    folder = chat.file.parent / chat.id
    try:
        return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".jsonl", ".json"))
    except OSError:
        return []


def nest_sub_agents(ix: GeminiIndex, chat: Chat, problems: list[Problem]) -> list[Chat]:
    """Read `chat`'s sub-agent chats into it: their turns spliced in after the turn that invoked
    them (handoffs recorded in `ix`); the sub-agent chats read."""
    subs = [c for c in (read_chat(f, problems) for f in sub_agent_files(chat)) if c is not None and c.kind == "subagent"]
    subs.sort(key=lambda c: (c.created_at is None, c.created_at))
    used: set[tuple[str, str]] = set()  # (turn id, call key) already matched to a sub-agent
    for sub in subs:
        ix.listed[sub.id] = chat
        if not sub.turns:
            continue
        for turn in sub.turns:
            turn.listed_in = chat.id
        caller = _caller(chat, sub.turns[0], used)
        if caller is None:
            chat.turns.extend(sub.turns)  # its call is not recorded: still shown in its session
            continue
        at = chat.turns.index(caller) + 1
        handed = ix.handoffs.setdefault(caller.id, [])
        while at < len(chat.turns) and chat.turns[at].id in handed:
            at += 1  # after the sub-agents this turn started before it
        chat.turns[at:at] = sub.turns
        handed.extend(t.id for t in sub.turns)
    return subs


def _caller(chat: Chat, first: Turn, used: set[tuple[str, str]]) -> Turn | None:
    """The turn of `chat` whose first unmatched `invoke_agent` call sent `first`'s prompt."""
    for turn in chat.turns:
        if turn.listed_in:
            continue
        for step in turn.steps:
            args = step.args if isinstance(step.args, dict) else {}
            if step.tool == INVOKE and args.get("prompt") == first.prompt and (turn.id, step.key) not in used:
                used.add((turn.id, step.key))
                return turn
    return None
