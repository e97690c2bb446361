"""One session of the `cline` CLI 3.x (the Cline SDK), `sessions/<id>/`, read whole, never written.

The folder holds `<id>.json` (the session: `cwd`, `model`, `status`, `started_at`, `ended_at`,
`prompt`) and `<id>.messages.json` (`messages`: user and assistant messages with content blocks —
`text`, `tool_use` with its `input`, `tool_result` naming its `tool_use_id` — each assistant
message with `metrics`: input, output, cache read and cache write tokens; input counts the cached
tokens).

Mapping: each user message with text (its `<user_input>` wrapper taken off) → a task; each
assistant text → a reply, each tool use → a step (its result and success from the tool result),
the message's tokens on its first step. An `editor` call → a file change: one that created a file
has the new text as its after; an edit of a file the session created or rewrote is replayed on
the text memtui holds (old_text is unique in the file, as the tool requires); any other edit has
no whole file on either side, and the change carries the diff of its old and new text.
"""

from __future__ import annotations

import difflib
import json
import re
from datetime import datetime
from pathlib import Path

from memtui.core.agents.cline.tasks import Change, ClineTask, Prompt, Step, load_json, ms_time
from memtui.core.model import Problem
from memtui.core.sources.timestamps import parse_time
from memtui.core.usage.tokens import Tokens

_INPUT = re.compile(r"^<user_input[^>]*>(.*)</user_input>$", re.S)


def _result(block: dict) -> tuple[str, bool]:
    """A tool result's text and whether it succeeded."""
    content = block.get("content")
    items = content if isinstance(content, list) else [content]
    texts, ok = [], not block.get("is_error")
    for item in items:
        if isinstance(item, str):
            try:
                item = json.loads(item)
            except (ValueError, RecursionError):
                texts.append(item)
                continue
        if isinstance(item, dict):
            texts.append(str(item.get("result", item.get("text", ""))))
            ok = ok and item.get("success", True) is not False
    return "\n".join(texts), ok


def read_session(folder: Path, problems: list[Problem]) -> ClineTask | None:
    meta = load_json(folder / f"{folder.name}.json", problems)
    doc = load_json(folder / f"{folder.name}.messages.json", problems)
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list):
        problems.append(Problem(str(folder), None, "no messages list: not shown"))
        return None
    meta = meta if isinstance(meta, dict) else {}
    task = ClineTask(id=folder.name, folder=folder, cwd=meta.get("cwd") if isinstance(meta.get("cwd"), str) else None,
                     started=parse_time(meta.get("started_at")), resume=("cline", "--id"), status=str(meta.get("status") or ""))
    task.session_status = _session_status(meta, task.started)
    results = {b.get("tool_use_id"): b for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"}
    known: dict[str, str] = {}
    prompt: Prompt | None = None
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("content"), (list, str)):
            continue
        at = ms_time(m.get("ts"))
        task.updated = at or task.updated
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        if m.get("role") == "user":
            text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))
            if text:
                found = _INPUT.match(text.strip())
                prompt = Prompt(found.group(1) if found else text, at)
                task.prompts.append(prompt)
            continue
        if prompt is None or m.get("role") != "assistant":
            continue
        model = str((m.get("modelInfo") or {}).get("id") or meta.get("model") or "") if isinstance(m.get("modelInfo"), dict) else ""
        first = len(prompt.steps)
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and b.get("text"):
                prompt.steps.append(Step("reply", result=b["text"], at=at, model=model))
            elif b.get("type") in ("thinking", "reasoning"):
                prompt.steps.append(Step("reasoning", result=b.get("thinking") or b.get("text"), at=at, model=model))
            elif b.get("type") == "tool_use":
                prompt.steps.append(_call(b, results.get(b.get("id")), at, model, known))
        metrics = m.get("metrics") if isinstance(m.get("metrics"), dict) else {}
        if metrics and len(prompt.steps) > first:
            prompt.steps[first].usage = _tokens(metrics)
    return task


def _tokens(metrics: dict) -> Tokens:
    def n(key: str) -> int:
        value = metrics.get(key)
        return value if isinstance(value, int) and value > 0 else 0
    cached, written = n("cacheReadTokens"), n("cacheWriteTokens")
    return Tokens(input=max(0, n("inputTokens") - cached - written), output=n("outputTokens"), cache_read=cached,
                  cache_write_5m=written)


def _call(block: dict, result: dict | None, at: datetime | None, model: str, known: dict[str, str]) -> Step:
    name = str(block.get("name") or "tool")
    args = block.get("input")
    text, ok = _result(result) if result is not None else ("", True)
    step = Step(name, args=args, result=text if result is not None else None, at=at, model=model,
                status="ok" if ok and result is not None else "error" if result is not None else "no result",
                error=None if ok else text or "the tool failed")
    if name == "editor" and ok and result is not None and isinstance(args, dict) and isinstance(args.get("path"), str):
        step.change = _change(args, text, known)
    return step


def _change(args: dict, said: str, known: dict[str, str]) -> Change:
    path, new, old = args["path"], str(args.get("new_text") or ""), args.get("old_text")
    if old is None and args.get("insert_line") is None and said.startswith("File created"):
        known[path] = new
        return Change(path, "added", None, new, True, True)
    diff = "".join(difflib.unified_diff(str(old or "").splitlines(True), new.splitlines(True), path, path))
    before = known.get(path)
    if isinstance(old, str) and old and before is not None and before.count(old) == 1:
        known[path] = before.replace(old, new, 1)
        return Change(path, "modified", before, known[path], True, True, diff=diff)
    known.pop(path, None)
    return Change(path, "modified", None, None, False, False,
                  "Cline records an edit's old and new text, not the whole file", diff)


def _session_status(meta: dict, started: datetime | None) -> str:
    """"closed" once the session file records its end; "open" while it is running in a live
    process (its pid, started no later than the session: a reused pid is not it); else "unknown"."""
    if meta.get("ended_at") or meta.get("status") in ("completed", "failed", "cancelled", "aborted"):
        return "closed"
    pid = meta.get("pid")
    if meta.get("status") != "running" or not isinstance(pid, int) or started is None:
        return "unknown"
    import psutil  # only for a session that says it is running

    try:
        born = psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return "closed"
    return "open" if born <= started.timestamp() + 1 else "closed"
