"""What one Claude Code transcript line is: a prompt someone typed, or a line the tool injected.

Not every `user` line is a prompt. Claude Code writes interrupt markers, background-task
notifications, slash commands and their output, meta lines and compaction summaries as
user lines too; they are events inside a turn, never new tasks. Every field is read through
memtui.core.sources.fields, so a line of an unexpected shape raises FieldError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memtui.core.sources.fields import count, field, objects
from memtui.core.usage.tokens import NO_TOKENS, Tokens, from_anthropic

INTERRUPT = "[Request interrupted by user"

# Every record type Claude Code writes is read or deliberately ignored; any other is counted
# and reported as a problem of the source (a new release's records show, never silently lost).
READ_TYPES = frozenset({
    "user", "assistant", "system",          # the conversation (system: compact_boundary; other subtypes are notes)
    "attachment", "progress",               # links of the uuid chain (rewinds, branches); their content is not shown
    "summary", "ai-title", "custom-title", "agent-name",  # titles
    "file-history-snapshot", "file-history-delta",  # file checkpoints (the delta: 2.1.3xx)
})
IGNORED_TYPES = frozenset({
    "queue-operation",   # the prompt queue (enqueue/dequeue of a prompt that follows as a user record)
    "last-prompt",       # the last prompt again, for the resume picker
    "mode", "permission-mode",  # the session's mode
    "atis-latch",        # an internal flag of the CLI
    "api-request-shape", "api-request-blob", "api-request",  # what was sent to the API: copies of the transcript's
    "tools-used",        # the names of the tools used so far
    "pr-link",           # a pull request the session opened (its URL; the Bash call that made it is a step)
    "cost-state",        # running cost totals (memtui counts tokens from the assistant records)
})
# Tags Claude Code wraps around text it injects as a user line → the kind of event.
INJECTED_TAGS = {
    "<task-notification>": "notification",
    "<local-command-stdout>": "command output",
    "<local-command-stderr>": "command output",
    "<local-command-caveat>": "meta",
    "<bash-input>": "shell",
    "<bash-stdout>": "shell",
    "<bash-stderr>": "shell",
    "<system-reminder>": "meta",
    "<user-prompt-submit-hook>": "meta",
}
IDE_CONTEXT = ("<ide_opened_file>", "<ide_selection>", "<ide_diagnostics>")
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def message_blocks(record: Any) -> list[dict]:
    """The content blocks of a record's `message` (a bare string becomes one text block)."""
    message = record.get("message") if record.__class__ is dict else None
    content = message.get("content") if message.__class__ is dict else None
    if content.__class__ is list:  # the common case, without the typed walk of `field`
        return [item for item in content if isinstance(item, dict)]
    content = field(record, "message", "content", kind=(str, list), default=[])
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return objects(record, "message", "content")


def block_text(block: dict) -> str:
    return field(block, "text", kind=str, default="")


@dataclass(frozen=True)
class UserLine:
    """A classified `user` line.

    kind: "prompt" (typed), "command" (a slash command: a prompt if the model answers it,
    an event if it ran locally), "interrupt", "notification", "command output", "shell",
    "meta" (injected context, compaction summaries), or "results" (tool results).
    """

    kind: str
    text: str


def classify_user(record: dict) -> UserLine:
    """What a `user` line is (see UserLine)."""
    blocks = message_blocks(record)
    if "toolUseResult" in record or any(field(b, "type", kind=str, default="") == "tool_result" for b in blocks):
        return UserLine("results", "")
    texts = [block_text(b) for b in blocks if b.get("type") == "text"]
    typed = [t for t in texts if not t.lstrip().startswith(IDE_CONTEXT)]
    # IDE context blocks (the open file, a selection, diagnostics) come before what was typed.
    text = "\n".join(typed if typed else texts)
    if not typed and texts:
        return UserLine("meta", text)
    if (field(record, "isMeta", kind=bool, default=False) or field(record, "isCompactSummary", kind=bool, default=False)
            or field(record, "isVisibleInTranscriptOnly", kind=bool, default=False) or not text.strip()):
        return UserLine("meta", text)
    head = text.lstrip()
    if head.startswith(INTERRUPT):
        return UserLine("interrupt", head.strip())
    if "<command-name>" in head[:400] and head.startswith(("<command-", "<command-name>")):
        name = _COMMAND.search(head)
        args = _ARGS.search(head)
        command = name.group(1).strip() if name else "/?"
        argument = args.group(1).strip() if args else ""
        title = command + (" " + argument if argument and argument != command else "")  # some builds echo the name as args
        return UserLine("command", title)
    for tag, kind in INJECTED_TAGS.items():
        if head.startswith(tag):
            return UserLine(kind, text)
    return UserLine("prompt", text)


USAGE_COUNTS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")


def reply_usage(record: dict) -> tuple[tuple[Any, Any], Tokens, str]:
    """(reply key, tokens by kind, model) of an assistant line.

    One API reply is written as several lines sharing `message.id` + `requestId`; input and
    cache counts repeat, `output_tokens` grows with each line (streaming snapshots), so the
    caller keeps the largest value per key (`Tokens.largest`). A count of the wrong type
    raises FieldError (the line is reported)."""
    message = record.get("message")
    if message.__class__ is dict:  # the common case first: each field of the type expected
        mid, request, usage, model = message.get("id"), record.get("requestId"), message.get("usage"), message.get("model")
        if ((mid is None or mid.__class__ is str) and (request is None or request.__class__ is str)
                and (model is None or model.__class__ is str)):
            tokens = NO_TOKENS if usage is None else _plain_tokens(usage) if usage.__class__ is dict else None
            if tokens is not None:
                return (mid, request), tokens, model or ""
    key = (field(record, "message", "id", kind=str), field(record, "requestId", kind=str))
    for name in USAGE_COUNTS:
        count(record, "message", "usage", name)
    usage = field(record, "message", "usage", kind=dict, default={})
    return key, from_anthropic(usage), field(record, "message", "model", kind=str, default="")


_TOKENS: dict[tuple[int, ...], Tokens] = {}
"""The Tokens of the counts read last (a reply's lines repeat their usage): one object each, as
the reader keeps none of them (`Tokens.largest` makes its own), made once."""


def _plain_tokens(usage: dict) -> Tokens | None:
    """`from_anthropic(usage)` when its counts are each missing or a non-negative integer; None
    when one is not (the caller checks them)."""
    get = usage.get
    fresh, written, read, output = (get("input_tokens"), get("cache_creation_input_tokens"),
                                    get("cache_read_input_tokens"), get("output_tokens"))
    if not ((fresh is None or fresh.__class__ is int and fresh >= 0) and (written is None or written.__class__ is int and written >= 0)
            and (read is None or read.__class__ is int and read >= 0) and (output is None or output.__class__ is int and output >= 0)):
        return None
    split, details = get("cache_creation"), get("output_tokens_details")
    hour = five = thinking = 0
    if split is not None:
        if split.__class__ is not dict:
            return from_anthropic(usage)
        one_hour, five_minutes = split.get("ephemeral_1h_input_tokens"), split.get("ephemeral_5m_input_tokens")
        if not ((one_hour is None or one_hour.__class__ is int and one_hour >= 0)
                and (five_minutes is None or five_minutes.__class__ is int and five_minutes >= 0)):
            return from_anthropic(usage)
        hour, five = one_hour or 0, five_minutes or 0
    if details is not None:
        reasoning = details.get("thinking_tokens") if details.__class__ is dict else False
        if not (reasoning is None or reasoning.__class__ is int and reasoning >= 0):
            return from_anthropic(usage)
        thinking = reasoning or 0
    written = written or 0
    if hour + five > written:  # as from_anthropic: the split alone was written, or the total is stale
        written = hour + five
    counts = (fresh or 0, output or 0, read or 0, written - hour, hour, thinking)
    tokens = _TOKENS.get(counts)
    if tokens is None:
        if len(_TOKENS) >= 4096:
            _TOKENS.clear()
        tokens = _TOKENS[counts] = Tokens(*counts)
    return tokens


def is_compaction_summariser(stem: str) -> bool:
    """`agent-acompact-*` transcripts are the compaction summariser, not a delegated sub-agent."""
    return stem.startswith("agent-acompact")


def is_side_question(stem: str) -> bool:
    """`agent-aside_question-*` transcripts (2.1.86+) hold a side question asked while a turn ran."""
    return stem.startswith("agent-aside_question")


SIDE_QUESTION_HEAD = "<system-reminder>This is a side question"


def side_question(text: str) -> str | None:
    """The question someone asked aside (/btw), from the prompt of a side-question transcript:
    Claude Code writes its instructions in a system reminder before the question."""
    head, end, question = text.lstrip().partition("</system-reminder>")
    return question.strip() or None if end and head.startswith(SIDE_QUESTION_HEAD) else None
