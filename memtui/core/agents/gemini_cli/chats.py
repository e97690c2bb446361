"""Gemini CLI chat files: `<gemini home>/tmp/<project>/chats/session-*.jsonl` (0.5x and later)
and the older one-document `session-*.json`.

A JSONL chat holds a header record (`sessionId`, `projectHash`, `startTime`, `kind`), message
records (`id`, `type` user / gemini / info / error / warning, `content`, and on a gemini reply
`tokens`, `thoughts`, `model`, `toolCalls`) and `{"$set": {...}}` patch records. A message id
is written again as its tool calls are added: the last write wins. A `$set` of `messages`
restates the history (at a session's start, with its `<session_context>`, and again on resume
in the API's own shape): a message it names that was not written as a record of its own is
taken from it, one that was keeps its own record. A resumed session appends to the same file,
after a second header.

Mapping: a chat → a session; each typed user prompt → a task (a user message holding only
`functionResponse` parts is the result of a tool call, not a prompt; the `<session_context>`
message is context). A prompt's text is what Gemini CLI shows of it: its `displayContent` where
that holds text — what was typed, `/init` or an `@file` reference — else its `content`, what was
sent (the expansion of the command or reference). Each reply with text or tokens → a "reply"
step, each tool call → a step; a successful `write_file` / `replace` → a checkpoint with one
entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memtui.core.model import Problem
from memtui.core.sources.base import Index
from memtui.core.sources.changes import RecordedChange as Change
from memtui.core.sources.fields import loads
from memtui.core.sources.timestamps import file_time, parse_time
from memtui.core.usage.tokens import Tokens

MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
EDIT_TOOLS = frozenset({"write_file", "replace"})
CONTEXT_OPENING = "<session_context>"


@dataclass
class Step:
    """A reply or a tool call of a task, with what the chat recorded of it."""

    key: str
    tool: str  # "reply", "notification" or the tool's name
    args: Any = None
    result: Any = None
    status: str = "ok"
    error: str | None = None
    created_at: datetime | None = None
    finished_at: datetime | None = None
    model: str = ""
    usage: Tokens | None = None
    change: Change | None = None
    snapshot: str = ""  # the commit of Gemini CLI's own checkpoint of this call (checkpoints.py)
    snapshot_file: str = ""  # …and its checkpoint file's name


@dataclass
class Turn:
    """A typed prompt and what followed it until the next one."""

    id: str
    session_id: str
    prompt: str
    created_at: datetime | None
    steps: list[Step] = field(default_factory=list)
    replies: list[tuple[str, datetime | None]] = field(default_factory=list)
    listed_in: str = ""  # a sub-agent's turn: the session it is listed in (its chat's id is session_id)


@dataclass
class Chat:
    """One chat file read whole."""

    id: str
    file: Path
    kind: str = "main"
    project_hash: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None
    turns: list[Turn] = field(default_factory=list)
    unknown: int = 0


@dataclass
class GeminiIndex(Index):
    """Every chat of a source: sessions by id, turns by task id, changes by entry id."""

    sessions: dict[str, Chat] = field(default_factory=dict)
    turns: dict[str, Turn] = field(default_factory=dict)
    roots: dict[str, Path | None] = field(default_factory=dict)  # session id → its project folder
    changes: dict[str, tuple[Turn, Step]] = field(default_factory=dict)  # "<session>:<call id>" → its call
    listed: dict[str, Chat] = field(default_factory=dict)  # every chat id (a sub-agent's too) → its listed chat
    handoffs: dict[str, list[str]] = field(default_factory=dict)  # turn id → its sub-agents' turn ids


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return content["text"]
    return ""


def _only_responses(content: Any) -> bool:
    """A user message that holds tool results (functionResponse parts) and no text."""
    return (isinstance(content, list) and bool(content)
            and all(isinstance(p, dict) and "functionResponse" in p for p in content))


def _tokens(raw: Any) -> Tokens | None:
    if not isinstance(raw, dict):
        return None

    def n(key: str) -> int:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    prompt, cached, output, thoughts = n("input"), n("cached"), n("output"), n("thoughts")
    # Gemini's prompt count includes its cached tokens; its output excludes thinking.
    return Tokens(input=max(0, prompt - cached), cache_read=min(cached, prompt) if prompt else cached,
                  output=output + thoughts, reasoning=thoughts)


def _result_text(call: dict) -> Any:
    """What a tool call returned: its functionResponse output (or error), else its display."""
    result = call.get("result")
    texts = []
    if isinstance(result, list):
        for part in result:
            response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
            if isinstance(response, dict):
                for key in ("output", "error", "llmContent"):
                    if isinstance(response.get(key), str):
                        texts.append(response[key])
                        break
                else:
                    texts.append(json.dumps(response, ensure_ascii=False))
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    if texts:
        return "\n".join(texts)
    display = call.get("resultDisplay")
    return display if isinstance(display, str) and display else result


def read_records(path: Path, problems: list[Problem]) -> list[tuple[int, dict]]:
    """(line number, record) of a chat file; a one-document `.json` chat is turned into the
    same records (its header fields, then its messages). Malformed lines become problems."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(str(path), None, f"cannot read: {exc.strerror or exc}"))
        return []
    text = data.decode("utf-8", "replace")
    if path.suffix == ".json":
        try:
            doc = loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            problems.append(Problem(str(path), None, f"not a JSON chat: {exc}"))
            return []
        if not isinstance(doc, dict):
            problems.append(Problem(str(path), None, "not a JSON chat: the document is not an object"))
            return []
        header = {k: v for k, v in doc.items() if k != "messages"}
        listed = doc.get("messages")
        messages: list[Any] = listed if isinstance(listed, list) else []
        return [(1, header), *((1, m) for m in messages if isinstance(m, dict))]
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line)
        except (json.JSONDecodeError, RecursionError):
            problems.append(Problem(str(path), n, "not a JSON record"))
            continue
        if isinstance(record, dict):
            out.append((n, record))
        else:
            problems.append(Problem(str(path), n, "not a JSON object"))
    return out


def read_chat(path: Path, problems: list[Problem]) -> Chat | None:
    """A chat file read whole into sessions → turns → steps, or None when it holds no header."""
    records = read_records(path, problems)
    messages: dict[str, dict] = {}  # id → its last write (insertion order: first write)
    own: set[str] = set()
    chat: Chat | None = None
    unknown: dict[str, int] = {}
    for line, record in records:
        if "sessionId" in record and "type" not in record and "$set" not in record:
            if chat is None:
                chat = Chat(id=str(record["sessionId"]), file=path, kind=str(record.get("kind") or "main"),
                            project_hash=str(record.get("projectHash") or ""),
                            created_at=parse_time(record.get("startTime")))
            updated = parse_time(record.get("lastUpdated"))
            if updated is not None:
                chat.updated_at = updated
            continue
        if "$set" in record:
            patch = record["$set"]
            if not isinstance(patch, dict):
                unknown["$set without an object"] = unknown.get("$set without an object", 0) + 1
                continue
            for m in patch.get("messages") or []:
                if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"] not in own and m["id"] not in messages:
                    messages[m["id"]] = m
            if chat is not None and parse_time(patch.get("lastUpdated")) is not None:
                chat.updated_at = parse_time(patch.get("lastUpdated"))
            continue
        kind = record.get("type")
        if kind in MESSAGE_TYPES and isinstance(record.get("id"), str):
            if record["id"] not in own:
                messages.pop(record["id"], None)  # restated by a $set first: its own record wins
            own.add(record["id"])
            messages[record["id"]] = record
            continue
        label = f"type {kind!r}" if kind is not None else "a record of no known shape"
        unknown[label] = unknown.get(label, 0) + 1
        problems.append(Problem(str(path), line, f"unknown record ({label}): not shown"))
    if chat is None:
        problems.append(Problem(str(path), None, "no session header (sessionId): not a Gemini CLI chat"))
        return None
    chat.unknown = sum(unknown.values())
    chat.created_at = chat.created_at or file_time(path)
    _build_turns(chat, list(messages.values()))
    return chat


def _build_turns(chat: Chat, messages: list[dict]) -> None:
    known: dict[str, str] = {}  # recorded path → its content as the session last saw it
    turn: Turn | None = None
    context_seen = False
    for m in messages:
        kind = m.get("type")
        when = parse_time(m.get("timestamp"))
        content = m.get("content")
        if kind == "user":
            if _only_responses(content):
                continue  # the results of tool calls, recorded on the call too
            text = _parts_text(m.get("displayContent")) or _parts_text(content)
            if not context_seen and text.lstrip().startswith(CONTEXT_OPENING):
                context_seen = True
                continue
            if not text.strip():
                continue
            turn = Turn(id=f"{chat.id}:{m['id']}", session_id=chat.id, prompt=text, created_at=when)
            chat.turns.append(turn)
            continue
        if turn is None:
            continue  # before any prompt (context, a notice): no task to hold it
        if kind in ("info", "error", "warning"):
            turn.steps.append(Step(key=m["id"], tool="notification", result=_parts_text(content), created_at=when,
                                   status="error" if kind == "error" else "ok", error=_parts_text(content) if kind == "error" else None))
            continue
        text = _parts_text(content)
        usage = _tokens(m.get("tokens"))
        if text or usage:
            turn.steps.append(Step(key=m["id"], tool="reply", result=text, created_at=when,
                                   model=str(m.get("model") or ""), usage=usage))
            if text:
                turn.replies.append((text, when))
        for call in m.get("toolCalls") or []:
            if isinstance(call, dict):
                turn.steps.append(_call_step(m, call, known))


def _call_step(message: dict, call: dict, known: dict[str, str]) -> Step:
    name = str(call.get("name") or "tool")
    args = call.get("args")
    status = str(call.get("status") or "")
    result = _result_text(call)
    step = Step(key=str(call.get("id") or f"{message['id']}:{name}"), tool=name, args=args, result=result,
                created_at=parse_time(message.get("timestamp")), finished_at=parse_time(call.get("timestamp")),
                status={"success": "ok", "error": "error", "cancelled": "cancelled"}.get(status, "no result" if not status else status))
    if status == "error":
        step.error = result if isinstance(result, str) and result else "the tool call failed"
    elif status == "cancelled":
        step.error = "cancelled"
    path = args.get("file_path") if isinstance(args, dict) else None
    if not isinstance(path, str):
        return step
    if name == "read_file" and status == "success" and isinstance(result, str) \
            and not (isinstance(args, dict) and (args.get("offset") or args.get("limit"))):
        known[path] = result  # a whole-file read: what the file held then
        return step
    if name in EDIT_TOOLS and status == "success" and isinstance(args, dict):
        step.change = _change(name, path, args, call.get("resultDisplay"), known, result)
        if step.change.after is not None:
            known[path] = step.change.after
        else:
            known.pop(path, None)
    return step


def _change(name: str, path: str, args: dict, display: Any, known: dict[str, str], result: Any = None) -> Change:
    """The file a write_file / replace changed. The tool's display carries the file's content
    before and after (0.61); where it does not, the after is rebuilt from the arguments and
    the before from what the session last read or wrote of that path (a write_file whose
    result says it created the file has none)."""
    shown = display if isinstance(display, dict) else {}
    original, new = shown.get("originalContent"), shown.get("newContent")
    is_new = shown.get("isNewFile") is True
    diff = shown.get("fileDiff") if isinstance(shown.get("fileDiff"), str) else None
    if isinstance(new, str) and (is_new or isinstance(original, str)):
        if is_new:
            return Change(path, "added", None, new, True, True, diff=diff)
        return Change(path, "modified", original, new, True, True, diff=diff)
    before = known.get(path)
    if name == "write_file":
        after = args.get("content") if isinstance(args.get("content"), str) else None
        if isinstance(result, str) and result.startswith("Successfully created and wrote to new file"):
            return Change(path, "added", None, after, True, after is not None, diff=diff)
        if before is None:
            return Change(path, "modified", None, after, False, after is not None,
                          reason="Gemini CLI did not record what the file held before this write", diff=diff)
        return Change(path, "modified", before, after, True, after is not None, diff=diff)
    old, new_text = args.get("old_string"), args.get("new_string")
    if not (isinstance(old, str) and isinstance(new_text, str)):
        return Change(path, "modified", before, None, before is not None, False,
                      reason="the replace call recorded no old and new text", diff=diff)
    hunk = diff or "".join([*(f"-{line}\n" for line in old.splitlines()), *(f"+{line}\n" for line in new_text.splitlines())])
    if before is None or old not in before:
        if old == "" and before is None:
            return Change(path, "added", None, new_text, True, True, diff=hunk)
        return Change(path, "modified", None, None, False, False,
                      reason="Gemini CLI recorded only the replaced text, and the session never read the whole file",
                      diff=hunk)
    expected = args.get("expected_replacements")
    count = -1 if args.get("allow_multiple") is True or (isinstance(expected, int) and expected > 1) else 1
    return Change(path, "modified", before, before.replace(old, new_text, count), True, True, diff=hunk)
