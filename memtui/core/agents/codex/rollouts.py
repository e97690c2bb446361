"""Codex rollouts, parsed: the one streaming pass that indexes them (finding them: rollout_files).

The index keeps byte offsets, not payloads; the read model (memtui.core.agents.codex.source)
re-reads lines on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Iterable

from memtui.core.model import Problem
from memtui.core.sources.base import preview
from memtui.core.usage.tokens import NO_TOKENS, from_openai
from memtui.core.agents.codex.patches import PatchFile, output_succeeded, parse_patch, patch_text
from memtui.core.sources.fields import RECORD_ERRORS, field as typed_field
from memtui.core.sources.cursor import FileCursor, Resumable, resumable
from memtui.core.sources.jsonl import GrownLines, count_malformed, unknown_type_problems
from memtui.core.sources.part_store import dumps, loads
from memtui.core.paths import stat_key
from memtui.core.sources.transcript_root import RecordedRoot, TurnIndex, turn_usage
from memtui.core.sources.timestamps import parse_time
from memtui.core.agents.codex.tables import RolloutItem, RolloutSession, Turn, turn_task
from memtui.core.agents.codex.titles import codex_titles
from memtui.core.agents.codex.rollout_files import message_text, prompt_text, rollout_cwd

CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
FLAT_ITEMS = CALLS | OUTPUTS | {"message", "reasoning"}
# Every record type of a rollout is read or deliberately ignored; any other is counted and
# reported as a problem of the source (a new release's records show, never silently lost).
READ_TYPES = frozenset({"session_meta", "response_item", "event_msg", "compacted", "turn_context"})
IGNORED_TYPES = frozenset({
    "world_state",         # 0.17x: the environment and instructions the model was given (not the session's work)
    "token_usage_record",  # 0.17x: each reply's usage, also in the token_count events memtui reads
})
INSTRUCTIONS = frozenset({"base_instructions", "instructions", "user_instructions", "developer_instructions"})
"""The header's instruction texts: not kept in a session's listing (20 KB a rollout in Codex 0.171,
nine tenths of what a warm open unpickled of Codex's index); they stay in the rollout."""

__all__ = ["RolloutIndex", "Rollouts"]


def _rollout_counts() -> dict[str, int]:
    return {"sessions": 0, "prompts": 0, "function_calls": 0, "patches": 0, "file_changes": 0, "malformed_lines": 0}


@dataclass
class Rollouts(TurnIndex[RolloutSession, Turn]):
    """Codex's index: sessions, turns and steps of rollouts, as offsets: one rollout's (a part)
    or the whole store's (the parts merged)."""

    changes: dict[str, tuple[Turn, RolloutItem, PatchFile, Path]] = field(default_factory=dict)
    """"<session>:<call id>:<n>" → the n-th file of an applied patch: (turn, call, file, rollout)."""
    counts: dict[str, int] = field(default_factory=_rollout_counts)
    lazy: ClassVar[tuple[str, ...]] = ("turns", "changes")

    def add_tables(self, part: "Rollouts") -> None:
        self.turns.update(part.turns)
        self.changes.update(part.changes)

    @classmethod
    def read(cls, path: Path) -> "Rollouts":
        """One rollout, its sessions' listing filled in (first prompt's title, task rows)."""
        return cls.read_from(path, None)[0]

    @classmethod
    def read_from(cls, path: Path, resume: Resumable | None, keep: bool = True) -> tuple["Rollouts", Resumable | None]:
        """One rollout, its lines parsed on from `resume` (its cursor and the parse's state
        there) when it still holds what was parsed then; and, with `keep`, the cursor and state
        to go on from next time. A rollout whose new lines change how its earlier ones read (its header,
        or the first user_message event: prompts are then read from the events) is read whole."""
        state = resumable(resume, path)
        part = loads(state) if state is not None else cls()
        if state is None:
            part._begin()
        lines = GrownLines(path, part._read_problems, *((resume.cursor.offset, resume.cursor.lineno) if state else ()))
        had_meta = bool(part._meta)
        rows = part._scan(path, lines.complete())
        cursor = FileCursor.after(path, lines) if keep else None
        # The unfinished last line is read after the state is kept (it is read again as a
        # complete line next time); a tail that parses is the line it will be, read as one.
        tail_problems: list[Problem] = []
        tail = list(lines.tail(tail_problems))
        header_in_tail = not part._meta and any(_is_header(lineno, rec) for lineno, _offset, rec in tail)
        events = _has_events(rows) or any(_is_user_event(rec) for _lineno, _offset, rec in tail)
        tail_rows = None
        if part._session is None:
            if header_in_tail:  # the session is named by its tail: no state kept before it
                cursor = None
                part._read_problems += tail_problems
                tail_rows = part._scan(path, tail)
            part._open(path, events)
        elif part._meta and not had_meta or header_in_tail or events and not part._has_events:
            return cls.read_from(path, None, keep)
        part._rows(rows, path)
        kept = Resumable(cursor, dumps(part)) if cursor is not None else None
        if tail_rows is None:
            part._read_problems += tail_problems
            tail_rows = part._scan(path, tail)
        part._rows(tail_rows, path)
        part._finish(path)
        return part, kept

    def _begin(self) -> None:
        """A parse from the file's first line: nothing read yet."""
        self._meta: dict = {}
        self._unknown: dict[str, list[int]] = {}  # record type memtui does not know → its lines
        self._read_problems: list[Problem] = []
        self._session: RolloutSession | None = None

    def _scan(self, path: Path, records: Iterable[tuple[int, int, Any]]) -> list[tuple[int, int, str, dict, datetime | None]]:
        """The rows of `records` memtui reads ((line, offset, kind, payload, time)); the
        header found (`_meta`), unknown record types noted."""
        rows: list[tuple[int, int, str, dict, datetime | None]] = []
        for lineno, offset, rec in records:
            try:
                when = parse_time(typed_field(rec, "timestamp", kind=(str, int, float)))
                rtype = typed_field(rec, "type", kind=str)
                payload = typed_field(rec, "payload", kind=dict)
            except RECORD_ERRORS as exc:
                self._read_problems.append(Problem(str(path), lineno, f"{exc}; line skipped"))
                continue
            if rtype == "session_meta" and payload is not None:
                self._meta = self._meta or payload
            elif payload is not None and rtype in ("response_item", "event_msg", "compacted", "turn_context"):
                rows.append((lineno, offset, rtype, payload, when))
            elif rtype in FLAT_ITEMS:  # early rollouts: the item itself is the line
                rows.append((lineno, offset, "response_item", rec, when))
            elif lineno == 1 and rtype is None and ("id" in rec or "instructions" in rec):
                self._meta = rec
            elif rtype is not None and rtype not in READ_TYPES and rtype not in IGNORED_TYPES:
                self._unknown.setdefault(rtype, []).append(lineno)
            # turn_context without payload, the ignored types: skipped
        return rows

    def _open(self, path: Path, has_events: bool) -> None:
        """The rollout's session, from its header, before its rows are read."""
        meta = self._meta
        session_id = meta.get("id") if isinstance(meta.get("id"), str) else path.stem
        kept = {key: value for key, value in meta.items() if key not in INSTRUCTIONS}
        session = RolloutSession(session_id, path, kept, None, created_at=parse_time(meta.get("timestamp")))
        self.sessions[session_id] = session
        self._session = session
        self._current: Turn | None = None
        self._pending: dict[str, RolloutItem] = {}
        self._last_total: dict = {}  # the last cumulative token total reported
        self._early = [0, 0]  # tokens reported before the first prompt
        self._early_usage = NO_TOKENS
        self._model = meta.get("model") if isinstance(meta.get("model"), str) else ""
        self._has_events = has_events

    def _rows(self, rows: list[tuple[int, int, str, dict, datetime | None]], path: Path) -> None:
        for lineno, offset, kind, payload, when in rows:
            try:
                self._row(self._session, lineno, offset, kind, payload, when)
            except RECORD_ERRORS as exc:
                self._read_problems.append(Problem(str(path), lineno, f"{exc}; line skipped"))

    def _finish(self, path: Path) -> None:
        """After the last line: tokens settled per turn, the session's listing filled in."""
        session = self._session
        session.cwd = rollout_cwd(path, self._meta)
        self._settle(session, path)
        problems = self._read_problems
        if self._unknown:
            self.counts["unknown_records"] = self.counts.get("unknown_records", 0) + sum(map(len, self._unknown.values()))
            problems += unknown_type_problems(path, self._unknown)
        self.problems += problems
        for name in _PARSE_STATE:  # the parse's, kept with its cursor: not the part's
            self.__dict__.pop(name, None)
        for session in self.sessions.values():
            turns = [self.turns[t] for t in session.turns]
            session.prompt_title = next((t.title for t in turns if t.prompt), None)
            self.task_rows[session.id] = [turn_task(t) for t in turns]
            self.usage_rows.update((t.id, turn_usage(t)) for t in turns)

    def _row(self, session: RolloutSession, lineno: int, offset: int, kind: str, payload: dict, when) -> None:
        if when is not None:
            session.created_at = session.created_at or when
            session.updated_at = when
        if kind == "turn_context":  # the model of the requests from here on
            self._model = typed_field(payload, "model", kind=str) or self._model
            return
        ptype = typed_field(payload, "type", kind=str)
        prompt = prompt_text(kind, payload, self._has_events)
        if prompt is not None:
            self.counts["prompts"] += 1
            self._current = self.new_turn(session, f"{session.id}:{lineno}", preview(prompt) or "(empty prompt)", prompt, when)
            return
        if kind == "event_msg" and ptype == "token_count":
            total = typed_field(payload, "info", "total_token_usage", kind=dict)
            if total is not None:
                previous, self._last_total = self._last_total, total
                grown = {key: _grown(previous, total, key) for key in set(total) | set(previous)}
                session.total_tokens = {key: _count(session.total_tokens or {}, key) + grown[key] for key in grown}
                tokens_in, tokens_out = grown.get("input_tokens", 0), grown.get("output_tokens", 0)
                usage = from_openai(grown)
                if self._current is None:  # reported before the first prompt: the first turn's
                    self._early[0] += tokens_in
                    self._early[1] += tokens_out
                    self._early_usage = self._early_usage + usage
                    return
                self._current.total_at_end = total
                self._current.grown[0] += tokens_in
                self._current.grown[1] += tokens_out
                self._current.usage = self._current.usage + usage
                self._current.model = self._model
                if self._current.items:  # the request that made the last step: its tokens
                    last = self._current.items[-1]
                    last.tokens_in += tokens_in
                    last.tokens_out += tokens_out
                    last.usage = (last.usage or NO_TOKENS) + usage
                    last.model = last.model or self._model
            return
        if self._current is None and self._opens_turn(kind, payload):
            self._current = self.new_turn(session, f"{session.id}:start", "(before the first prompt)", "", when)
        target = self._current
        if target is None:
            return
        calls = self._pending
        if kind == "response_item" and ptype in CALLS:
            call_id = typed_field(payload, "call_id", kind=str) or typed_field(payload, "id", kind=str) or f"line{lineno}"
            name = typed_field(payload, "name", kind=str) or {"local_shell_call": "shell", "web_search_call": "web_search"}.get(ptype, ptype)
            item = RolloutItem("call", offset, lineno, when, call_id, name=name, status=typed_field(payload, "status", kind=str))
            if ptype != "web_search_call":
                self.counts["function_calls"] += 1
            text = patch_text(payload)
            files = parse_patch(text) if text is not None else []
            item.patch = files or None
            calls[call_id] = item
            target.items.append(item)
        elif kind == "response_item" and ptype in OUTPUTS:
            item = calls.get(str(typed_field(payload, "call_id", kind=str)))
            if item is not None:
                item.output_offset, item.output_at = offset, when
                if item.patch is not None and item.applied is None:
                    item.applied = output_succeeded(payload.get("output"))
        elif kind == "response_item" and ptype == "message" and payload.get("role") == "assistant":
            text = message_text(payload)
            if text.strip():
                target.items.append(RolloutItem("reply", offset, lineno, when, f"line{lineno}", name="reply"))
                target.replies.append((text, when))
        elif kind == "event_msg" and ptype == "patch_apply_end":
            item = calls.get(str(typed_field(payload, "call_id", kind=str)))
            if item is not None:
                item.end_offset = offset
                success = typed_field(payload, "success", kind=bool)
                if success is not None:
                    item.applied = success
        elif kind == "event_msg" and ptype == "item_completed":
            # 0.17x: an applied patch ends as a FileChange item (patch_apply_end before).
            done = payload.get("item")
            item = calls.get(str(done.get("id"))) if isinstance(done, dict) and done.get("type") == "FileChange" else None
            if item is not None:
                item.end_offset = offset
                status = typed_field(done, "status", kind=str)
                if status is not None:
                    item.applied = status == "completed"
        elif kind == "event_msg" and ptype == "turn_diff":
            target.items.append(RolloutItem("turn_diff", offset, lineno, when, f"line{lineno}", name="turn_diff"))
        elif kind == "event_msg" and ptype == "turn_aborted":
            target.items.append(RolloutItem("aborted", offset, lineno, when, f"line{lineno}", name="interrupted"))
        elif kind == "compacted" or (kind == "event_msg" and ptype == "context_compacted"):
            # One compaction is written twice (`compacted` and the `context_compacted` event): one step.
            last = target.items[-1] if target.items else None
            if last is not None and last.kind == "compaction" and (kind == "compacted") != (last.name == "compacted"):
                if kind == "compacted":
                    last.offset, last.line, last.name = offset, lineno, "compacted"
                return
            target.items.append(RolloutItem("compaction", offset, lineno, when, f"line{lineno}",
                                            name="compacted" if kind == "compacted" else "compaction"))

    def _settle(self, session: RolloutSession, path: Path) -> None:
        """Per-turn tokens (each turn: what the cumulative total grew by while it ran, a drop
        being a new baseline): each step has what the total grew by right after it (the
        request that made it); what grew before the turn's first step goes to that step. And
        the applied patches as file changes."""
        if session.turns:
            first_turn = self.turns[session.turns[0]]
            first_turn.grown[0] += self._early[0]
            first_turn.grown[1] += self._early[1]
            first_turn.usage = first_turn.usage + self._early_usage
        for turn_id in session.turns:
            t = self.turns[turn_id]
            if not t.items:
                continue
            first = t.items[0]
            first.tokens_in += max(0, t.grown[0] - sum(i.tokens_in for i in t.items))
            first.tokens_out += max(0, t.grown[1] - sum(i.tokens_out for i in t.items))
            rest = t.usage.minus(sum((i.usage for i in t.items if i.usage is not None), NO_TOKENS))
            if rest:
                first.usage = (first.usage or NO_TOKENS) + rest
                first.model = first.model or t.model
        for turn_id in session.turns:
            t = self.turns[turn_id]
            for item in t.items:
                if item.patch is not None and item.applied:
                    self.counts["patches"] += 1
                    for n, pf in enumerate(item.patch):
                        self.counts["file_changes"] += 1
                        self.changes[f"{session.id}:{item.key}:{n}"] = (t, item, pf, path)

    @staticmethod
    def _opens_turn(kind: str, payload: dict) -> bool:
        """Whether a record before any prompt still deserves a turn of its own."""
        ptype = payload.get("type")
        if kind == "response_item":
            return ptype in CALLS or (ptype == "message" and payload.get("role") == "assistant")
        return kind == "compacted" or ptype in ("turn_diff", "patch_apply_end")

    def new_turn(self, session: RolloutSession, turn_id: str, title: str, prompt: str, when) -> Turn:
        turn = Turn(turn_id, session.id, title, prompt, when)
        self.turns[turn_id] = turn
        session.turns.append(turn_id)
        return turn


_PARSE_STATE = ("_meta", "_unknown", "_read_problems", "_session", "_current", "_pending", "_last_total", "_early",
                "_early_usage", "_model", "_has_events")


def _is_header(lineno: int, rec: dict) -> bool:
    """Whether a record is a rollout's header (session_meta, or an early rollout's first line)."""
    if rec.get("type") == "session_meta":
        return isinstance(rec.get("payload"), dict)
    return lineno == 1 and rec.get("type") is None and ("id" in rec or "instructions" in rec)


def _is_user_event(rec: dict) -> bool:
    payload = rec.get("payload")
    return rec.get("type") == "event_msg" and isinstance(payload, dict) and payload.get("type") == "user_message"


def _has_events(rows: list[tuple[int, int, str, dict, datetime | None]]) -> bool:
    """Whether the rows hold a user_message event (prompts are then read from the events)."""
    return any(kind == "event_msg" and p.get("type") == "user_message" for _l, _o, kind, p, _w in rows)


def _grown(before: dict, after: dict, key: str) -> int:
    """How much a cumulative token count grew since `before`. A total that dropped (Codex
    started counting again mid-rollout) is a new baseline, as ccusage takes it: all of the
    new total grew since the reset."""
    if any(_count(after, k) < _count(before, k) for k in ("input_tokens", "output_tokens", "total_tokens")):
        return _count(after, key)
    return max(0, _count(after, key) - _count(before, key))


def _count(totals: dict, key: str) -> int:
    value = totals.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class RolloutIndex(RecordedRoot[Rollouts]):
    """A set of rollouts, indexed (`Rollouts`); the read model is CodexSource."""

    def build_index(self) -> Rollouts:
        """Each rollout listed now, read only when it changed since the last index; names from
        the home every time."""
        whole = Rollouts()
        titles = codex_titles(self.home, whole.problems)
        self.merge_listed(whole, stat_key, Rollouts.read, Rollouts.read_from)
        for session in list(whole.sessions.values()):  # a copy: the part's session is in the index served now
            whole.sessions[session.id] = replace(session, title=titles.get(session.id))
        whole.counts["sessions"] = len(whole.sessions)
        whole.counts["malformed_lines"] = count_malformed(whole.problems)
        return whole
