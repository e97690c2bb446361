"""A Claude Code file change's exact contents: before from `originalFile` or the turn's
file-history backup, after rebuilt from `structuredPatch` (or Write's `content`).

When the transcript lacks a side, the reason says why; callers raise ContentUnknown.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.agents.claude_code.transcripts import TranscriptItem, Turn
from memtui.core.sources.jsonl import read_record_at
from memtui.core.agents.claude_code.patches import PatchMismatch, apply_hunks, replace_strings


def edit_contents(turn: Turn, item: TranscriptItem, backups: Path | None) -> tuple[bytes | None, bytes | None, str]:
    """(before, after, reason-if-unknown) for one Edit/Write/MultiEdit result; `backups` is
    the session's file-history folder (None when the transcript is outside a Claude home)."""
    res = read_record_at(item.transcript, item.result_offset) if item.result_offset is not None else None
    result = (res or {}).get("toolUseResult")
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
    if backups is None:
        return None, "file-history folder unknown (transcript outside a Claude home)"
    blob = backups / name
    try:
        return blob.read_bytes().decode("utf-8", "surrogateescape"), ""
    except OSError:
        return None, f"file-history backup {name} is missing"


def _created(result: dict) -> tuple[None, bytes | None, str]:
    """A Write that created the file: nothing before, its `content` after."""
    content = result.get("content")
    if isinstance(content, str):
        return None, content.encode("utf-8", "surrogateescape"), ""
    return None, None, "Write result without content"
