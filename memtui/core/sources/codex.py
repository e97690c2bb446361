"""Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` (and `archived_sessions/`).

Each line is `{timestamp, type, payload}`; the first is `session_meta`. Early rollouts
have a flat header and flat items; both read. Mapping: a rollout → a session; each user
prompt → a task; function / custom-tool / shell calls paired with their outputs by
`call_id`, and assistant messages → steps; an applied `apply_patch` → a checkpoint with
one entry per file. Codex keeps patch hunks, not whole files, so an updated file's
before/after is unknown (its diff is kept); added files (and deleted ones when
`patch_apply_end` recorded their content) are exact. `token_count` totals are cumulative
and may repeat: a turn's tokens are the last total in it minus the last total before it.
`turn_diff` (the whole turn's diff) is shown as a step and never counted as changes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from memtui.core.model import CheckpointInfo, Id, MessageInfo, Problem, SessionInfo, StepInfo, TaskInfo
from memtui.core.sources.base import ContentUnknown, IndexedSource, SourceEntryInfo, UnknownId, page, preview
from memtui.core.sources.jsonl import count_malformed, first_record, iter_records, read_record_at
from memtui.core.sources.timestamps import file_time, parse_time, sort_key

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


def _message_text(payload: dict) -> str:
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
class _Item:
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
class _Turn:
    id: str
    session_id: str
    title: str
    prompt: str
    created_at: datetime | None
    items: list[_Item] = field(default_factory=list)
    replies: list[tuple[str, datetime | None]] = field(default_factory=list)
    total_at_end: dict | None = None


@dataclass
class _Session:
    id: str
    file: Path
    meta: dict
    title: str | None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    turns: list[str] = field(default_factory=list)
    total_tokens: dict | None = None


class CodexSource(IndexedSource):
    """The Codex rollouts of one project (or any set of rollout files)."""

    kind = "codex"
    capabilities = frozenset()

    def __init__(self, rollouts: Iterable[Path], *, home: Path | None = None, path: Path | None = None) -> None:
        self.rollouts = sorted(Path(p) for p in rollouts)
        super().__init__(path or (self.rollouts[0].parent if self.rollouts else Path(".")))
        self.home = home

    @classmethod
    def from_path(cls, path: Path) -> "CodexSource":
        path = Path(path)
        home = path if (path / "sessions").is_dir() else next((p.parent for p in path.parents if p.name in ("sessions", "archived_sessions")), None)
        return cls(find_rollouts(path), home=home, path=path)

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
        self._sessions: dict[str, _Session] = {}
        self._turns: dict[str, _Turn] = {}
        self._changes: dict[str, tuple[_Turn, _Item, PatchFile, Path]] = {}
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
        session = _Session(session_id, path, meta, titles.get(session_id), created_at=parse_time(meta.get("timestamp")))
        self._sessions[session_id] = session
        has_events = any(kind == "event_msg" and p.get("type") == "user_message" for _l, _o, kind, p, _w in rows)

        turn: _Turn | None = None
        calls: dict[str, _Item] = {}
        for lineno, offset, kind, payload, when in rows:
            if when is not None:
                session.created_at = session.created_at or when
                session.updated_at = when
            ptype = payload.get("type")
            prompt = None
            if kind == "event_msg" and ptype == "user_message" and has_events:
                prompt = str(payload.get("message") or "")
            elif kind == "response_item" and ptype == "message" and payload.get("role") == "user" and not has_events:
                text = _message_text(payload)
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
                item = _Item("call", offset, lineno, when, call_id, name=name)
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
                text = _message_text(payload)
                if text.strip():
                    target.items.append(_Item("reply", offset, lineno, when, f"line{lineno}", name="reply"))
                    target.replies.append((text, when))
            elif kind == "event_msg" and ptype == "patch_apply_end":
                item = calls.get(str(payload.get("call_id")))
                if item is not None:
                    item.end_offset = offset
                    if isinstance(payload.get("success"), bool):
                        item.applied = payload["success"]
            elif kind == "event_msg" and ptype == "turn_diff":
                target.items.append(_Item("turn_diff", offset, lineno, when, f"line{lineno}", name="turn_diff"))
            elif kind == "compacted" or (kind == "event_msg" and ptype == "context_compacted"):
                target.items.append(_Item("compaction", offset, lineno, when, f"line{lineno}", name="compaction"))

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

    def _new_turn(self, session: _Session, turn_id: str, title: str, prompt: str, when) -> _Turn:
        turn = _Turn(turn_id, session.id, title, prompt, when)
        self._turns[turn_id] = turn
        session.turns.append(turn_id)
        return turn

    # -- summary ---------------------------------------------------------------------------
    def token_usage(self, session_id: Id) -> dict | None:
        """The session's last cumulative `total_token_usage` (None if never reported)."""
        self._load()
        session = self._sessions.get(str(session_id))
        return dict(session.total_tokens) if session and session.total_tokens else None

    # -- read model ------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        self._load()
        out = []
        for s in self._sessions.values():
            created = s.created_at or file_time(s.file)
            first = next((self._turns[t] for t in s.turns if self._turns[t].prompt), None)
            out.append(SessionInfo(id=s.id, title=s.title or (first.title if first else s.id), status="closed",
                                   current_task_id=s.turns[-1] if s.turns else None, created_at=created,
                                   updated_at=s.updated_at or created, task_count=len(s.turns),
                                   stored_bytes=s.file.stat().st_size))
        return sorted(out, key=lambda x: sort_key(x.updated_at), reverse=True)

    def _turn(self, task_id: Id) -> _Turn:
        self._load()
        turn = self._turns.get(str(task_id))
        if turn is None:
            raise UnknownId(f"no turn {task_id!r} in {self.path}")
        return turn

    def _info(self, turn: _Turn) -> TaskInfo:
        times = [i.created_at for i in turn.items if i.created_at] or [turn.created_at]
        return TaskInfo(id=turn.id, session_id=turn.session_id, title=turn.title, status="completed",
                        created_at=turn.created_at, updated_at=times[-1], finished_at=times[-1],
                        step_count=len(turn.items),
                        checkpoint_count=sum(1 for i in turn.items if i.patch is not None and i.applied))

    def tasks(self, session_id: Id | None) -> list[TaskInfo]:
        self._load()
        session = self._sessions.get(str(session_id)) if session_id is not None else None
        return [self._info(self._turns[t]) for t in session.turns] if session else []

    def task(self, task_id: Id) -> TaskInfo:
        return self._info(self._turn(task_id))

    def _file(self, turn: _Turn) -> Path:
        return self._sessions[turn.session_id].file

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        turn = self._turn(task_id)
        path = self._file(turn)
        out = []
        for seq, item in enumerate(page(turn.items, offset, limit), start=offset):
            rec = read_record_at(path, item.offset) or {}
            payload = rec.get("payload") if isinstance(rec.get("payload"), dict) else rec
            step_id = f"{turn.session_id}:{item.key}"
            if item.kind == "reply":
                out.append(StepInfo(id=step_id, task_id=turn.id, seq=seq, tool="reply", args=None,
                                    result=_message_text(payload), tokens_in=item.tokens_in,
                                    tokens_out=item.tokens_out, created_at=item.created_at))
                continue
            if item.kind == "turn_diff":
                out.append(StepInfo(id=step_id, task_id=turn.id, seq=seq, tool="turn_diff", args=None,
                                    result=payload.get("unified_diff"), created_at=item.created_at))
                continue
            if item.kind == "compaction":
                out.append(StepInfo(id=step_id, task_id=turn.id, seq=seq, tool="compaction", args=None,
                                    result=payload.get("message"), created_at=item.created_at))
                continue
            args: Any = payload.get("arguments", payload.get("input", payload.get("action")))
            if isinstance(args, str) and payload.get("type") == "function_call":
                try:
                    args = json.loads(args)
                except json.JSONDecodeError:
                    pass
            result: Any = None
            if item.output_offset is not None:
                out_rec = read_record_at(path, item.output_offset) or {}
                out_payload = out_rec.get("payload") if isinstance(out_rec.get("payload"), dict) else out_rec
                result = out_payload.get("output")
            failed = item.patch is not None and item.applied is False
            out.append(StepInfo(
                id=step_id, task_id=turn.id, seq=seq, tool=item.name, args=args, result=result,
                status="error" if failed else ("ok" if item.output_offset is not None else "no result"),
                error="patch not applied" if failed else None,
                tokens_in=item.tokens_in, tokens_out=item.tokens_out, created_at=item.created_at,
                checkpoint_id=step_id if item.patch is not None and item.applied else None,
            ))
        return out

    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        turn = self._turn(task_id)
        return [CheckpointInfo(id=f"{turn.session_id}:{i.key}", task_id=turn.id, step_id=f"{turn.session_id}:{i.key}",
                               created_at=i.created_at, entry_count=len(i.patch or []))
                for i in turn.items if i.patch is not None and i.applied]

    @property
    def workspace(self) -> Path | None:
        """The one cwd all rollouts recorded (entry paths are relative to it), else None."""
        self._load()
        cwds = {s.meta.get("cwd") for s in self._sessions.values() if isinstance(s.meta.get("cwd"), str)}
        return Path(cwds.pop()) if len(cwds) == 1 else None

    def _relative(self, turn: _Turn, path: str) -> str:
        """Patch paths are relative to the session's cwd: make them relative to the
        source's workspace, or absolute when there is no single one."""
        cwd = self._sessions[turn.session_id].meta.get("cwd")
        absolute = path if os.path.isabs(path) or not isinstance(cwd, str) else os.path.join(cwd, path)
        root = self.workspace
        if root is not None and absolute.startswith(str(root).rstrip("/") + "/"):
            return os.path.relpath(absolute, root)
        return absolute

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        """An applied patch's checkpoint (its id is "<session>:<call id>")."""
        self._load()
        prefix = f"{checkpoint_id}:"
        for entry_id, (turn, item, _pf, _path) in self._changes.items():
            if entry_id.startswith(prefix):
                return CheckpointInfo(id=str(checkpoint_id), task_id=turn.id, step_id=str(checkpoint_id),
                                      created_at=item.created_at, entry_count=len(item.patch or []))
        raise UnknownId(f"no applied patch {checkpoint_id!r} in {self.path}")

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        """One file of an applied patch ("<session>:<call id>:<n>")."""
        self._load()
        if str(entry_id) not in self._changes:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        return next(e for e in self.checkpoint_entries(checkpoint_id) if e.id == str(entry_id))

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        self._load()
        out = []
        prefix = f"{checkpoint_id}:"
        for entry_id, (turn, item, pf, _path) in self._changes.items():
            if not entry_id.startswith(prefix):
                continue
            before, after, reason, diff = self._contents(turn, item, pf)
            kind = {"add": "added", "delete": "deleted"}.get(pf.action, "modified")
            out.append(SourceEntryInfo(
                id=entry_id, checkpoint_id=str(checkpoint_id), path=self._relative(turn, pf.move_to or pf.path), kind=kind,
                before_size=len(before) if before is not None else None,
                after_size=len(after) if after is not None else None,
                before_known=kind == "added" or before is not None,
                after_known=kind == "deleted" or after is not None,
                unknown_reason=reason, diff=diff,
            ))
        return out

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after): exact for added files (and deleted ones with recorded content).
        Raises ContentUnknown for what Codex did not record — see the entry's `diff`."""
        self._load()
        found = self._changes.get(str(entry_id))
        if found is None:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        turn, item, pf, _path = found
        before, after, reason, _diff = self._contents(turn, item, pf)
        if reason:
            raise ContentUnknown(f"{pf.path}: {reason}")
        return before, after

    def _contents(self, turn: _Turn, item: _Item, pf: PatchFile) -> tuple[bytes | None, bytes | None, str, str]:
        change: dict = {}
        if item.end_offset is not None:
            rec = read_record_at(self._file(turn), item.end_offset) or {}
            changes = (rec.get("payload") or {}).get("changes")
            if isinstance(changes, dict):
                cwd = self._sessions[turn.session_id].meta.get("cwd") or ""
                change = changes.get(pf.path) or changes.get(os.path.join(cwd, pf.path)) or {}
        diff = "\n".join(pf.body)
        if pf.action == "add":
            content = change.get("content") if isinstance(change.get("content"), str) else None
            if content is None:
                content = "".join(line[1:] + "\n" for line in pf.body if line.startswith("+"))
            return None, content.encode("utf-8", "surrogateescape"), "", diff
        if pf.action == "delete":
            content = change.get("content") if isinstance(change.get("content"), str) else None
            if content is None:
                return None, None, "Codex did not record the deleted file's content", diff
            return content.encode("utf-8", "surrogateescape"), None, "", diff
        if isinstance(change.get("unified_diff"), str):
            diff = change["unified_diff"]
        return None, None, "Codex records only the patch hunks of an updated file, not its whole content", diff

    def workspace_root(self, task_id: Id) -> Path | None:
        """The cwd the rollout's session_meta recorded: entry paths are relative to it."""
        turn = self._turn(task_id)
        cwd = self._sessions[turn.session_id].meta.get("cwd")
        return Path(cwd) if isinstance(cwd, str) else None

    def messages(self, task_id: Id) -> list[MessageInfo]:
        turn = self._turn(task_id)
        out = []
        if turn.prompt:
            out.append(MessageInfo(id=f"{turn.id}/prompt", task_id=turn.id, role="user", content=turn.prompt, created_at=turn.created_at))
        for n, (text, when) in enumerate(turn.replies):
            out.append(MessageInfo(id=f"{turn.id}/reply{n}", task_id=turn.id, role="assistant", content=text, created_at=when))
        return out
