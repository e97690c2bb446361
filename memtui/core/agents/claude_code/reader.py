"""One streaming pass over one Claude Code transcript: its turns and their steps, as offsets.

A turn opens at a prompt someone typed, or at a slash command the model then answers.
Everything else a user line can be — an interrupt, a background-task notification, a
command's output, injected context — is an event step of the turn it happened in.
Inline sub-agents (`isSidechain` lines of a 1.0.x main transcript) become sub-agent turns
of their own, found again through their `parentUuid` chain. Each line is handled alone:
one of an unexpected shape is reported (file, line, what was wrong) and the pass goes on.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from memtui.core.model import Problem
from memtui.core.paths import recorded_folder
from memtui.core.sources.base import preview
from memtui.core.agents.claude_code.branches import superseded_prompts
from memtui.core.agents.claude_code.checkpoints import add_checkpoint_steps
from memtui.core.agents.claude_code.records import (IGNORED_TYPES, READ_TYPES, UserLine, classify_user, message_blocks,
                                                   reply_usage, side_question)
from memtui.core.usage.tokens import NO_TOKENS
from memtui.core.sources.fields import RECORD_ERRORS, field
from memtui.core.sources.jsonl import iter_records, unknown_type_problems
from memtui.core.sources.timestamps import parse_time
from memtui.core.agents.claude_code.tables import TranscriptItem, TranscriptSession, TranscriptTables, Turn

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})
AGENT_TOOLS = frozenset({"Task", "Agent"})
CONVERSATION = frozenset({"user", "assistant", "system", "attachment", "progress"})
EVENT_STEPS = frozenset({"interrupt", "notification", "command output", "shell"})
SYNTHETIC = "<synthetic>"
"""The model Claude Code names on a reply it wrote itself ("No response requested." after a
local command, an API error it gave up on): shown as its notice, never as the model's reply."""


def _text(rec: dict, key: str) -> str | None:
    """`field(rec, key, kind=str)`, the common case first."""
    value = rec.get(key)
    return value if value is None or value.__class__ is str else field(rec, key, kind=str)


def _iso_time(stamp: str) -> datetime | None:
    """`parse_time(stamp)`, the common case first: ISO text in UTC, as Claude Code writes it."""
    try:
        parsed = datetime.fromisoformat(stamp)
    except ValueError:
        return parse_time(stamp)
    return parsed if parsed.tzinfo is timezone.utc else parse_time(stamp)


class Held:
    """What a session's transcripts read so far hold: a record belongs to the first transcript
    that holds it (by `uuid`; a reply by `message.id`; a tool call by its `tool_use` id). A
    2.1.8x compaction summariser or side question forks the whole conversation into its own
    file; only what the main transcript lacks is the fork's own."""

    def __init__(self) -> None:
        self.uuids: set[str] = set()
        self.messages: set[str] = set()
        self.tools: set[str] = set()
        self.turn_of: dict[str, str] = {}  # a main record's uuid → the turn it is in (a fork's branch point)

    def add(self, other: "Held") -> None:
        self.uuids |= other.uuids
        self.messages |= other.messages
        self.tools |= other.tools
        self.turn_of.update(other.turn_of)


class TranscriptReader:
    """Reads one transcript into `index` (a TranscriptTables); `turn` is the open main turn.
    `held`: what the session's transcripts read before this one hold (their records are
    skipped here: a fork's copies); `own` collects what this one adds."""

    def __init__(self, index: "TranscriptTables", path: Path, session: "TranscriptSession", turn: "Turn | None",
                 held: Held | None = None) -> None:
        self.index, self.path, self.session = index, path, session
        self.subagent = turn is not None
        self.turn = turn
        self.held = held or Held()
        self.own = Held()
        self.copied = 0  # records skipped as another transcript's
        self.branch_parent: str | None = None  # the parent of this file's first own record
        self.session_ids_seen = False
        self.problems: list[Problem] = []
        self.parents: dict[str, str | None] = {}
        self.order: dict[str, int] = {}
        self.side_turns: dict[str, Turn] = {}  # uuid of an inline sidechain line → its sub-agent turn
        self.replies: dict[tuple[Any, Any], list] = {}  # reply key → [item or None, tokens in, tokens out, first line]
        self.pending_command: tuple[int, int, Any, str, str | None] | None = None
        self.snapshots: dict[str, dict[str, str | None]] = {}
        self.prompt_turns: dict[str, Turn] = {}
        self.titles: dict[str, str] = {}
        self.summaries: list[tuple[str, str]] = []
        self.unknown: dict[str, list[int]] = {}  # record type memtui does not know → its lines
        self.names: dict[str, str] = {}  # each uuid seen, as one string object

    # -- the pass ------------------------------------------------------------------------------
    def read(self) -> None:
        from memtui.core.agents.claude_code.lean import LEAN  # msgspec: imported once a file is read, not by a warm open

        self.consume(iter_records(self.path, self.problems, LEAN))
        self.finish()

    def consume(self, records: Iterable[tuple[int, int, Any]]) -> None:
        """Read (line number, offset, record) triples: the file's lines, or the lines it grew by
        since a kept state of this reader (memtui.core.sources.cursor)."""
        record, own, names, link = self._record, self.own, self.names, self._link
        main = not self.subagent
        for lineno, offset, rec in records:
            rtype = rec.get("type")
            try:
                # A progress or attachment line (most of a transcript's) of the usual shape is a
                # link of the uuid chain alone: read as `_record` reads it, without its walk.
                if (rtype != "progress" and rtype != "attachment") or not link(lineno, rec, main):
                    record(lineno, offset, rec)
            except RECORD_ERRORS as exc:
                self.problems.append(Problem(str(self.path), lineno, f"{exc}; line skipped"))
            if self.turn is not None and main:
                uuid = rec.get("uuid")
                if uuid.__class__ is str and uuid in own.uuids:
                    own.turn_of[names.get(uuid, uuid)] = self.turn.id

    def _link(self, lineno: int, rec: dict, main: bool) -> bool:
        """A progress or attachment line read as `_record` reads it, when each field it reads is
        of the type expected (else False, nothing read: `_record` reads the line)."""
        stamp = rec.get("timestamp")
        sidechain = rec.get("isSidechain", False)
        uuid = rec.get("uuid")
        parent = rec.get("parentUuid")
        if not ((stamp is None or stamp.__class__ is str) and sidechain.__class__ is bool
                and (uuid is None or uuid.__class__ is str) and (parent is None or parent.__class__ is str)):
            return False
        if not parent:
            logical = rec.get("logicalParentUuid")
            if logical is not None and logical.__class__ is not str:
                return False
            parent = parent or logical
        if main and not sidechain:
            session_id, cwd = rec.get("sessionId"), rec.get("cwd")
            if (session_id is not None and session_id.__class__ is not str) or (cwd is not None and cwd.__class__ is not str):
                return False
            self._session_line(session_id, cwd, _iso_time(stamp) if stamp is not None else None)
        names = self.names
        if uuid is not None:
            uuid = names.setdefault(uuid, uuid)
        if parent is not None:
            parent = names.setdefault(parent, parent)
        if uuid is not None and uuid in self.held.uuids:
            self.copied += 1
        elif uuid:
            self.own.uuids.add(uuid)
            self.parents[uuid] = parent
            self.order[uuid] = lineno
        return True

    def _session_line(self, session_id: str | None, cwd: str | None, when: datetime | None) -> None:
        """What a line of the main conversation tells of its session: the session id it carries
        first (another's: the session this one continues), the folder it started in (a later
        `cd` moves no project), when it began and when it was last written."""
        session = self.session
        if session_id and not self.session_ids_seen:
            self.session_ids_seen = True
            if session_id != session.id:
                session.predecessor = session_id
        if cwd and session.cwd is None:
            session.cwd = recorded_folder(cwd)
        if when is not None:
            session.created_at = session.created_at or when
            session.updated_at = when

    def finish(self) -> None:
        """Settle what the lines read leave open (a pending command, titles, rewound prompts,
        checkpoints) and hand the problems to the index: after the last line."""
        self._settle_command()
        if self.unknown:
            counts = self.index.counts
            counts["unknown_records"] = counts.get("unknown_records", 0) + sum(map(len, self.unknown.values()))
            self.problems += unknown_type_problems(self.path, self.unknown)
        self._thinking_only_replies()
        if not self.subagent:
            uuids = set(self.order)
            trusted = [s for s, leaf in self.summaries if leaf in uuids]
            self.session.title = self.titles.get("custom") or self.titles.get("ai") or self.titles.get("agent") or (trusted[-1] if trusted else None)
            prompts = {t.uuid: t for t in self.session_turns() if t.uuid and t.agent_id is None}
            for uuid in superseded_prompts(self.parents, self.order, set(prompts) - self._resent(prompts)):
                prompts[uuid].superseded = True
            add_checkpoint_steps(self.index, self.session)
        self.index.problems.extend(self.problems)

    def _resent(self, prompts: dict[str, "Turn"]) -> set[str]:
        """Prompts interrupted and then sent again word for word under the same parent: both
        are real prompts, and the second is no rewind of the first's work."""
        out = set()
        for uuid, turn in prompts.items():
            last = turn.items[-1] if turn.items else None
            if last is None or (last.kind, last.name) != ("event", "interrupt"):
                continue
            parent = self.parents.get(uuid)
            if any(self.parents.get(other) == parent and self.order.get(other, 0) > self.order.get(uuid, 0)
                   and again.prompt == turn.prompt for other, again in prompts.items()):
                out.add(uuid)
        return out

    def session_turns(self) -> list["Turn"]:
        return [self.index.turns[t] for t in self.session.turns]

    def _record(self, lineno: int, offset: int, rec: dict) -> None:
        # Each field read as `field` reads it, the common case (present, of the type expected)
        # without its typed walk: a cold index build reads every line of a home here.
        rtype = rec.get("type")
        if rtype.__class__ is not str:
            rtype = field(rec, "type", kind=str, default="")
        stamp = rec.get("timestamp")
        when = _iso_time(stamp) if stamp.__class__ is str else parse_time(field(rec, "timestamp", kind=(str, int, float)))
        sidechain = rec.get("isSidechain", False)
        if sidechain.__class__ is not bool:
            sidechain = field(rec, "isSidechain", kind=bool, default=False)
        if not self.subagent and not sidechain:
            session_id = rec.get("sessionId")
            if session_id is not None and session_id.__class__ is not str:
                session_id = field(rec, "sessionId", kind=str)
            cwd = rec.get("cwd")
            if cwd is not None and cwd.__class__ is not str:
                cwd = field(rec, "cwd", kind=str)
            self._session_line(session_id, cwd, when)
        uuid = rec.get("uuid")
        if uuid is not None and uuid.__class__ is not str:
            uuid = field(rec, "uuid", kind=str)
        parent = rec.get("parentUuid")
        if parent is not None and parent.__class__ is not str:
            parent = field(rec, "parentUuid", kind=str)
        parent = parent or _text(rec, "logicalParentUuid")
        # One string per uuid (each is a key of several tables, and a parent): a kept state of
        # this reader (memtui.core.sources.cursor) pickles each once, a third of its size.
        names = self.names
        if uuid is not None:
            uuid = names.setdefault(uuid, uuid)
        if parent is not None:
            parent = names.setdefault(parent, parent)
        held = self.held
        if uuid is not None and uuid in held.uuids:
            self.copied += 1
            return
        if rtype == "assistant":  # a reply an earlier transcript holds by its message id (a fork's copy)
            message = rec.get("message")
            message_id = message.get("id") if message.__class__ is dict else None
            if (message_id is not None and message_id.__class__ is not str) or (message is not None and message.__class__ is not dict):
                message_id = field(rec, "message", "id", kind=str)
            if message_id is not None and message_id in held.messages:
                self.copied += 1
                return
        if uuid:
            self.own.uuids.add(uuid)
            if self.branch_parent is None and rtype in ("user", "assistant"):
                self.branch_parent = parent or ""
        if uuid and rtype in CONVERSATION:
            self.parents[uuid] = parent
            self.order[uuid] = lineno
        if rtype == "progress" or rtype == "attachment":
            return  # links of the uuid chain alone (most of a transcript's lines): nothing more to read
        target = self.turn
        if sidechain and not self.subagent and rtype in ("user", "assistant"):
            target = self._side_turn(uuid, parent, rec, when)
            if target is None:
                return
        if rtype and rtype not in READ_TYPES and rtype not in IGNORED_TYPES:
            self.unknown.setdefault(rtype, []).append(lineno)
            return
        if rtype == "assistant":
            if not sidechain and self.pending_command is not None:
                self._settle_command(answered=True)
            self._assistant(rec, lineno, offset, when, target if target is not None else self._open_turn(when))
        elif rtype == "user":
            self._user(rec, lineno, offset, when, uuid, target, sidechain)
        elif rtype == "summary":
            summary = field(rec, "summary", kind=str)
            if summary:
                self.summaries.append((summary, str(field(rec, "leafUuid", kind=str))))
        elif rtype == "ai-title":
            self.titles["ai"] = field(rec, "aiTitle", kind=str) or self.titles.get("ai", "")
        elif rtype == "agent-name":
            self.titles["agent"] = field(rec, "agentName", kind=str) or self.titles.get("agent", "")
        elif rtype == "custom-title":
            self.titles["custom"] = field(rec, "customTitle", kind=str) or self.titles.get("custom", "")
        elif rtype == "file-history-snapshot":
            self._snapshot(rec)
        elif rtype == "file-history-delta":
            self._delta(rec)
        elif rtype == "system" and field(rec, "subtype", kind=str) == "api_error":
            self._settle_command()
            target = target if target is not None else self._open_turn(when)
            target.items.append(self._item("event", offset, lineno, when, f"{lineno}:event", name="api error", is_error=True))
        elif rtype == "system" and field(rec, "subtype", kind=str) == "local_command":
            # A local command's output as a system line (2.1.1xx+; the CLI may then write its own
            # "No response requested."): the command ran without the model and opened no turn.
            self._settle_command()
        elif rtype == "system" and field(rec, "subtype", kind=str) == "compact_boundary":
            self._settle_command()
            item = self._item("compact", offset, lineno, when, f"{lineno}:compact", name="compaction")
            self._open_turn(when).items.append(item)
            self.turn.compacted = True
            if not self.subagent:  # a sub-agent's own compaction has no summariser file
                self.index.compactions.setdefault(self.session.id, []).append(item)

    def _open_turn(self, when) -> "Turn":
        if self.turn is None:
            self.turn = self.index.new_turn(self.session, self.path, f"{self.session.id}:start", None, "(before the first prompt)", when)
        return self.turn

    def _item(self, kind: str, offset: int, lineno: int, when, key: str, **extra) -> "TranscriptItem":
        return TranscriptItem(kind, self.path, offset, lineno, when, key, **extra)

    # -- user lines ----------------------------------------------------------------------------
    def _user(self, rec: dict, lineno: int, offset: int, when, uuid: str | None, target: "Turn | None", sidechain: bool) -> None:
        if "toolUseResult" in rec:  # tool results, as classify_user finds first
            self._results(rec, offset)
            return
        line = classify_user(rec)
        if line.kind == "results":
            self._results(rec, offset)
            return
        if self.subagent or sidechain:
            question = side_question(line.text) if target is not None and target.side_question else None
            if question is not None:
                line = UserLine("prompt", question)
            if line.kind == "prompt" and target is not None and not target.prompt:
                target.prompt = line.text
                target.created_at = target.created_at or when
                if target.title.startswith(("sub-agent", "side question")):
                    target.title = preview(line.text)
            elif line.kind in EVENT_STEPS and target is not None:
                target.items.append(self._item("event", offset, lineno, when, f"{lineno}:event", name=line.kind))
            return
        if line.kind == "command":
            self._settle_command()
            self.pending_command = (lineno, offset, when, line.text, uuid)
            return
        if line.kind == "command output" and self.pending_command is not None:
            self._settle_command()  # a local command: it ran, printed, and no turn began
        elif line.kind == "meta" and self.pending_command is not None and field(rec, "isMeta", kind=bool, default=False):
            self._settle_command(answered=True)  # a custom command expands into a meta prompt
            return
        if line.kind == "prompt":
            self._settle_command()
            self._new_prompt(line.text, uuid, lineno, offset, when)
        elif line.kind in EVENT_STEPS:
            self._open_turn(when).items.append(self._item("event", offset, lineno, when, f"{lineno}:event", name=line.kind))

    def _new_prompt(self, text: str, uuid: str | None, lineno: int, offset: int, when, *, command: bool = False) -> None:
        self.index.counts["prompts"] += 1
        self.turn = self.index.new_turn(self.session, self.path, f"{self.session.id}:{uuid or lineno}", uuid, preview(text), when)
        self.turn.prompt, self.turn.line, self.turn.offset = text, lineno, offset
        self.turn.command = command
        if uuid:
            self.prompt_turns[uuid] = self.turn
            if uuid in self.snapshots:
                self.index.merge_backups(self.turn, self.snapshots[uuid], self.session.cwd)

    def _settle_command(self, *, answered: bool = False) -> None:
        """Decide what the pending slash command was: a prompt when the model answers it,
        otherwise a step of the current turn."""
        if self.pending_command is None:
            return
        lineno, offset, when, text, uuid = self.pending_command
        self.pending_command = None
        if answered:
            self._new_prompt(text, uuid, lineno, offset, when, command=True)
        else:
            self._open_turn(when).items.append(self._item("event", offset, lineno, when, f"{lineno}:event", name="command"))

    def _side_turn(self, uuid: str | None, parent: str | None, rec: dict, when) -> "Turn | None":
        """The sub-agent turn an inline sidechain line belongs to (a root line opens one)."""
        turn = self.side_turns.get(parent or "")
        if turn is None and parent is None:
            n = len(self.side_turns)
            turn = self.index.new_turn(self.session, self.path, f"{self.session.id}:sidechain-{uuid or n}", None, "sub-agent (inline)", when)
            turn.agent_id = f"inline-{(uuid or str(n))[:8]}"
        if turn is not None and uuid:
            self.side_turns[uuid] = turn
        return turn

    def _results(self, rec: dict, offset: int) -> None:
        result = rec.get("toolUseResult")
        for block in message_blocks(rec):
            # Each field read as `field` reads it, the common case (of the type expected) inline.
            tool_use_id, btype = block.get("tool_use_id"), block.get("type")
            if tool_use_id is not None and tool_use_id.__class__ is not str:
                tool_use_id = field(block, "tool_use_id", kind=str)
            if btype is not None and btype.__class__ is not str:
                btype = field(block, "type", kind=str)
            if btype != "tool_result" or tool_use_id is None or tool_use_id in self.held.tools:
                continue
            found = self.index.calls.get(f"{self.session.id}:{tool_use_id}")
            if found is None:
                continue
            item = found[1]
            item.result_offset = offset
            is_error = block.get("is_error")
            item.is_error = False if is_error is None else is_error if is_error.__class__ is bool else field(
                block, "is_error", kind=bool, default=False)
            file_path = None
            if isinstance(result, dict):
                file_path = result.get("filePath")
                if file_path is not None and file_path.__class__ is not str:
                    file_path = field(result, "filePath", kind=str)
            if result is None and item.name in EDIT_TOOLS:
                # A sub-agent's result carries no toolUseResult (2.1.1xx-3xx): the call names the file.
                file_path = item.file_path
            if item.name in EDIT_TOOLS and not item.is_error and file_path:
                item.change = True
                item.file_path = file_path
                self.index.counts["file_changes"] += 1
            agent_id = field(result, "agentId", kind=str) if isinstance(result, dict) else None
            if item.name in AGENT_TOOLS and agent_id:
                self.index.agent_calls[(self.session.id, agent_id)] = item.key

    # -- assistant lines -----------------------------------------------------------------------
    def _assistant(self, rec: dict, lineno: int, offset: int, when, turn: "Turn") -> None:
        key, tokens, model = reply_usage(rec)
        if key[0] is None and key[1] is None:
            key = ("line", lineno)
        if key[0] is not None:
            self.own.messages.add(key[0])
        reply = self.replies.get(key)
        if reply is None:
            reply = self.replies[key] = [None, NO_TOKENS, "", (offset, lineno, when, turn)]
        reply[1], reply[2] = reply[1].largest(tokens), model or reply[2]
        message = rec.get("message")  # its blocks as message_blocks reads them, the common case first
        blocks = message.get("content") if message.__class__ is dict else None
        if blocks.__class__ is not list:
            blocks = message_blocks(rec)
        index = -1
        for block in blocks:
            if not isinstance(block, dict):
                continue
            index += 1
            btype = block.get("type")
            if btype is not None and btype.__class__ is not str:
                btype = field(block, "type", kind=str)
            if btype == "tool_use":
                tool_id = _text(block, "id")
                if tool_id is None or tool_id in self.held.tools:
                    continue
                self.own.tools.add(tool_id)
                args = block.get("input")
                if args.__class__ is not dict:
                    args = field(block, "input", kind=dict, default={})
                self.index.counts["tool_calls"] += 1
                item = TranscriptItem("call", self.path, offset, lineno, when, tool_id, name=_text(block, "name") or "tool",
                                      block=index, file_path=_text(args, "file_path"), agent_prompt=_text(args, "prompt"))
                self.index.calls[f"{self.session.id}:{tool_id}"] = (turn.id, item)
            elif btype == "text" and (_text(block, "text") or "").strip():
                if model == SYNTHETIC:  # Claude Code's own words, not the model's: a notice (or an API error)
                    error = field(rec, "isApiErrorMessage", kind=bool, default=False)
                    item = self._item("event", offset, lineno, when, f"{lineno}:{index}", name="api error" if error else "notice",
                                      is_error=error)
                    turn.items.append(item)
                    continue
                item = TranscriptItem("reply", self.path, offset, lineno, when, f"{lineno}:{index}", name="reply", block=index)
                turn.replies.append((block["text"], when))
            else:
                continue
            turn.items.append(item)
            if reply[0] is None:
                reply[0] = item
        # The reply's first step carries its tokens: the largest snapshot seen so far (set again
        # only when it changed: a reply's lines mostly repeat their counts).
        first, total = reply[0], reply[1]
        if first is not None and (first.usage is not total or first.model != reply[2]):
            first.tokens_in, first.tokens_out, first.usage, first.model = total.prompt, total.output, total, reply[2]

    def _thinking_only_replies(self) -> None:
        """A reply that wrote no text and called no tool (only thinking; it may have hit its
        token limit) still cost its tokens: a "thinking" step at its first line carries them."""
        for reply in self.replies.values():
            item, tokens, model, (offset, lineno, when, turn) = reply
            if item is not None or not tokens:
                continue
            item = self._item("reply", offset, lineno, when, f"{lineno}:thinking", name="thinking",
                              tokens_in=tokens.prompt, tokens_out=tokens.output, usage=tokens, model=model)
            at = next((n for n, other in enumerate(turn.items) if other.transcript == self.path and other.line > lineno),
                      len(turn.items))
            turn.items.insert(at, item)
            reply[0] = item

    # -- file history --------------------------------------------------------------------------
    def _snapshot(self, rec: dict) -> None:
        mid = field(rec, "snapshot", "messageId", kind=str) or field(rec, "messageId", kind=str)
        backups = field(rec, "snapshot", "trackedFileBackups", kind=dict)
        if not mid or backups is None:
            return
        target = self.snapshots.setdefault(mid, {})
        for key, info in backups.items():
            if isinstance(info, dict) and key not in target:
                target[key] = field(info, "backupFileName", kind=str)
        if mid in self.prompt_turns:
            self.index.merge_backups(self.prompt_turns[mid], self.snapshots[mid], self.session.cwd)

    def _delta(self, rec: dict) -> None:
        """One file newly tracked in a prompt's snapshot (2.1.3xx writes these instead of
        re-writing the snapshot): its backup from before the first edit, None if it did not exist."""
        mid = field(rec, "snapshotMessageId", kind=str)
        path = field(rec, "trackingPath", kind=str)
        if not mid or not path:
            return
        target = self.snapshots.setdefault(mid, {})
        if path not in target:
            target[path] = field(rec, "backup", "backupFileName", kind=str)
        if mid in self.prompt_turns:
            self.index.merge_backups(self.prompt_turns[mid], self.snapshots[mid], self.session.cwd)
