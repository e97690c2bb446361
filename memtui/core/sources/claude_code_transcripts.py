"""Claude Code transcripts, parsed: finding them, and the one streaming pass that indexes them.

The index keeps byte offsets, not payloads (memtui.core.sources.claude_code re-reads lines
on demand); sessions are matched to a workspace by the `cwd` the records carry — never by
decoding the directory name, which is lossy.
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

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})
AGENT_TOOLS = frozenset({"Task", "Agent"})
CONVERSATION = frozenset({"user", "assistant", "system", "attachment", "progress"})


def claude_home(env: dict[str, str] | None = None) -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    env = os.environ if env is None else env
    value = env.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path("~/.claude").expanduser()


def message_blocks(message: Any) -> list[dict]:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _prompt_text(record: dict) -> str | None:
    """The text of a user prompt, or None for tool results, meta lines and summaries."""
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return None
    if record.get("isVisibleInTranscriptOnly") or "toolUseResult" in record:
        return None
    blocks = message_blocks(record.get("message"))
    if any(b.get("type") == "tool_result" for b in blocks):
        return None
    text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    return text if text.strip() else None


def transcript_cwd(path: Path, max_lines: int = 40) -> str | None:
    """The `cwd` recorded in the first records of a transcript (None if none)."""
    record = first_record(path, max_lines, where=lambda r: isinstance(r.get("cwd"), str))
    return record["cwd"] if record else None


def looks_like_transcript(path: Path) -> bool:
    record = first_record(path)
    return bool(record) and (
        "sessionId" in record or "leafUuid" in record or record.get("type") in ("summary", "file-history-snapshot")
    )


def find_session_transcripts(projects: Path) -> list[Path]:
    """Session transcripts (not sub-agents) in a projects dir or one project dir."""
    if not projects.is_dir():
        return []
    found = [p for p in projects.glob("*.jsonl") if not p.name.startswith("agent-")]
    for child in sorted(projects.iterdir()):
        if child.is_dir() and child.name not in ("memory",):
            found += [p for p in child.glob("*.jsonl") if not p.name.startswith("agent-")]
    return sorted(set(found))


def transcripts_for_workspace(workspace: Path, home: Path) -> list[Path]:
    """The session transcripts whose recorded cwd is `workspace`."""
    target = os.path.realpath(workspace)
    out = []
    for path in find_session_transcripts(home / "projects"):
        cwd = transcript_cwd(path)
        if cwd is not None and os.path.realpath(cwd) == target:
            out.append(path)
    return out


def _subagent_files(session_file: Path, session_id: str) -> list[Path]:
    """2.1.x `<sessionId>/subagents/agent-*.jsonl`, and 2.0.x `agent-*.jsonl` beside the session."""
    found = sorted((session_file.parent / session_file.stem / "subagents").glob("agent-*.jsonl"))
    for path in sorted(session_file.parent.glob("agent-*.jsonl")):
        record = first_record(path)
        if record and record.get("sessionId") == session_id:
            found.append(path)
    return found


@dataclass
class TranscriptItem:
    """One step of a turn, as offsets into its transcript."""

    kind: str  # "call" | "reply" | "compact"
    transcript: Path
    offset: int
    line: int
    created_at: datetime | None
    key: str  # tool_use id, or "<line>:<block>" for replies
    name: str = ""
    block: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    result_offset: int | None = None
    is_error: bool = False
    change: bool = False  # a successful Edit/Write/MultiEdit result
    file_path: str | None = None
    agent_prompt: str | None = None  # a Task/Agent call's prompt, to find its sub-agent


@dataclass
class Turn:
    """One user prompt (or one sub-agent run) and the steps that answered it."""

    id: str
    session_id: str
    uuid: str | None
    title: str
    created_at: datetime | None
    transcript: Path
    items: list[TranscriptItem] = field(default_factory=list)
    replies: list[tuple[str, datetime | None]] = field(default_factory=list)
    prompt: str = ""
    superseded: bool = False
    compacted: bool = False
    agent_id: str | None = None
    parent_call: str | None = None  # tool_use id of the Task/Agent call that started it
    backups: dict[str, str | None] = field(default_factory=dict)  # abs path → backup file name


@dataclass
class TranscriptSession:
    """One session transcript and its turns, in order."""

    id: str
    file: Path
    cwd: str | None = None
    title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    turns: list[str] = field(default_factory=list)


class TranscriptIndex(IndexedSource):
    """Sessions, turns and steps of a set of transcripts, as offsets; the read model is
    ClaudeCodeSource."""

    def __init__(self, transcripts: Iterable[Path], *, home: Path | None = None, path: Path | None = None) -> None:
        self.transcripts = sorted(Path(p) for p in transcripts)
        super().__init__(path or (self.transcripts[0].parent if self.transcripts else Path(".")))
        self.home = home

    # -- indexing --------------------------------------------------------------------------
    def _index(self) -> None:
        self._sessions: dict[str, TranscriptSession] = {}
        self._turns: dict[str, Turn] = {}
        self._calls: dict[str, tuple[str, TranscriptItem]] = {}  # "<session>:<tool_use id>" → (turn id, item)
        self._agent_calls: dict[tuple[str, str], str] = {}  # (session, agentId) → Task/Agent call id
        self._counts = {"sessions": 0, "prompts": 0, "tool_calls": 0, "file_changes": 0, "malformed_lines": 0}
        for path in self.transcripts:
            session = self._index_session(path)
            if session is None:
                continue
            for sub in _subagent_files(path, session.id):
                self._index_transcript(sub, session, subagent=True)
            self._link_subagents(session)
        self._counts["sessions"] = len(self._sessions)
        self._counts["malformed_lines"] = count_malformed(self._problems)

    def _index_session(self, path: Path) -> TranscriptSession | None:
        record = first_record(path, max_lines=40)
        session_id = path.stem
        if record is not None and isinstance(record.get("sessionId"), str):
            session_id = record["sessionId"]
        if session_id in self._sessions:
            self._problems.append(Problem(str(path), None, f"session {session_id} already read from another file"))
            return None
        session = TranscriptSession(session_id, path)
        self._sessions[session_id] = session
        self._index_transcript(path, session, subagent=False)
        return session

    def _new_turn(self, session: TranscriptSession, path: Path, turn_id: str, uuid: str | None, title: str, when) -> Turn:
        turn = Turn(turn_id, session.id, uuid, title or "(empty prompt)", when, path)
        self._turns[turn_id] = turn
        session.turns.append(turn_id)
        return turn

    def _index_transcript(self, path: Path, session: TranscriptSession, *, subagent: bool) -> None:
        problems: list[Problem] = []
        titles: dict[str, str] = {}
        summaries: list[tuple[str, str]] = []
        uuids: set[str] = set()
        parents: dict[str, str | None] = {}
        last_uuid: str | None = None
        seen_usage: set[tuple[Any, Any]] = set()
        unclaimed: dict[tuple[Any, Any], tuple[int, int]] = {}
        turn: Turn | None = None
        snapshots: dict[str, dict[str, str | None]] = {}
        prompt_turns: dict[str, Turn] = {}
        meta = {}
        agent_id = None
        if subagent:
            agent_id = path.stem.removeprefix("agent-")
            meta_file = path.with_name(path.stem + ".meta.json")
            if meta_file.is_file():
                try:
                    meta = json.loads(meta_file.read_text(encoding="utf-8", errors="replace"))
                except json.JSONDecodeError:
                    problems.append(Problem(str(meta_file), None, "malformed JSON, ignored"))
            turn = self._new_turn(session, path, f"{session.id}:agent-{agent_id}", None,
                                  str(meta.get("description") or f"sub-agent {agent_id}"), None)
            turn.agent_id = agent_id
            turn.parent_call = meta.get("toolUseId") if isinstance(meta, dict) else None

        for lineno, offset, rec in iter_records(path, problems):
            rtype = rec.get("type")
            when = parse_time(rec.get("timestamp"))
            if not subagent and isinstance(rec.get("cwd"), str) and session.cwd is None:
                session.cwd = rec["cwd"]
            if when is not None and not subagent:
                if session.created_at is None:
                    session.created_at = when
                session.updated_at = when
            uuid = rec.get("uuid")
            if isinstance(uuid, str) and rtype in CONVERSATION:
                uuids.add(uuid)
                parent = rec.get("parentUuid") or rec.get("logicalParentUuid")
                parents[uuid] = parent if isinstance(parent, str) else None
                if not rec.get("isSidechain") or subagent:
                    last_uuid = uuid
            if rtype == "summary" and isinstance(rec.get("summary"), str):
                summaries.append((rec["summary"], str(rec.get("leafUuid"))))
            elif rtype == "ai-title" and isinstance(rec.get("aiTitle"), str):
                titles["ai"] = rec["aiTitle"]
            elif rtype == "custom-title" and isinstance(rec.get("customTitle"), str):
                titles["custom"] = rec["customTitle"]
            elif rtype == "file-history-snapshot":
                snap = rec.get("snapshot") if isinstance(rec.get("snapshot"), dict) else {}
                mid = snap.get("messageId") or rec.get("messageId")
                backups = snap.get("trackedFileBackups")
                if isinstance(mid, str) and isinstance(backups, dict):
                    target = snapshots.setdefault(mid, {})
                    for key, info in backups.items():
                        if isinstance(info, dict) and key not in target:
                            target[key] = info.get("backupFileName")
                    if mid in prompt_turns:
                        self._merge_backups(prompt_turns[mid], snapshots[mid], session.cwd)
            elif rtype == "system" and rec.get("subtype") == "compact_boundary":
                if turn is not None:
                    turn.items.append(TranscriptItem("compact", path, offset, lineno, when, f"{lineno}:compact", name="compaction"))
                    turn.compacted = True
            elif rtype == "user":
                text = _prompt_text(rec)
                if text is not None and not subagent:
                    self._counts["prompts"] += 1
                    turn = self._new_turn(session, path, f"{session.id}:{uuid or lineno}", uuid, preview(text), when)
                    turn.prompt = text
                    if isinstance(uuid, str):
                        prompt_turns[uuid] = turn
                        if uuid in snapshots:
                            self._merge_backups(turn, snapshots[uuid], session.cwd)
                    continue
                if text is not None and subagent and turn is not None and not turn.prompt:
                    turn.prompt = text
                    if turn.created_at is None:
                        turn.created_at = when
                    continue
                self._index_results(rec, offset, session, subagent)
            elif rtype == "assistant":
                if turn is None:
                    turn = self._new_turn(session, path, f"{session.id}:start", None, "(before the first prompt)", when)
                message = rec.get("message") if isinstance(rec.get("message"), dict) else {}
                # One API reply is written as several lines sharing message id + request id,
                # each repeating the usage: count it once, on the reply's first step.
                usage_key = (message.get("id"), rec.get("requestId"))
                if usage_key not in seen_usage or usage_key == (None, None):
                    seen_usage.add(usage_key)
                    usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
                    unclaimed[usage_key] = (
                        sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")),
                        int(usage.get("output_tokens") or 0),
                    )
                for index, block in enumerate(message_blocks(message)):
                    btype = block.get("type")
                    if btype not in ("tool_use", "text"):
                        continue
                    tokens_in, tokens_out = unclaimed.pop(usage_key, (0, 0)) if btype == "tool_use" or str(block.get("text", "")).strip() else (0, 0)
                    if btype == "tool_use" and isinstance(block.get("id"), str):
                        self._counts["tool_calls"] += 1
                        args = block.get("input") if isinstance(block.get("input"), dict) else {}
                        item = TranscriptItem("call", path, offset, lineno, when, block["id"], name=str(block.get("name") or "tool"),
                                     block=index, tokens_in=tokens_in, tokens_out=tokens_out,
                                     file_path=args.get("file_path") if isinstance(args.get("file_path"), str) else None,
                                     agent_prompt=args.get("prompt") if isinstance(args.get("prompt"), str) else None)
                    elif btype == "text" and str(block.get("text", "")).strip():
                        item = TranscriptItem("reply", path, offset, lineno, when, f"{lineno}:{index}", name="reply", block=index,
                                     tokens_in=tokens_in, tokens_out=tokens_out)
                        turn.replies.append((block["text"], when))
                    else:
                        continue
                    turn.items.append(item)
                    if item.kind == "call":
                        self._calls[f"{session.id}:{item.key}"] = (turn.id, item)

        # Titles: a custom title, then Claude's ai-title, then a summary whose leaf is in this file.
        if not subagent:
            trusted = [s for s, leaf in summaries if leaf in uuids]
            session.title = titles.get("custom") or titles.get("ai") or (trusted[-1] if trusted else None)
            self._mark_branches(session, uuids, parents, last_uuid)
        elif turn is not None and turn.title.startswith("sub-agent") and turn.prompt:
            turn.title = preview(turn.prompt)
        for p in problems:
            self._problems.append(p)

    def _index_results(self, rec: dict, offset: int, session: TranscriptSession, subagent: bool) -> None:
        for block in message_blocks(rec.get("message")):
            if block.get("type") != "tool_result" or not isinstance(block.get("tool_use_id"), str):
                continue
            found = self._calls.get(f"{session.id}:{block['tool_use_id']}")
            if found is None:
                continue
            turn_id, item = found
            item.result_offset = offset
            item.is_error = bool(block.get("is_error"))
            result = rec.get("toolUseResult")
            if item.name in EDIT_TOOLS and not item.is_error and isinstance(result, dict) and result.get("filePath"):
                item.change = True
                item.file_path = result["filePath"]
                self._counts["file_changes"] += 1
            if item.name in AGENT_TOOLS and isinstance(result, dict) and isinstance(result.get("agentId"), str):
                self._agent_calls[(session.id, result["agentId"])] = item.key

    def _link_subagents(self, session: TranscriptSession) -> None:
        """Find the Task/Agent call that started each sub-agent: by the `.meta.json`
        toolUseId, the result's agentId, or (2.0.x) the identical prompt."""
        calls = [item for tid, item in self._calls.values()
                 if self._turns[tid].session_id == session.id and item.name in AGENT_TOOLS]
        for turn_id in session.turns:
            child = self._turns[turn_id]
            if child.agent_id is None or child.parent_call is not None:
                continue
            child.parent_call = self._agent_calls.get((session.id, child.agent_id))
            if child.parent_call is None and child.prompt:
                match = next((c for c in calls if c.agent_prompt and c.agent_prompt.strip() == child.prompt.strip()), None)
                child.parent_call = match.key if match else None

    def _merge_backups(self, turn: Turn, backups: dict[str, str | None], cwd: str | None) -> None:
        for key, name in backups.items():
            absolute = key if os.path.isabs(key) or cwd is None else os.path.join(cwd, key)
            turn.backups.setdefault(os.path.normpath(absolute), name)

    def _mark_branches(self, session: TranscriptSession, uuids: set[str], parents: dict, last_uuid: str | None) -> None:
        """Prompts off the path from the newest leaf to the root were rewound: superseded."""
        if last_uuid is None:
            return
        children = {p for p in parents.values() if p}
        leaf = last_uuid if last_uuid not in children else None
        if leaf is None:
            leaves = [u for u in parents if u not in children]
            leaf = leaves[-1] if leaves else None
        active: set[str] = set()
        node = leaf
        while node is not None and node not in active:
            active.add(node)
            node = parents.get(node)
        for turn_id in session.turns:
            turn = self._turns[turn_id]
            if turn.uuid is not None and turn.uuid not in active and turn.agent_id is None:
                turn.superseded = True
