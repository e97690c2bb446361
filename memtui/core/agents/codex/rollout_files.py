"""Finding Codex rollouts and reading their first records: where a home keeps them, the working
directory a rollout recorded, and the text and prompt of a message record."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from memtui.core.paths import recorded_folder
from memtui.core.sources.fields import field as typed_field
from memtui.core.sources.jsonl import first_record
from memtui.core.sources.folders import Folders, recorded_in

_CWD = re.compile(r"<cwd>(.*?)</cwd>", re.S)


def find_rollouts(root: Path, folders: Folders | None = None) -> list[Path]:
    """Rollout files under a Codex home, a sessions folder, or any folder of them. `folders`:
    listings kept from the last time (a folder whose mtime is unchanged is not listed again)."""
    root = Path(root)
    if root.is_file():
        return [root]
    folders = folders or Folders()
    bases = [root / "sessions", root / "archived_sessions"] if (root / "sessions").is_dir() else [root]
    found: list[Path] = []
    while bases:
        base = bases.pop()
        found += [p for p in folders.files(base, ".jsonl") if p.name.startswith("rollout-")]
        bases += folders.folders(base, links=False)  # as rglob walked: not into links
    return sorted(set(found))


def rollout_lister(root: Path) -> Callable[[], list[Path]]:
    """`find_rollouts(root)` at each call, listing only the folders that changed."""
    folders = Folders()
    return lambda: find_rollouts(root, folders)


def workspace_lister(workspace: Path, home: Path) -> Callable[[], list[Path]]:
    """`rollouts_for_workspace(workspace, home)` at each call, reading each new rollout's cwd once."""
    folders, cwds = Folders(), {}  # type: ignore[var-annotated]
    return lambda: rollouts_for_workspace(workspace, home, cwds, folders)


def session_meta(path: Path) -> dict | None:
    """The rollout's session_meta payload (or a flat early header)."""
    record = first_record(path, max_lines=5)
    if record is None:
        return None
    if record.get("type") == "session_meta" and isinstance(record.get("payload"), dict):
        return record["payload"]
    if "type" not in record and ("id" in record or "instructions" in record):
        return record
    return None


def looks_like_rollout(path: Path) -> bool:
    return session_meta(path) is not None


def _payload(record: dict) -> dict:
    """A record's payload; an early rollout's flat record is its own."""
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else record


def _context_cwd(record: dict) -> bool:
    payload = _payload(record)
    return payload.get("type") == "message" and payload.get("role") == "user" and "<cwd>" in message_text(payload)


def rollout_cwd(path: Path, meta: dict | None = None) -> str | None:
    """The cwd a rollout recorded: in its session_meta, or — in early rollouts, whose
    header has none — in the first user message's `<environment_context><cwd>`."""
    meta = session_meta(path) if meta is None else meta
    cwd = meta.get("cwd") if isinstance(meta, dict) else None
    if isinstance(cwd, str) and cwd:
        return recorded_folder(cwd)
    record = first_record(path, max_lines=30, where=_context_cwd)
    if record is None:
        return None
    found = _CWD.search(message_text(_payload(record)))
    return recorded_folder(found.group(1).strip()) if found else None


def rollouts_for_workspace(workspace: Path, home: Path, cwds: dict[Path, str] | None = None,
                           folders: Folders | None = None) -> list[Path]:
    """Rollouts whose recorded cwd is `workspace` (`cwds`: as found before)."""
    return recorded_in(workspace, find_rollouts(home, folders) if home.is_dir() else [], rollout_cwd, cwds)


def message_text(payload: dict) -> str:
    parts = payload.get("content")
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def prompt_text(kind: str, payload: dict, has_events: bool) -> str | None:
    """The prompt a rollout record holds, else None: a `user_message` event where the rollout
    has them (`has_events`; the user messages beside them repeat the prompt among injected
    context), else a user message that is not injected context. Sessions' titles (the reader,
    cleanup's inventory) come from the first."""
    ptype = typed_field(payload, "type", kind=str)
    if kind == "event_msg" and ptype == "user_message" and has_events:
        return typed_field(payload, "message", kind=str, default="")
    if kind == "response_item" and ptype == "message" and payload.get("role") == "user" and not has_events:
        text = message_text(payload)
        return None if _is_context(text) else text
    return None


def _is_context(text: str) -> bool:
    """Codex injects instructions and environment context as user messages."""
    head = text.lstrip()
    return head.startswith("<") or head.startswith("# AGENTS.md")
