"""The order a reader follows a task in, and what a tool's arguments are, for the exports.

`timeline` merges a task's prompt and messages, its steps (replies, thinking, tool calls,
compactions, interrupts), its thinking texts, the checkpoints no step carries and the tasks
it handed off to into one list by time: steps keep their own order, the rest goes in before
the first step that came later. `step_view` says what a call's arguments are (a shell
command, a file written, an edit, a patch) from their shape, so every agent's tools read
alike (Claude Code's Bash/Write/Edit, Codex's shell_command/apply_patch, Gemini CLI's and
OpenCode's own names).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

#: Step tools that are no tool call: what the timeline calls them.
STEP_KINDS = {"reply": "text", "thinking": "thinking", "compaction": "compaction", "interrupt": "interrupt",
              "notification": "event", "command": "event", "command output": "event", "shell": "event",
              "meta": "event", "api error": "event", "notice": "event", "checkpoint": "event"}

_PATH_KEYS = ("file_path", "filePath", "path", "absolute_path", "notebook_path")
_OLD_KEYS = ("old_string", "oldString", "old_str", "old")
_NEW_KEYS = ("new_string", "newString", "new_str", "new")
_COMMAND_KEYS = ("command", "cmd")


def _first(args: dict, keys: tuple[str, ...]) -> Any:
    return next((args[k] for k in keys if isinstance(args.get(k), str)), None)


def step_view(tool: str, args: Any) -> dict[str, Any] | None:
    """What a call's arguments are, for a reader: {"kind": "shell", "command"} ·
    {"kind": "write", "path", "content"} · {"kind": "edit", "path", "edits": [{"old", "new"}]} ·
    {"kind": "patch", "patch"} · {"kind": "read", "path"}; None when they are something else (shown as JSON)."""
    if isinstance(args, str) and args.lstrip().startswith("*** Begin Patch"):
        return {"kind": "patch", "patch": args}
    if not isinstance(args, dict):
        return None
    patch = args.get("input") if isinstance(args.get("input"), str) else args.get("patch")
    if isinstance(patch, str) and patch.lstrip().startswith("*** Begin Patch"):
        return {"kind": "patch", "patch": patch}
    path = _first(args, _PATH_KEYS)
    old, new = _first(args, _OLD_KEYS), _first(args, _NEW_KEYS)
    if path is not None and old is not None and new is not None:
        return {"kind": "edit", "path": path, "edits": [{"old": old, "new": new}]}
    edits = args.get("edits")
    if path is not None and isinstance(edits, list) and edits and all(isinstance(e, dict) for e in edits):
        pairs = [{"old": _first(e, _OLD_KEYS) or "", "new": _first(e, _NEW_KEYS) or ""} for e in edits]
        return {"kind": "edit", "path": path, "edits": pairs}
    content = args.get("content") if isinstance(args.get("content"), str) else None
    if path is not None and content is not None:
        return {"kind": "write", "path": path, "content": content}
    if path is not None and "read" in tool.lower():
        return {"kind": "read", "path": path}
    command = next((args[k] for k in _COMMAND_KEYS if k in args), None)
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        # Codex's ["bash", "-lc", "…"]: the script is what the reader wants to see.
        command = command[-1] if len(command) == 3 and command[1] in ("-lc", "-c") else " ".join(command)
    if isinstance(command, str):
        return {"kind": "shell", "command": command}
    return None


def step_kind(tool: str) -> str:
    """The timeline's name for a step: "tool" for a call, else text, thinking, compaction…"""
    return STEP_KINDS.get(tool, "tool")


def _moment(iso: str | None) -> datetime | None:
    """An exported time as an aware datetime (a naive one is UTC), to compare any two."""
    if iso is None:
        return None
    when = datetime.fromisoformat(iso)
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def timeline(messages: list[dict], steps: list[dict], thinking: list[dict], children: list[dict],
             checkpoints: list[dict]) -> list[dict[str, Any]]:
    """The task's entries in reading order: [{"kind", "at", and "message" | "step" |
    "thinking" | "checkpoint" (an index into the task's list) or "task" (a child's id)}].
    A checkpoint of one of the steps is shown with that step, so only the others are entries."""
    replies = {s["result"] for s in steps if s["tool"] == "reply" and isinstance(s["result"], str)}
    thought = {s["result"] for s in steps if s["tool"] == "thinking" and isinstance(s["result"], str)}
    others: list[tuple[bool, dict[str, Any]]] = []  # (goes before a step of the same time, entry)
    for n, m in enumerate(messages):
        if m["role"] == "assistant" and m["content"] in replies:
            continue  # the same text is a step: shown there, once
        kind = "prompt" if m["role"] == "user" else "message"
        others.append((kind == "prompt", {"kind": kind, "at": m["created_at"], "message": n}))
    for n, t in enumerate(thinking):
        if t["content"] not in thought:
            others.append((True, {"kind": "thinking", "at": t["created_at"], "thinking": n}))
    step_ids = {s["id"] for s in steps}
    for n, cp in enumerate(checkpoints):
        if cp["step_id"] in step_ids:
            continue
        others.append((False, {"kind": "checkpoint", "at": cp["created_at"], "checkpoint": n}))
    for child in children:
        others.append((False, {"kind": "subagent", "at": child["created_at"], "task": child["id"]}))
    timed = sorted(((before, at, e) for before, e in others if (at := _moment(e["at"])) is not None),
                   key=lambda o: o[1])
    # Without a time: a prompt opens the task, anything else closes it.
    first = [o[1] for o in others if o[1]["at"] is None and o[1]["kind"] == "prompt"]
    last = [o[1] for o in others if o[1]["at"] is None and o[1]["kind"] != "prompt"]
    out = list(first)
    for n, step in enumerate(steps):
        at = _moment(step["created_at"])
        while timed and at is not None and (timed[0][1] < at or (timed[0][0] and timed[0][1] == at)):
            out.append(timed.pop(0)[2])
        out.append({"kind": step_kind(step["tool"]), "at": step["created_at"], "step": n})
    out += [o[2] for o in timed] + last
    return out
