"""One Cline task folder (`tasks/<taskId>/`), read whole and never written.

Cline — the VS Code extension (`saoudrizwan.claude-dev`) and the `cline` CLI 2.x, which runs the
extension's task engine — keeps each task in a folder: `ui_messages.json` (what the user saw:
`say`/`ask` messages with their time, `conversationHistoryIndex` into the API history,
`lastCheckpointHash` on `checkpoint_created`), `api_conversation_history.json` (the messages
sent to the model; a tool's result holds `<final_file_content path=…>` after an edit) and
`task_metadata.json` (files in context, models used).

Mapping: a task folder → a session; its first message (the task) and each `user_feedback` →
a task (a prompt); the messages after it → steps: `text` → a reply, `reasoning`, `tool` (read,
list, search, new file, edit …), `command` (its `command_output` as the result),
`completion_result` → attempt_completion, `checkpoint_created` → a checkpoint step naming the
shadow-git commit, `error` → an error; each `api_req_started` carries the tokens and cost of one
model request, given to the first step that request made. A new file or an edit → a file
change: the after is the file as Cline sent it back to the model (`final_file_content`), else
the tool's content; an edit's before is the after with its SEARCH/REPLACE blocks undone where
each replacement is found once; a whole-file rewrite's before is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memtui.core.agents.cline.folders import API, UI
from memtui.core.model import Problem
from memtui.core.sources.changes import RecordedChange as Change
from memtui.core.sources.fields import loads
from memtui.core.usage.tokens import Tokens

METADATA = "task_metadata.json"
PROMPTS = {"task", "user_feedback"}
# Messages that are the UI's own bookkeeping: read and left out of the steps.
QUIET = {"api_req_retried", "api_req_finished", "task_progress", "resume_task", "resume_completed_task",
         "completion_result_ask", "deleted_api_reqs", "shell_integration_warning_with_suggestion"}
NOTICES = {"error", "diff_error", "error_retry", "clineignore_error", "shell_integration_warning", "info",
           "condense", "hook", "hook_output", "load_mcp_documentation", "mistake_limit_reached", "api_req_failed",
           "auto_approval_max_req_reached", "new_task", "generate_explanation", "hook_status"}
EDITS = {"newFileCreated", "editedExistingFile", "fileDeleted"}
_FINAL = re.compile(r'<final_file_content path="([^"]*)">\n(.*?)\n</final_file_content>', re.S)
_SEARCH = re.compile(r"^(?:-{7}|<{7}) SEARCH\n(.*?)^={7}\n(.*?)^(?:\+{7}|>{7}) REPLACE$", re.S | re.M)


@dataclass
class Step:
    tool: str
    args: Any = None
    result: Any = None
    status: str = "ok"
    error: str | None = None
    at: datetime | None = None
    model: str = ""
    usage: Tokens | None = None
    cost: float = 0.0
    change: Change | None = None


@dataclass
class Prompt:
    text: str
    at: datetime | None
    steps: list[Step] = field(default_factory=list)


@dataclass
class ClineTask:
    """A task folder: its prompts, when it started and last changed, the model and folder it ran in."""

    id: str
    folder: Path
    prompts: list[Prompt] = field(default_factory=list)
    started: datetime | None = None
    updated: datetime | None = None
    cwd: str | None = None
    unknown: dict[str, int] = field(default_factory=dict)
    resume: tuple[str, ...] = ("cline", "--taskId")  # the CLI's resume command, before the id
    status: str = ""  # a 3.x session's own ("completed", …); "" for a task folder
    session_status: str = "unknown"  # SessionInfo.status: a 3.x session says whether it ended


def ms_time(ms: Any) -> datetime | None:
    """A time in milliseconds since the epoch (Cline's `ts`), or None."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc) if isinstance(ms, (int, float)) and ms > 0 else None


def load_json(path: Path, problems: list[Problem]) -> Any:
    """A JSON file (None, with a problem, when it cannot be read or is not JSON; None when absent)."""
    try:
        return loads(path.read_bytes().decode("utf-8", "replace"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(Problem(str(path), None, f"cannot read: {exc.strerror or exc}"))
    except (ValueError, RecursionError) as exc:
        problems.append(Problem(str(path), None, f"not JSON: {exc}"))
    return None


def _json(text: Any) -> dict:
    try:
        value = loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _texts(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            parts.append(_texts(block))
    return "\n".join(parts)


def read_task(folder: Path, problems: list[Problem]) -> ClineTask | None:
    """A task folder read whole (None when it holds no ui_messages.json to read)."""
    ui = load_json(folder / UI, problems)
    if not isinstance(ui, list):
        if (folder / UI).is_file():
            problems.append(Problem(str(folder / UI), None, "not a list of messages: not shown"))
        return None
    api = load_json(folder / API, problems)
    api = api if isinstance(api, list) else []
    task = ClineTask(id=folder.name, folder=folder)
    pending: tuple[Tokens, float] | None = None
    prompt: Prompt | None = None
    command: Step | None = None
    for n, m in enumerate(ui):
        if not isinstance(m, dict):
            continue
        kind = str(m.get("say") if m.get("type") == "say" else m.get("ask"))
        text = m["text"] if isinstance(m.get("text"), str) else ""
        at = ms_time(m.get("ts"))
        task.started = task.started or at
        task.updated = at or task.updated
        model = str((m.get("modelInfo") or {}).get("modelId") or "") if isinstance(m.get("modelInfo"), dict) else ""
        if kind in PROMPTS or (n == 0 and kind == "text"):
            prompt = Prompt(text, at)
            task.prompts.append(prompt)
            continue
        if prompt is None:
            continue
        if kind == "api_req_started":
            data = _json(text)
            if pending is not None:
                prompt.steps.append(_with_usage(Step("reply", result="", at=at, model=model), pending))
            pending = (Tokens(input=int(data.get("tokensIn") or 0), output=int(data.get("tokensOut") or 0),
                              cache_read=int(data.get("cacheReads") or 0), cache_write_5m=int(data.get("cacheWrites") or 0)),
                       float(data.get("cost") or 0.0))
            _result_of_last(prompt, str(data.get("request") or ""))
            cwd = re.search(r"# Current Working Directory \((.+?)\) Files", str(data.get("request") or ""))
            task.cwd = task.cwd or (cwd.group(1) if cwd else None)
            continue
        if kind in QUIET or (m.get("type") == "ask" and kind == "completion_result" and not text):
            continue
        step = _step(kind, text, m, at, model, api)
        if step is None:
            if kind == "command_output" and command is not None:
                command.result = f"{command.result or ''}{text}"
                continue
            task.unknown[str(kind)] = task.unknown.get(str(kind), 0) + 1
            step = Step("notification", args={"kind": kind}, result=text, at=at)
        if pending is not None:
            step, pending = _with_usage(step, pending), None
        command = step if step.tool == "execute_command" else command
        prompt.steps.append(step)
    if pending is not None and prompt is not None:
        prompt.steps.append(_with_usage(Step("reply", result="", at=task.updated), pending))
    return task


def _with_usage(step: Step, usage: tuple[Tokens, float]) -> Step:
    step.usage, step.cost = usage
    return step


def _result_of_last(prompt: Prompt, request: str) -> None:
    """The text Cline sent back after a tool ("[read_file for 'x'] Result: …") is that tool's result."""
    if not request.startswith("[") or "] Result:" not in request.split("\n", 1)[0]:
        return
    last = next((s for s in reversed(prompt.steps) if s.tool not in ("reply", "reasoning", "checkpoint")), None)
    if last is not None and last.result in (None, ""):
        last.result = request.split("<environment_details>", 1)[0].rstrip()


def _step(kind: str, text: str, m: dict, at: datetime | None, model: str, api: list) -> Step | None:
    if kind == "text":
        return Step("reply", result=text, at=at, model=model)
    if kind == "reasoning":
        return Step("reasoning", result=text, at=at, model=model)
    if kind == "completion_result":
        return Step("attempt_completion", result=text, at=at, model=model)
    if kind == "command":
        return Step("execute_command", args={"command": text}, result="", at=at, model=model)
    if kind == "checkpoint_created":
        return Step("checkpoint", args={"commit": m.get("lastCheckpointHash")}, at=at)
    if kind == "followup":
        data = _json(text)
        return Step("ask_followup_question", args=data or {"question": text}, at=at, model=model)
    if kind in ("use_mcp_server", "mcp_server_request_started", "browser_action_launch", "browser_action",
                "browser_action_result", "mcp_server_response"):
        return Step(str(kind), args=_json(text) or text, at=at, model=model)
    if kind in NOTICES:
        error = kind in ("error", "diff_error", "clineignore_error", "mistake_limit_reached", "api_req_failed")
        return Step("notification", args={"kind": kind}, result=text, at=at, status="error" if error else "ok",
                    error=text if error else None)
    if kind == "tool":
        data = _json(text)
        name = str(data.get("tool") or "tool")
        step = Step(name, args={k: v for k, v in data.items() if k != "tool"}, at=at, model=model)
        if name in EDITS:
            step.change = _change(name, data, m, api)
        return step
    return None


def _change(name: str, data: dict, m: dict, api: list) -> Change:
    path = str(data.get("path") or "")
    content = data.get("content") if isinstance(data.get("content"), str) else None
    after = _final_content(api, m.get("conversationHistoryIndex"), path)
    if name == "fileDeleted":
        return Change(path, "deleted", None, None, False, True, "Cline did not record the file's content before it was deleted")
    if name == "newFileCreated":
        if content is not None and (after is None or after == content + "\n"):
            after = content  # the CLI shows a new file with a final newline its content (the file) has not
        return Change(path, "added", None, after, True, after is not None)
    blocks = _SEARCH.findall(content or "")
    if not blocks:  # write_to_file over an existing file: the content is the whole new file
        return Change(path, "modified", None, after if after is not None else content, False,
                      after is not None or content is not None,
                      "Cline did not record the file's content before it was rewritten", content)
    before = _undo(after, blocks) if after is not None else None
    reason = "" if before is not None else ("Cline did not send the file back to the model after the edit" if after is None
                                            else "an edit's replacement is not found once in the file after it")
    return Change(path, "modified", before, after, before is not None, after is not None, reason, content)


def _final_content(api: list, index: Any, path: str) -> str | None:
    """The file as Cline sent it back to the model after the edit of the assistant message `index`."""
    if not isinstance(index, int) or not 0 <= index + 1 < len(api):
        return None
    for found_path, text in _FINAL.findall(_texts(api[index + 1])):
        if found_path == path or found_path.endswith("/" + path):
            return text
    return None


def _undo(after: str, blocks: list[tuple[str, str]]) -> str | None:
    """The file before SEARCH/REPLACE `blocks` were applied to it, or None where a replacement is
    not found exactly once (an empty one, one repeated): no guess."""
    text = after
    for search, replace in blocks:
        if not replace or text.count(replace) != 1:
            return None
        text = text.replace(replace, search, 1)
    return text
