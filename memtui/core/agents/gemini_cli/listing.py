"""Gemini CLI's chats indexed (every chat file of a source merged into one index) and listed
(the session rows the sessions pane shows), a chat file at a time: the listing is kept in
memtui's cache folder (memtui.core.sources.listing), so an open parses only the chats new or
changed since the last one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from memtui.core.agents.gemini_cli.chats import GeminiIndex, read_chat
from memtui.core.agents.gemini_cli.checkpoints import apply_checkpoints
from memtui.core.agents.gemini_cli.home import home_of, project_root_of
from memtui.core.agents.gemini_cli.subagents import nest_sub_agents
from memtui.core.model import Problem, SessionInfo
from memtui.core.paths import stat_key
from memtui.core.sources.base import preview
from memtui.core.sources.listing import ListedRow, Listing, listing_of
from memtui.core.sources.timestamps import file_time


class GeminiListing(Listing):
    """Gemini CLI's session listing (its parts keyed by this package's code)."""


def index_chats(files: Sequence[Path]) -> GeminiIndex:
    """The index of the chat files `files` (each with its sub-agents' chats nested)."""
    return merge_chats([index_chat(file) for file in files])


def index_chat(file: Path) -> GeminiIndex:
    """The index of one chat file and its sub-agents' chats (its `counts` count them as read:
    `merge_chats` counts the merged index)."""
    ix = GeminiIndex()
    chat = read_chat(file, ix.problems)
    if chat is None:
        return ix
    read_problems = len(ix.problems)  # the chat's own (a duplicate's sub-agents are not read)
    ix.sessions[chat.id] = ix.listed[chat.id] = chat
    chats = [chat, *nest_sub_agents(ix, chat, ix.problems)]
    root = project_root_of(file.parent.parent)
    checkpointed = apply_checkpoints(chat, home_of(file), file.parent.parent, root, ix.problems)
    for turn in chat.turns:
        ix.turns[turn.id] = turn
        ix.roots[turn.session_id] = root
        for step in turn.steps:
            if step.change is not None:
                ix.changes[f"{turn.session_id}:{step.key}"] = (turn, step)
    ix.counts = {"chats": len(chats), "unknown_records": sum(c.unknown for c in chats), "read_problems": read_problems,
                 "checkpointed_changes": checkpointed}
    return ix


def merge_chats(parts: Sequence[GeminiIndex]) -> GeminiIndex:
    """One index of the chat files' indexes (`index_chat`), in order: a session already read
    from an earlier file is reported and not shown twice."""
    ix = GeminiIndex()
    chats = unknown = checkpointed = 0
    for part in parts:
        chat = next(iter(part.sessions.values()), None)
        if chat is None:
            ix.problems.extend(part.problems)
            continue
        if chat.id in ix.sessions:
            ix.problems.extend(part.problems[:part.counts.get("read_problems", 0)])
            ix.problems.append(Problem(str(chat.file), None,
                                       f"session {chat.id} is also in {ix.sessions[chat.id].file}: not shown twice"))
            continue
        ix.problems.extend(part.problems)
        ix.sessions.update(part.sessions)
        ix.turns.update(part.turns)
        ix.roots.update(part.roots)
        ix.changes.update(part.changes)
        ix.listed.update(part.listed)
        ix.handoffs.update(part.handoffs)
        chats += part.counts.get("chats", 0)
        unknown += part.counts.get("unknown_records", 0)
        checkpointed += part.counts.get("checkpointed_changes", 0)
    ix.counts = {"sessions": len(ix.sessions), "prompts": sum(1 for t in ix.turns.values() if not t.listed_in),
                 "tool_calls": sum(1 for t in ix.turns.values() for s in t.steps if s.tool not in ("reply", "notification")),
                 "file_changes": len(ix.changes)}
    if chats > len(ix.sessions):
        ix.counts["subagent_chats"] = chats - len(ix.sessions)
    if unknown:
        ix.counts["unknown_records"] = unknown
    if checkpointed:
        ix.counts["checkpointed_changes"] = checkpointed  # befores read from Gemini CLI's own checkpoints
    return ix


def index_listing(ix: GeminiIndex) -> GeminiListing:
    """The session rows of an index (each with its project folder, for rollback's offer)."""
    rows = []
    for chat in ix.sessions.values():
        created = chat.created_at or file_time(chat.file)
        title = chat.turns[0].prompt if chat.turns else chat.id
        prompts = [t for t in chat.turns if not t.listed_in]  # the current task is a prompt, not a sub-agent's
        info = SessionInfo(id=chat.id, title=preview(title), status="unknown",
                           current_task_id=prompts[-1].id if prompts else None, created_at=created,
                           updated_at=chat.updated_at or created, task_count=len(chat.turns),
                           current_title=preview(prompts[-1].prompt) if prompts else "")
        root = ix.roots.get(chat.id)
        rows.append(ListedRow(info, str(chat.file), (str(chat.file),), None if root is None else str(root)))
    return listing_of(rows, ix.counts, ix.problems, GeminiListing)  # type: ignore[return-value]


def read_listing(file: Path) -> GeminiListing:
    """One chat file's part of the listing (it and its sub-agents' chats read)."""
    return index_listing(index_chats([file]))


class ChatSignature:
    """What a chat's part was read from: the chat file and the sub-agent chats in the folder
    named by its session id, whose first 8 characters end the chat's file name
    (`session-<time>-<8>.jsonl`). One per listing: each chats folder is looked at once."""

    def __init__(self) -> None:
        self._folders: dict[Path, list[str]] = {}

    def __call__(self, path: Path) -> tuple | None:
        own = stat_key(path)
        if own is None:
            return None
        if path.parent not in self._folders:
            try:
                with os.scandir(path.parent) as entries:
                    self._folders[path.parent] = sorted(e.name for e in entries if e.is_dir())
            except OSError:
                self._folders[path.parent] = []
        tail = path.stem.rsplit("-", 1)[-1]
        subs = []
        for name in self._folders[path.parent]:
            if tail and name.startswith(tail):
                folder = path.parent / name
                try:
                    with os.scandir(folder) as entries:
                        subs += sorted((f"{name}/{e.name}", stat_key(e.path)) for e in entries if e.is_file())
                except OSError:
                    continue
        return own, tuple(subs)
