"""A Claude Code file change's exact contents: before from `originalFile` or the turn's
file-history backup, after rebuilt from `structuredPatch` (or Write's `content`).

When the transcript lacks a side, the reason says why; callers raise ContentUnknown.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.agents.claude_code.tables import TranscriptItem, Turn
from memtui.core.paths import plain_name
from memtui.core.sources.jsonl import read_record_at
from memtui.core.agents.claude_code.patches import PatchMismatch, apply_hunks, replace_strings


def edit_contents(turn: Turn, item: TranscriptItem, backups: Path | None) -> tuple[bytes | None, bytes | None, str]:
    """(before, after, reason-if-unknown) for one Edit/Write/MultiEdit result; `backups` is
    the session's file-history folder (None when the transcript is outside a Claude home)."""
    res = read_record_at(item.transcript, item.result_offset) if item.result_offset is not None else None
    result = (res or {}).get("toolUseResult")
    if res is not None and "toolUseResult" not in res:
        return call_contents(turn, item, backups, res)
    if not isinstance(result, dict):
        return None, None, "the tool result is no longer readable"
    original = result.get("originalFile")
    before: str | None = original if isinstance(original, str) else None
    reason = ""
    if item.name == "Write" and result.get("type") == "create":
        return _created(result)
    if before is None:
        before, reason = backup_before(turn, item, backups)
        if before is None and not reason:
            # The file did not exist before the turn: the edit created it.
            if item.name == "Write":
                return _created(result)
            return None, None, "the file did not exist before this turn, and the edit's result has no full content"
    if before is None:
        return None, None, reason
    if item.name == "Write":
        content = result.get("content")
        if isinstance(content, str):
            return before.encode("utf-8", "surrogateescape"), content.encode("utf-8", "surrogateescape"), ""
        return before.encode("utf-8", "surrogateescape"), None, "Write result without content"
    try:
        patch = result.get("structuredPatch")
        if isinstance(patch, list) and patch:
            after = apply_hunks(before, patch)
        elif item.name == "MultiEdit":
            after = replace_strings(before, result.get("edits") or [])
        else:
            after = replace_strings(before, [result])
    except PatchMismatch as exc:
        return before.encode("utf-8", "surrogateescape"), None, f"after-content unknown: {exc}"
    return before.encode("utf-8", "surrogateescape"), after.encode("utf-8", "surrogateescape"), ""


CREATED = "File created successfully"


def call_contents(turn: Turn, item: TranscriptItem, backups: Path | None, res: dict) -> tuple[bytes | None, bytes | None, str]:
    """A change whose result has no `toolUseResult` (a sub-agent's, which Claude Code writes
    without one): the call's input says what it wrote, the result's text whether Write created
    the file; the before comes from an earlier edit of the turn or its file-history backup."""
    call = read_record_at(item.transcript, item.offset) or {}
    content = (call.get("message") or {}).get("content")
    block = content[item.block] if isinstance(content, list) and isinstance(item.block, int) and item.block < len(content) else {}
    args = block.get("input") if isinstance(block, dict) else None
    if not isinstance(args, dict):
        return None, None, "the call's input is no longer readable"
    if item.name == "Write":
        written = args.get("content")
        if not isinstance(written, str):
            return None, None, "Write call without content"
        if _result_text(res, item.key).startswith(CREATED):
            return None, written.encode("utf-8", "surrogateescape"), ""
        before, reason = backup_before(turn, item, backups)
        if before is None:
            return None, written.encode("utf-8", "surrogateescape"), reason or "the file before this Write is not recorded"
        return before.encode("utf-8", "surrogateescape"), written.encode("utf-8", "surrogateescape"), ""
    before, reason = backup_before(turn, item, backups)
    if before is None:
        return None, None, reason or "the file before this edit is not recorded"
    try:
        after = replace_strings(before, (args.get("edits") or []) if item.name == "MultiEdit" else [args])
    except PatchMismatch as exc:
        return before.encode("utf-8", "surrogateescape"), None, f"after-content unknown: {exc}"
    return before.encode("utf-8", "surrogateescape"), after.encode("utf-8", "surrogateescape"), ""


def _result_text(res: dict, tool_use_id: str) -> str:
    """The text of the tool_result block answering `tool_use_id` in a user record."""
    content = (res.get("message") or {}).get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("tool_use_id") == tool_use_id:
            inner = block.get("content")
            if isinstance(inner, str):
                return inner
            return "\n".join(b.get("text", "") for b in inner or [] if isinstance(b, dict))
    return ""


def backups_folder(home: Path | None, session_id: str) -> Path | None:
    """The session's file-history folder, `<home>/file-history/<session id>`; None outside a
    Claude home or for a recorded session id that is not a plain name (`no_folder` says which)."""
    return home / "file-history" / session_id if home is not None and plain_name(session_id) else None


def no_folder(session_id: str) -> str:
    """Why a session's file-history folder is unknown (backups_folder gave None)."""
    if not plain_name(session_id):
        return f"the session id {session_id!r} is not a plain name: its file-history is not read"
    return "file-history folder unknown (transcript outside a Claude home)"


def read_backup(folder: Path | None, session_id: str, name: str) -> tuple[bytes | None, str]:
    """A file-history backup's bytes, or (None, why): the folder unknown, a name that is not a
    plain file name (never read: it could lead anywhere), or the backup missing."""
    if folder is None:
        return None, no_folder(session_id)
    if not plain_name(name):
        return None, f"file-history backup name {name!r} is not a plain file name: not read"
    try:
        return (folder / name).read_bytes(), ""
    except OSError:
        return None, f"file-history backup {name} is missing"


def backup_before(turn: Turn, item: TranscriptItem, backups: Path | None) -> tuple[str | None, str]:
    """The file before this edit when the result has no `originalFile`: for the turn's first
    edit of it, the turn's file-history backup; for a later one, the previous edit's
    after-content (the hunk applied to it must then fit, or the after stays unknown).
    Returns (text, "") or (None, "") for a file that did not exist, or (None, why)."""
    path = os.path.normpath(item.file_path or "")
    earlier = [i for i in turn.items if i.change and os.path.normpath(i.file_path or "") == path]
    if item in earlier and earlier.index(item) > 0:
        _before, after, reason = edit_contents(turn, earlier[earlier.index(item) - 1], backups)
        if after is None:
            return None, f"no originalFile, and the previous edit in the same turn is not known either ({reason})"
        return after.decode("utf-8", "surrogateescape"), ""
    if path not in turn.backups:
        return None, "no originalFile and no file-history backup for this turn"
    name = turn.backups[path]
    if name is None:
        return None, ""
    blob, reason = read_backup(backups, turn.session_id, name)
    return (None, reason) if blob is None else (blob.decode("utf-8", "surrogateescape"), "")


def _created(result: dict) -> tuple[None, bytes | None, str]:
    """A Write that created the file: nothing before, its `content` after."""
    content = result.get("content")
    if isinstance(content, str):
        return None, content.encode("utf-8", "surrogateescape"), ""
    return None, None, "Write result without content"
