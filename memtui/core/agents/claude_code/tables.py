"""The tables of Claude Code's transcript index: sessions, turns and their steps, as offsets.

Records only: the reader (memtui.core.agents.claude_code.reader) fills them, checkpoints and
contents read them, and `Transcripts` (transcripts.py) reads a session's files into them.
"""

from __future__ import annotations

import os
from functools import lru_cache
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from memtui.core.sources.transcript_root import TurnIndex
from memtui.core.usage.tokens import Tokens


@lru_cache(maxsize=8192)
def normalised(path: str, cwd: str | None) -> str:
    """An absolute, normalised path for a recorded one (relative ones are under `cwd`). Kept
    for the paths asked last: each prompt's file-history snapshot names every file tracked so far."""
    return os.path.normpath(path if os.path.isabs(path) or cwd is None else os.path.join(cwd, path))


@dataclass
class TranscriptItem:
    """One step of a turn, as offsets into its transcript."""

    kind: str  # "call" | "reply" | "compact" | "event"
    transcript: Path
    offset: int
    line: int
    created_at: datetime | None
    key: str  # tool_use id, or "<line>:<block>" for replies
    name: str = ""  # tool name; for events: interrupt, notification, command, command output, shell
    block: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    usage: Tokens | None = None  # the tokens by kind of the reply this step carries (its first step)
    model: str = ""
    result_offset: int | None = None
    is_error: bool = False
    change: bool = False  # a successful Edit/Write/MultiEdit result
    file_path: str | None = None
    agent_prompt: str | None = None  # a Task/Agent call's prompt, to find its sub-agent
    summariser: Path | None = None  # a compaction's summariser transcript
    summary: str = ""

    def __reduce__(self) -> tuple:
        # Pickled as its fields in order (every step of an index's parts is one): its dict's
        # keys, pickled with each step, made a third of a part's pickle and its loads twice as slow.
        return TranscriptItem, (self.kind, self.transcript, self.offset, self.line, self.created_at, self.key, self.name,
                                self.block, self.tokens_in, self.tokens_out, self.usage, self.model, self.result_offset,
                                self.is_error, self.change, self.file_path, self.agent_prompt, self.summariser, self.summary)


@dataclass
class Turn:
    """One user prompt (or one sub-agent run) and the steps that answered it."""

    id: str
    session_id: str
    uuid: str | None
    title: str
    created_at: datetime | None
    transcript: Path
    items: list[TranscriptItem] = field(default_factory=list)
    replies: list[tuple[str, datetime | None]] = field(default_factory=list)
    prompt: str = ""
    superseded: bool = False
    compacted: bool = False
    agent_id: str | None = None
    parent_call: str | None = None  # tool_use id of the Task/Agent call that started it
    command: bool = False  # opened by a slash command the model answered, not a typed prompt
    side_question: bool = False  # a side question (2.1.86+ `agent-aside_question-*`), asked during `branch_from`
    branch_from: str | None = None  # the turn a side question branched from
    backups: dict[str, str | None] = field(default_factory=dict)  # abs path → backup file name
    line: int = 0  # the prompt's line and byte offset in the transcript
    offset: int = 0


@dataclass
class TranscriptSession:
    """One session transcript and its turns, in order. `file` is the transcript, or the
    `subagents` folder of a session whose transcript is gone (`orphaned`)."""

    id: str
    file: Path
    cwd: str | None = None
    title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    turns: list[str] = field(default_factory=list)
    orphaned: bool = False
    predecessor: str | None = None  # the session this one continues (its first records carry that id)
    prompt_title: str | None = None  # the title its prompts give, current: its last prompt not rewound,
    current: str | None = None  # transcripts: those its turns were read from (session_rows.list_sessions)
    transcripts: tuple[str, ...] = ()


def _transcript_counts() -> dict[str, int]:
    return {"sessions": 0, "prompts": 0, "tool_calls": 0, "file_changes": 0, "malformed_lines": 0}


@dataclass
class TranscriptTables(TurnIndex[TranscriptSession, Turn]):
    """Claude Code's index tables: sessions, turns and steps of transcripts, as offsets. The
    reader fills them; `Transcripts` reads one session's files into them."""

    home: Path | None = None
    calls: dict[str, tuple[str, TranscriptItem]] = field(default_factory=dict)
    """"<session>:<tool_use id>" → (turn id, item)."""
    agent_calls: dict[tuple[str, str], str] = field(default_factory=dict)
    """(session, agentId) → the Task/Agent call id that started it."""
    compactions: dict[str, list[TranscriptItem]] = field(default_factory=dict)
    """session → its compaction steps, in order."""
    stored: dict[str, tuple[Any, tuple[int, str]]] = field(default_factory=dict)
    """session → (its transcript's stat key, its bytes and files key): filled as sessions are listed."""
    counts: dict[str, int] = field(default_factory=_transcript_counts)
    lazy: ClassVar[tuple[str, ...]] = ("turns", "calls", "agent_calls", "compactions")

    def add_tables(self, part: "TranscriptTables") -> None:
        self.turns.update(part.turns)
        self.calls.update(part.calls)
        self.agent_calls.update(part.agent_calls)
        self.compactions.update(part.compactions)

    def new_turn(self, session: TranscriptSession, path: Path, turn_id: str, uuid: str | None, title: str, when) -> Turn:
        turn = Turn(turn_id, session.id, uuid, title or "(empty prompt)", when, path)
        self.turns[turn_id] = turn
        session.turns.append(turn_id)
        return turn

    def merge_backups(self, turn: Turn, backups: dict[str, str | None], cwd: str | None) -> None:
        for key, name in backups.items():
            turn.backups.setdefault(normalised(key, cwd), name)
