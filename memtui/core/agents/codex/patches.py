"""Codex's apply_patch edits: finding the patch in a call, and reading it.

Codex accepts `apply_patch` and `applypatch`, called as a custom tool (`input` is the
patch), as a function (`{"input": …}`), as an exec argv (`["apply_patch", PATCH]`), or
inside a shell script (`bash -lc "apply_patch <<'PATCH' … PATCH"`). The patch is the text
from `*** Begin Patch` to `*** End Patch`; a heredoc terminator after it is not part of it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PATCH_TOOLS = ("apply_patch", "applypatch")
BEGIN, END = "*** Begin Patch", "*** End Patch"
_EXIT = re.compile(r"exit(?:ed with)? code:? ?(\d+)", re.I)
_FILE_TAGS = (("*** Add File: ", "add"), ("*** Delete File: ", "delete"), ("*** Update File: ", "update"))


def _cut(text: str) -> str | None:
    """The `*** Begin Patch` … `*** End Patch` part of `text` (None without a begin)."""
    begin = text.find(BEGIN)
    if begin < 0:
        return None
    end = text.find(END, begin)
    return text[begin:] if end < 0 else text[begin:end + len(END)]


def _arguments(payload: dict) -> Any:
    args: Any = payload.get("arguments")
    if isinstance(args, str):
        try:
            return json.loads(args)
        except (json.JSONDecodeError, RecursionError):
            return args
    return args


def patch_text(payload: dict) -> str | None:
    """The patch a call carries, whichever way Codex was asked to apply it; None when the
    call applies no patch (or its patch text is not there, e.g. redacted)."""
    name = payload.get("name")
    ptype = payload.get("type")
    if ptype == "custom_tool_call":
        value = payload.get("input")
        return _cut(value) if name in PATCH_TOOLS and isinstance(value, str) else None
    args = _arguments(payload)
    if name in PATCH_TOOLS:
        value = args.get("input", args.get("patch")) if isinstance(args, dict) else args
        return _cut(value) if isinstance(value, str) else None
    if ptype == "local_shell_call":
        action = payload.get("action")
        args = {"command": action.get("command")} if isinstance(action, dict) else None
    if not isinstance(args, dict):
        return None
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list) and len(command) >= 2 and command[0] in PATCH_TOOLS and isinstance(command[1], str):
        return _cut(command[1])
    script = command[-1] if isinstance(command, list) and command else command
    if isinstance(script, str) and any(tool in script[:2000] for tool in PATCH_TOOLS):
        return _cut(script)
    return None


@dataclass(frozen=True)
class PatchFile:
    """One file in an apply_patch patch."""

    action: str  # "add" | "delete" | "update"
    path: str
    move_to: str | None
    body: list[str]

    def line_counts(self) -> tuple[int, int]:
        """(lines added, lines removed) by this file's hunks."""
        added = sum(1 for line in self.body if line.startswith("+"))
        removed = sum(1 for line in self.body if line.startswith("-"))
        return added, removed


def parse_patch(text: str) -> list[PatchFile]:
    """The files of a `*** Begin Patch` … `*** End Patch` text (nothing after the end)."""
    files: list[PatchFile] = []
    action = path = move = None
    body: list[str] = []

    def flush():
        if action and path:
            files.append(PatchFile(action, path, move, list(body)))

    for line in text.splitlines():
        if line.startswith(END):
            break
        for tag, act in _FILE_TAGS:
            if line.startswith(tag):
                flush()
                action, path, move, body = act, line[len(tag):].strip(), None, []
                break
        else:
            if line.startswith("*** Move to: "):
                move = line[len("*** Move to: "):].strip()
            elif line.startswith(BEGIN) or line.startswith("*** End of File"):
                continue
            elif action:
                body.append(line)
    flush()
    return files


def _reported(output: Any) -> tuple[str | None, dict | None, int | None]:
    """A call's output as text (None when it is none), the JSON object it holds if it is one,
    and the exit code that object's metadata.exit_code gives (None when it gives none)."""
    if isinstance(output, dict):
        output = output.get("content", output)
    if not isinstance(output, str):
        return None, None, None
    try:
        data = json.loads(output)
    except (json.JSONDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict):
        return output, None, None
    metadata = data.get("metadata")
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    return output, data, code if isinstance(code, int) and not isinstance(code, bool) else None


def output_succeeded(output: Any) -> bool | None:
    """Whether an apply_patch output reports success: JSON with metadata.exit_code, or
    plain text; None when it does not say (no output, or a redacted one)."""
    text, data, code = _reported(output)
    if text is None:
        return None
    if data is not None:
        if code is not None:
            return code == 0
        text = str(data.get("output", ""))
    head = text.lstrip()
    if head.startswith("Success"):
        return True
    found = _EXIT.search(head[:400])
    if found is not None:
        return found.group(1) == "0"
    if head.startswith(("error", "Error", "Failed", "failed")) or "verification failed" in head[:300]:
        return False
    return None


SHELL_TOOLS = frozenset({"shell", "shell_command", "exec_command", "write_stdin", "container.exec", "local_shell"})
"""Calls that run a command: their output names the command's exit code."""


def exit_code(output: Any) -> int | None:
    """The exit code a command's output reports: JSON metadata.exit_code (`shell`), "Exit code:
    N" (`shell_command`) or "Process exited with code N" (`exec_command`); None when it says none."""
    text, data, code = _reported(output)
    if text is None or data is not None:
        return code
    found = _EXIT.search(text.lstrip()[:400])
    return int(found.group(1)) if found is not None else None
