"""Aider's chat history, `.aider.chat.history.md` in the repository, read whole (never written).

Aider appends to one Markdown file per repository: `# aider chat started at <local time>` each
time it starts, then what it printed (`> ` lines: the command line, the model, "Applied edit
to greet.py", "Commit 321958b <message>", "Tokens: 2.4k sent, 59 received."), what the user
typed (`#### ` lines, one per line of a prompt) and the model's replies (plain Markdown).
`.aider.input.history` beside it holds each prompt again under `# <time with microseconds>`
(`+` lines): the only place a prompt's own time is kept.

Mapping: each start → a session, except a start whose opening says "Restored previous
conversation history." (`--restore-chat-history`): its prompts continue the session before it;
each prompt → a task; in a task, each reply → a "reply" step (its tokens from the Tokens line
after it), each "Applied edit to" → an "edit" step, each "Running" → a "shell" step, each
"Commit" → a "commit" step (its files are the commit's: aider/commits.py), and the other `>`
lines of a block → one "notification" step (an "error" when aider said an edit failed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memtui.core.model import Problem
from memtui.core.usage.tokens import Tokens

HISTORY = ".aider.chat.history.md"
INPUT_HISTORY = ".aider.input.history"
STARTED = "# aider chat started at "
RESTORED = "Restored previous conversation history."
_COMMIT = re.compile(r"Commit ([0-9a-f]{7,40})\b ?(.*)")
_TOKENS = re.compile(r"([\d.]+)([kM]?) (sent|received|cache write|cache hit)")
_COST = re.compile(r"Cost: \$([\d.]+) message")
_MODEL = re.compile(r"(?:Main model|Model): (\S+)")
# What aider prints when the model's edits could not be applied (io.tool_error lines).
_FAILED = ("did not conform to the edit format", "Failed to apply edit", "failed to match", "SearchReplaceNoExactMatch",
           "Did not apply edit", "Unable to")


@dataclass
class Step:
    """A reply, an applied edit, a commit, a shell command or aider's notices."""

    tool: str  # "reply" | "edit" | "commit" | "shell" | "notification"
    args: dict | None = None
    result: str = ""
    status: str = "ok"
    error: str | None = None
    line: int = 0
    usage: Tokens | None = None
    cost: float = 0.0
    sha: str = ""  # a commit step's short sha as aider printed it


@dataclass
class Turn:
    """A prompt and what followed it until the next one."""

    id: str
    session_id: str
    prompt: str
    line: int
    created_at: datetime | None = None
    steps: list[Step] = field(default_factory=list)


@dataclass
class Chat:
    """One session: a start of aider (and the restored starts continuing it)."""

    id: str
    started_at: datetime | None
    line: int
    model: str = ""
    turns: list[Turn] = field(default_factory=list)
    starts: int = 1


def _local(text: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(text.strip(), fmt).astimezone()  # aider writes local time, no zone
    except ValueError:
        return None


def _number(value: str, unit: str) -> int:
    return int(round(float(value) * {"": 1, "k": 1_000, "M": 1_000_000}[unit]))


def parse_tokens(text: str) -> tuple[Tokens, float] | None:
    """"Tokens: 2.4k sent, 59 received. Cost: $0.01 message, …" → (tokens, cost). Aider rounds
    counts over a thousand ("2.4k"): those are approximate."""
    found = {kind: _number(value, unit) for value, unit, kind in _TOKENS.findall(text)}
    if not found:
        return None
    cost = _COST.search(text)
    return (Tokens(input=found.get("sent", 0), output=found.get("received", 0), cache_read=found.get("cache hit", 0),
                   cache_write_5m=found.get("cache write", 0)), float(cost.group(1)) if cost else 0.0)


def read_history(path: Path, problems: list[Problem]) -> list[Chat]:
    """The sessions of a chat history file, oldest first (an unreadable file: a problem, none)."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        problems.append(Problem(str(path), None, f"cannot read: {exc.strerror or exc}"))
        return []
    chats: list[Chat] = []
    chat: Chat | None = None
    turn: Turn | None = None
    reply: list[str] = []
    reply_line = 0
    notices: list[str] = []
    prompt_open = False
    in_opening = False  # the `>` lines after a start, before its first prompt
    count = 0

    def flush_reply() -> None:
        nonlocal reply
        body = "\n".join(reply).strip("\n")
        if turn is not None and body.strip():
            turn.steps.append(Step("reply", result=body, line=reply_line))
        reply = []

    def flush_notices() -> None:
        nonlocal notices
        if turn is not None and notices:
            body = "\n".join(notices)
            failed = any(marker in body for marker in _FAILED)
            turn.steps.append(Step("notification", result=body, status="error" if failed else "ok",
                                   error=body if failed else None))
        notices = []

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw[:-2] if raw.endswith("  ") else raw
        if line.startswith(STARTED):
            flush_reply()
            flush_notices()
            started = _local(line[len(STARTED):], "%Y-%m-%d %H:%M:%S")
            chat = Chat(id=_session_id(started, number, chats), started_at=started, line=number)
            chats.append(chat)
            turn, prompt_open, in_opening = None, False, True
            continue
        if chat is None:
            if line.strip():
                problems.append(Problem(str(path), number, "text before the first '# aider chat started at': not shown"))
                chat = Chat(id=f"line-{number}", started_at=None, line=number)
                chats.append(chat)
            continue
        if line.startswith("#### ") or line == "####":
            body = line[5:]
            if prompt_open and turn is not None:
                turn.prompt += "\n" + body
                continue
            flush_reply()
            flush_notices()
            in_opening = False
            count += 1
            turn = Turn(id=f"{chat.id}:{count}", session_id=chat.id, prompt="" if body == "<blank>" else body, line=number)
            chat.turns.append(turn)
            prompt_open = True
            continue
        prompt_open = False
        if line.startswith("> ") or line == ">":  # not ">>>>>>> REPLACE" in a reply
            flush_reply()
            said = line[2:].strip()
            if in_opening:
                chat = _opening(chats, chat, said)
                continue
            _tool_line(turn, notices, said, number, flush_notices)
            continue
        if in_opening:
            continue
        flush_notices()
        if not reply:
            reply_line = number
        reply.append(raw)
    flush_reply()
    flush_notices()
    return [c for c in chats if c.turns]


def _session_id(started: datetime | None, line: int, chats: list[Chat]) -> str:
    base = started.strftime("%Y%m%dT%H%M%S") if started else f"line-{line}"
    taken = {c.id for c in chats}
    return base if base not in taken else f"{base}.{line}"


def _opening(chats: list[Chat], chat: Chat, said: str) -> Chat:
    """A `>` line of a start's opening: the model it names; a restored history folds the start
    into the last session with a prompt (the conversation aider restored)."""
    model = _MODEL.match(said)
    if model and not chat.model:
        chat.model = model.group(1)
    previous = next((c for c in reversed(chats[:-1]) if c.turns), None)  # a start without prompts restores nothing
    if said == RESTORED and previous is not None and chat is chats[-1] and not chat.turns:
        chats.pop()
        previous.starts += 1
        previous.model = previous.model or chat.model
        return previous
    return chat


def _tool_line(turn: Turn | None, notices: list[str], said: str, number: int, flush_notices) -> None:
    if turn is None:
        return
    if said.startswith("Applied edit to "):
        flush_notices()
        turn.steps.append(Step("edit", args={"path": said[len("Applied edit to "):]}, result=said, line=number))
        return
    commit = _COMMIT.fullmatch(said)
    if commit:
        flush_notices()
        turn.steps.append(Step("commit", args={"sha": commit.group(1), "message": commit.group(2)}, result=said,
                               line=number, sha=commit.group(1)))
        return
    if said.startswith("Running "):
        flush_notices()
        turn.steps.append(Step("shell", args={"command": said[len("Running "):]}, result=said, line=number))
        return
    if said.startswith("Tokens: "):
        parsed = parse_tokens(said)
        last = next((s for s in reversed(turn.steps) if s.tool == "reply"), None)
        if parsed is not None and last is not None and last.usage is None:
            last.usage, last.cost = parsed
            return
    if said:
        notices.append(said)


def read_input_times(path: Path) -> list[tuple[datetime | None, str]]:
    """(time, prompt) of each entry of `.aider.input.history`, oldest first ([] if unreadable)."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    entries: list[tuple[datetime | None, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# "):
            entries.append((_local(line[2:], "%Y-%m-%d %H:%M:%S.%f"), []))
        elif line.startswith("+") and entries:
            entries[-1][1].append(line[1:])
    return [(when, "\n".join(lines)) for when, lines in entries]


def date_prompts(chats: list[Chat], inputs: list[tuple[datetime | None, str]]) -> None:
    """Give each prompt the time `.aider.input.history` kept for it: the first entry of the same
    text at or after its session's start, in order (else the start's own time)."""
    at = 0
    for chat in chats:
        for turn in chat.turns:
            turn.created_at = chat.started_at
            for n in range(at, len(inputs)):
                when, prompt = inputs[n]
                if prompt == turn.prompt and (chat.started_at is None or when is None or when >= chat.started_at):
                    turn.created_at, at = when or chat.started_at, n + 1
                    break
