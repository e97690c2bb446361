"""The tables of Codex's rollout index: sessions, turns and their steps, as offsets into the
rollouts.

Records only: the streaming pass (memtui.core.agents.codex.rollouts) fills them, and the read
model (memtui.core.agents.codex.source) reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memtui.core.agents.codex.patches import PatchFile
from memtui.core.model import TaskInfo
from memtui.core.usage.tokens import NO_TOKENS, Tokens


@dataclass
class RolloutItem:
    """One step of a turn, as offsets into its rollout."""

    kind: str  # "call" | "reply" | "turn_diff" | "compaction" | "aborted"
    offset: int
    line: int
    created_at: datetime | None
    key: str
    name: str = ""
    output_offset: int | None = None
    output_at: datetime | None = None
    patch: list[PatchFile] | None = None
    applied: bool | None = None
    end_offset: int | None = None  # patch_apply_end event
    tokens_in: int = 0
    tokens_out: int = 0
    usage: Tokens | None = None  # what the requests that made it used, by kind (OpenAI's counts mapped)
    model: str = ""
    status: str | None = None  # what the call itself recorded (web_search_call: "completed")


@dataclass
class Turn:
    """One user prompt and the steps that answered it."""

    id: str
    session_id: str
    title: str
    prompt: str
    created_at: datetime | None
    items: list[RolloutItem] = field(default_factory=list)
    replies: list[tuple[str, datetime | None]] = field(default_factory=list)
    total_at_end: dict | None = None
    grown: list[int] = field(default_factory=lambda: [0, 0])  # input, output tokens reported while it ran
    model: str = ""  # the model of its last counted request
    usage: Tokens = NO_TOKENS  # tokens by kind reported while it ran


@dataclass
class RolloutSession:
    """One rollout file and its turns, in order."""

    id: str
    file: Path
    meta: dict
    title: str | None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    turns: list[str] = field(default_factory=list)
    total_tokens: dict | None = None
    cwd: str | None = None
    prompt_title: str | None = None  # its first prompt's title (`listed`)



def turn_task(turn: Turn) -> TaskInfo:
    """A turn's TaskInfo."""
    times: list[datetime | None] = [i.created_at for i in turn.items if i.created_at] or [turn.created_at]
    aborted = bool(turn.items) and turn.items[-1].kind == "aborted"
    return TaskInfo(id=turn.id, session_id=turn.session_id, title=turn.title,
                    status="interrupted" if aborted else "completed",
                    created_at=turn.created_at, updated_at=times[-1], finished_at=times[-1],
                    step_count=len(turn.items),
                    checkpoint_count=sum(1 for i in turn.items if i.patch is not None and i.applied))
