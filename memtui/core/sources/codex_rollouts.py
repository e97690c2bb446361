"""Codex rollouts, parsed: finding them, patches, and the one streaming pass that indexes them.

The index keeps byte offsets, not payloads; the read model (memtui.core.sources.codex)
re-reads lines on demand.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from memtui.core.model import Problem
from memtui.core.sources.base import IndexedSource, preview
from memtui.core.sources.jsonl import count_malformed, first_record, iter_records
from memtui.core.sources.timestamps import parse_time

CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
FLAT_ITEMS = CALLS | OUTPUTS | {"message", "reasoning"}


def codex_home(env: dict[str, str] | None = None) -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    env = os.environ if env is None else env
    value = env.get("CODEX_HOME")
    return Path(value).expanduser() if value else Path("~/.codex").expanduser()


def find_rollouts(root: Path) -> list[Path]:
    """Rollout files under a Codex home, a sessions folder, or any folder of them."""
    root = Path(root)
    if root.is_file():
        return [root]
    bases = [root / "sessions", root / "archived_sessions"] if (root / "sessions").is_dir() else [root]
    found: list[Path] = []
    for base in bases:
        if base.is_dir():
            found += base.rglob("rollout-*.jsonl")
    return sorted(set(found))


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


def rollouts_for_workspace(workspace: Path, home: Path) -> list[Path]:
    """Rollouts whose session_meta cwd is `workspace`."""
    target = os.path.realpath(workspace)
    out = []
    for path in find_rollouts(home) if home.is_dir() else []:
        meta = session_meta(path) or {}
        cwd = meta.get("cwd")
        if isinstance(cwd, str) and os.path.realpath(cwd) == target:
            out.append(path)
    return out


def message_text(payload: dict) -> str:
    parts = payload.get("content")
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and "text" in p)


def _is_context(text: str) -> bool:
    """Codex injects instructions and environment context as user messages."""
    head = text.lstrip()
    return head.startswith("<") or head.startswith("# AGENTS.md")


def _patch_text(name: str, payload: dict) -> str | None:
    """The patch an apply_patch call carries, whichever way it was called."""
    if payload.get("type") == "custom_tool_call" and name == "apply_patch":
        value = payload.get("input")
        return value if isinstance(value, str) else None
    args: Any = payload.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return args if name == "apply_patch" else None
    if not isinstance(args, dict):
        return None
    if name == "apply_patch":
        value = args.get("input") or args.get("patch")
        return value if isinstance(value, str) else None
    command = args.get("command")
    if isinstance(command, list) and len(command) >= 2 and command[0] == "apply_patch":
        return str(command[1])
    if isinstance(command, list) and len(command) >= 3 and "apply_patch" in str(command[2])[:200]:
        text = str(command[2])
        start = text.find("*** Begin Patch")
        return text[start:] if start >= 0 else None
    return None


@dataclass(frozen=True)
class PatchFile:
    """One file in an apply_patch patch."""

    action: str  # "add" | "delete" | "update"
    path: str
    move_to: str | None
    body: list[str]


def parse_patch(text: str) -> list[PatchFile]:
    """The files of a `*** Begin Patch` … `*** End Patch` text."""
    files: list[PatchFile] = []
    action = path = move = None
    body: list[str] = []

    def flush():
        if action and path:
            files.append(PatchFile(action, path, move, list(body)))

    for line in text.splitlines():
        for tag, act in (("*** Add File: ", "add"), ("*** Delete File: ", "delete"), ("*** Update File: ", "update")):
            if line.startswith(tag):
                flush()
                action, path, move, body = act, line[len(tag):].strip(), None, []
                break
        else:
            if line.startswith("*** Move to: "):
                move = line[len("*** Move to: "):].strip()
            elif line.startswith("*** End Patch") or line.startswith("*** Begin Patch"):
                continue
            elif action:
                body.append(line)
    flush()
    return files


def _output_succeeded(output: Any) -> bool | None:
    """Read an apply_patch output: JSON with metadata.exit_code, or plain text."""
    if isinstance(output, dict):
        output = output.get("content", output)
    if not isinstance(output, str):
        return None
    text = output
    try:
        data = json.loads(output)
    except (json.JSONDecodeError, RecursionError):
        data = None
    if isinstance(data, dict):
        code = (data.get("metadata") or {}).get("exit_code") if isinstance(data.get("metadata"), dict) else None
        if isinstance(code, int):
            return code == 0
        text = str(data.get("output", ""))
    if text.lstrip().startswith("Success"):
        return True
    return False if text.strip() else None


@dataclass
class RolloutItem:
    """One step of a turn, as offsets into its rollout."""

    kind: str  # "call" | "reply" | "turn_diff" | "compaction"
    offset: int
    line: int
    created_at: datetime | None
    key: str
    name: str = ""
    output_offset: int | None = None
    patch: list[PatchFile] | None = None
    applied: bool | None = None
    end_offset: int | None = None  # patch_apply_end event
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass
class Turn:
    """One user prompt and the steps that answered it."""

    id: str
    session_id: str
    title: str
    prompt: str
    created_at: datetime | None
    items: list[RolloutItem] = field(default_factory=list)
    replies: list[tuple[str, datetime | None]] = field(default_factory=list)
    total_at_end: dict | None = None


@dataclass
class RolloutSession:
    """One rollout file and its turns, in order."""

    id: str
    file: Path
    meta: dict
    title: str | None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    turns: list[str] = field(default_factory=list)
    total_tokens: dict | None = None


class RolloutIndex(IndexedSource):
    """Sessions, turns and steps of a set of rollouts, as offsets; the read model is CodexSource."""

    def __init__(self, rollouts: Iterable[Path], *, home: Path | None = None, path: Path | None = None) -> None:
        self.rollouts = sorted(Path(p) for p in rollouts)
        super().__init__(path or (self.rollouts[0].parent if self.rollouts else Path(".")))
        self.home = home

    # -- indexing --------------------------------------------------------------------------
    def _titles(self) -> dict[str, str]:
        titles: dict[str, str] = {}
        index = self.home / "session_index.jsonl" if self.home else None
        if index is not None and index.is_file():
            for _line, _offset, rec in iter_records(index, []):
                if isinstance(rec.get("id"), str) and isinstance(rec.get("thread_name"), str):
                    titles[rec["id"]] = rec["thread_name"]
        return titles

    def _index(self) -> None:
        self._sessions: dict[str, RolloutSession] = {}
        self._turns: dict[str, Turn] = {}
        self._changes: dict[str, tuple[Turn, RolloutItem, PatchFile, Path]] = {}
        self._counts = {"sessions": 0, "prompts": 0, "function_calls": 0, "patches": 0, "file_changes": 0, "malformed_lines": 0}
        titles = self._titles()
        for path in self.rollouts:
            self._index_rollout(path, titles)
        self._counts["sessions"] = len(self._sessions)
        self._counts["malformed_lines"] = count_malformed(self._problems)

    def _index_rollout(self, path: Path, titles: dict[str, str]) -> None:
        problems: list[Problem] = []
        rows: list[tuple[int, int, str, dict, datetime | None]] = []  # (line, offset, kind, payload, time)
        meta: dict = {}
        for lineno, offset, rec in iter_records(path, problems):
            when = parse_time(rec.get("timestamp"))
            rtype = rec.get("type")
            payload = rec.get("payload")
            if rtype == "session_meta" and isinstance(payload, dict):
                meta = meta or payload
                continue
            if isinstance(payload, dict) and rtype in ("response_item", "event_msg", "compacted", "turn_context"):
                rows.append((lineno, offset, rtype, payload, when))
            elif rtype in FLAT_ITEMS:  # early rollouts: the item itself is the line
                rows.append((lineno, offset, "response_item", rec, when))
            elif lineno == 1 and rtype is None and ("id" in rec or "instructions" in rec):
                meta = rec
            # other record types (turn_context without payload, unknown ones) are skipped
        session_id = str(meta.get("id") or path.stem)
        if session_id in self._sessions:
            problems.append(Problem(str(path), None, f"session {session_id} already read from another file"))
            self._problems += problems
            return
        session = RolloutSession(session_id, path, meta, titles.get(session_id), created_at=parse_time(meta.get("timestamp")))
        self._sessions[session_id] = session
        has_events = any(kind == "event_msg" and p.get("type") == "user_message" for _l, _o, kind, p, _w in rows)

        turn: Turn | None = None
        calls: dict[str, RolloutItem] = {}
        for lineno, offset, kind, payload, when in rows:
            if when is not None:
                session.created_at = session.created_at or when
                session.updated_at = when
            ptype = payload.get("type")
            prompt = None
            if kind == "event_msg" and ptype == "user_message" and has_events:
                prompt = str(payload.get("message") or "")
            elif kind == "response_item" and ptype == "message" and payload.get("role") == "user" and not has_events:
                text = message_text(payload)
                prompt = None if _is_context(text) else text
            if prompt is not None:
                self._counts["prompts"] += 1
                turn = self._new_turn(session, f"{session_id}:{lineno}", preview(prompt) or "(empty prompt)", prompt, when)
                continue
            if kind == "event_msg" and ptype == "token_count":
                info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
                total = info.get("total_token_usage")
                if isinstance(total, dict):
                    session.total_tokens = total
                    if turn is not None:
                        turn.total_at_end = total
                continue
            if turn is None and self._opens_turn(kind, payload):
                turn = self._new_turn(session, f"{session_id}:start", "(before the first prompt)", "", when)
            target = turn
            if target is None:
                continue
            if kind == "response_item" and ptype in CALLS:
                call_id = str(payload.get("call_id") or payload.get("id") or f"line{lineno}")
                name = str(payload.get("name") or ("shell" if ptype == "local_shell_call" else ptype))
                item = RolloutItem("call", offset, lineno, when, call_id, name=name)
                if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
                    self._counts["function_calls"] += 1
                text = _patch_text(name, payload)
                if text is not None:
                    item.patch = parse_patch(text)
                calls[call_id] = item
                target.items.append(item)
            elif kind == "response_item" and ptype in OUTPUTS:
                item = calls.get(str(payload.get("call_id")))
                if item is not None:
                    item.output_offset = offset
                    if item.patch is not None and item.applied is None:
                        item.applied = _output_succeeded(payload.get("output"))
            elif kind == "response_item" and ptype == "message" and payload.get("role") == "assistant":
                text = message_text(payload)
                if text.strip():
                    target.items.append(RolloutItem("reply", offset, lineno, when, f"line{lineno}", name="reply"))
                    target.replies.append((text, when))
            elif kind == "event_msg" and ptype == "patch_apply_end":
                item = calls.get(str(payload.get("call_id")))
                if item is not None:
                    item.end_offset = offset
                    if isinstance(payload.get("success"), bool):
                        item.applied = payload["success"]
            elif kind == "event_msg" and ptype == "turn_diff":
                target.items.append(RolloutItem("turn_diff", offset, lineno, when, f"line{lineno}", name="turn_diff"))
            elif kind == "compacted" or (kind == "event_msg" and ptype == "context_compacted"):
                target.items.append(RolloutItem("compaction", offset, lineno, when, f"line{lineno}", name="compaction"))

        # Tokens: each turn gets (its last cumulative total − the previous turn's), on its first step.
        previous: dict = {}
        for turn_id in session.turns:
            t = self._turns[turn_id]
            if t.total_at_end is None or not t.items:
                continue
            first = t.items[0]
            first.tokens_in, first.tokens_out = (
                max(0, int(t.total_at_end.get(key) or 0) - int(previous.get(key) or 0))
                for key in ("input_tokens", "output_tokens")
            )
            previous = t.total_at_end
        for turn_id in session.turns:
            t = self._turns[turn_id]
            for item in t.items:
                if item.patch is not None and item.applied:
                    self._counts["patches"] += 1
                    for n, pf in enumerate(item.patch):
                        self._counts["file_changes"] += 1
                        self._changes[f"{session_id}:{item.key}:{n}"] = (t, item, pf, path)
        self._problems += problems

    @staticmethod
    def _opens_turn(kind: str, payload: dict) -> bool:
        """Whether a record before any prompt still deserves a turn of its own."""
        ptype = payload.get("type")
        if kind == "response_item":
            return ptype in CALLS or (ptype == "message" and payload.get("role") == "assistant")
        return kind == "compacted" or ptype in ("turn_diff", "patch_apply_end")

    def _new_turn(self, session: RolloutSession, turn_id: str, title: str, prompt: str, when) -> Turn:
        turn = Turn(turn_id, session.id, title, prompt, when)
        self._turns[turn_id] = turn
        session.turns.append(turn_id)
        return turn
