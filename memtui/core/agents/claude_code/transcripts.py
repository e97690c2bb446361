"""Claude Code transcripts, parsed: the one streaming pass that indexes them (finding them:
memtui.core.agents.claude_code.transcript_files, which discovery imports alone).

The index keeps byte offsets, not payloads (memtui.core.agents.claude_code.source re-reads lines
on demand); sessions are matched to a workspace by the `cwd` the records carry — never by
decoding the directory name, which is lossy.
"""

from __future__ import annotations

import json
import os
import re
import stat
from functools import partial
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from memtui.core.model import Problem
from memtui.core.agents.claude_code.reader import AGENT_TOOLS, Held, TranscriptReader
from memtui.core.agents.claude_code.session_walk import Signature, entry_stats, walk_keys
from memtui.core.agents.claude_code.tables import TranscriptItem, TranscriptSession, TranscriptTables, Turn
from memtui.core.agents.claude_code.records import block_text, is_compaction_summariser, is_side_question, message_blocks, reply_usage
from memtui.core.usage.tokens import NO_TOKENS
from memtui.core.sources.fields import RECORD_ERRORS, field as typed_field
from memtui.core.sources.jsonl import GrownLines, count_malformed, first_record, iter_records
from memtui.core.paths import stat_key
from memtui.core.sources.cursor import FileCursor, Resumable, resumable
from memtui.core.sources.kept_parts import parser_code
from memtui.core.sources.part_store import dumps, loads
from memtui.core.sources.transcript_root import RecordedRoot
from memtui.core.agents.claude_code.titles import claude_history_titles
from memtui.core.agents.claude_code.session_rows import list_sessions
from memtui.core.agents.claude_code.transcript_files import (claude_home, find_session_transcripts, first_subagent,
                                                             looks_like_transcript, session_lister, transcript_cwd,
                                                             transcripts_for_workspace, workspace_lister)

__all__ = ["TranscriptIndex", "TranscriptItem", "Transcripts", "TranscriptSession", "Turn", "claude_home", "find_session_transcripts",
           "looks_like_transcript", "message_blocks", "session_lister", "transcript_cwd", "transcripts_for_workspace",
           "workspace_lister"]


def _subagent_files(session_file: Path, session_id: str) -> list[Path]:
    """2.1.x `<sessionId>/subagents/agent-*.jsonl`, and 2.0.x `agent-*.jsonl` beside the session."""
    folder = session_file if session_file.is_dir() else session_file.parent / session_file.stem / "subagents"
    found = _agent_files(folder)
    if session_file.is_file():
        for path in _agent_files(session_file.parent):
            if _first_session(path) == session_id:
                found.append(path)
    return found


def _agent_files(folder: Path) -> list[Path]:
    """`sorted(folder.glob("agent-*.jsonl"))` ([] when `folder` is no folder it may list), its
    names matched without pathlib's pattern walk: a session's project folder is listed for each."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if e.name.startswith("agent-") and e.name.endswith(".jsonl")]
    except OSError:
        return []
    return [folder / name for name in sorted(names)]


_first_sessions: dict[Path, tuple[tuple[int, int, int], Any]] = {}


def _first_session(path: Path) -> Any:
    """The `sessionId` of a 2.0.x `agent-*.jsonl` file's first record (None if it has none),
    read once while the file is unchanged (its stat key): each session of a project folder
    looks at every agent file beside it, a folder's sessions × its agent files reads."""
    key = stat_key(path)
    kept = _first_sessions.get(path)
    if key is not None and kept is not None and kept[0] == key:
        return kept[1]
    record = first_record(path)
    session_id = record.get("sessionId") if record else None
    if key is not None:
        _first_sessions[path] = (key, session_id)
    return session_id


def _own_start(path: Path, held: Held) -> str:
    """When a summariser's own part began (its first record the session does not hold), as
    the recorded ISO time; "~" (last) when it has none."""
    for _lineno, _offset, rec in iter_records(path, []):
        uuid = rec.get("uuid")
        if isinstance(uuid, str) and uuid not in held.uuids and isinstance(rec.get("timestamp"), str):
            return rec["timestamp"]
    return "~"


_SESSION_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


@dataclass
class Transcripts(TranscriptTables):
    """Claude Code's index: one session's (a part, read from its files) or the whole store's
    (the parts merged)."""

    @classmethod
    def read(cls, path: Path, home: Path | None) -> "Transcripts":
        """One session's transcript and its sub-agents'."""
        return cls.read_from(path, home, None, keep=False)[0]

    @classmethod
    def read_from(cls, path: Path, home: Path | None, resume: Resumable | None,
                  keep: bool = True) -> tuple["Transcripts", Resumable | None]:
        """One session's transcript and its sub-agents', the transcript's lines parsed on from
        `resume` (its cursor and the reader's state there) when it still holds what was parsed
        then; and, with `keep`, the cursor and state to go on from next time (None: an orphaned
        session's, or not kept).
        The sub-agents' files (small, and read against what the main transcript holds) are read
        whole each time."""
        if path.is_dir():
            part = cls(home=home)
            held = Held()
            session = part._index_session(path, held)
            part._read_subagents(path, session, held)
            return part, None
        from memtui.core.agents.claude_code.lean import LEAN  # msgspec: imported once a file is read, not by a warm open

        state = resumable(resume, path)
        if state is not None:
            part, reader = loads(state)
            if reader.session.id == path.stem and not _SESSION_ID.match(path.stem):
                # Named by no session id and no record carried one yet: a record may now.
                return cls.read_from(path, home, None, keep)
            lines = GrownLines(path, reader.problems, resume.cursor.offset, resume.cursor.lineno, lean=LEAN)
        else:
            part = cls(home=home)
            session = part._new_session(path)
            reader = TranscriptReader(part, path, session, None, Held())
            lines = GrownLines(path, reader.problems, lean=LEAN)
        reader.consume(lines.complete())
        cursor = FileCursor.after(path, lines) if keep else None
        kept = Resumable(cursor, dumps((part, reader))) if cursor is not None else None
        reader.consume(lines.tail())
        reader.finish()
        reader.held.add(reader.own)
        part._read_subagents(path, reader.session, reader.held)
        return part, kept

    def _read_subagents(self, path: Path, session: TranscriptSession, held: Held) -> None:
        """The session's sub-agent transcripts and compaction summarisers, after its transcript."""
        part = self
        summarisers = []
        for sub in _subagent_files(path, session.id):
            if is_compaction_summariser(sub.stem):
                summarisers.append(sub)
            else:
                part._index_transcript(sub, session, subagent=True, held=held)
        # Matched to the main transcript's compactions in the order they ran (file names are random).
        for own_start, sub in sorted((_own_start(sub, held), sub) for sub in summarisers):
            part._summariser(sub, session, held)
        part._link_subagents(session)
        if session.orphaned:
            part._orphan_dates(session)

    def _index_session(self, path: Path, held: Held) -> TranscriptSession:
        """The session a transcript (or an orphaned `subagents` folder) holds. Its id is the
        file's name, as `claude --resume` looks it up: a continued session's first records may
        carry the session it continues (its predecessor). A name that is no session id yields
        to the id the records carry."""
        session = self._new_session(path)
        if session.orphaned:
            session.cwd = transcript_cwd(path)
            self.problems.append(Problem(str(path.parent), None,
                                          "the session transcript is missing; only its sub-agent transcripts are left"))
        else:
            self._index_transcript(path, session, subagent=False, held=held)
        return session

    def _new_session(self, path: Path) -> TranscriptSession:
        """The session of a transcript (or orphaned `subagents` folder), its lines not read yet."""
        orphaned = path.is_dir()
        name = path.parent.name if orphaned else path.stem
        record = first_record(first_subagent(path) if orphaned else path, max_lines=40,
                              where=lambda r: isinstance(r.get("sessionId"), str))
        session_id = name
        if record is not None and not _SESSION_ID.match(name):
            session_id = record["sessionId"]
        session = TranscriptSession(session_id, path, orphaned=orphaned)
        self.sessions[session_id] = session
        return session

    def _orphan_dates(self, session: TranscriptSession) -> None:
        times = [i.created_at for t in session.turns for i in self.turns[t].items if i.created_at]
        times += [self.turns[t].created_at for t in session.turns if self.turns[t].created_at]
        if times:
            session.created_at, session.updated_at = min(times), max(times)

    def _index_transcript(self, path: Path, session: TranscriptSession, *, subagent: bool, held: Held) -> None:
        """Read one transcript of the session; a sub-agent's becomes a turn of its own. What an
        earlier transcript holds is skipped (`held`), and what this one adds is held next."""
        turn = None
        if subagent:
            agent_id = path.stem.removeprefix("agent-")
            meta = self._agent_meta(path)
            side = is_side_question(path.stem)
            turn = self.new_turn(session, path, f"{session.id}:agent-{agent_id}", None,
                                  typed_field(meta, "description", kind=str) or ("side question" if side else f"sub-agent {agent_id}"),
                                  None)
            turn.agent_id = agent_id
            turn.side_question = side
            turn.parent_call = typed_field(meta, "toolUseId", kind=str)
        reader = TranscriptReader(self, path, session, turn, held)
        reader.read()
        if turn is not None and reader.copied:
            turn.branch_from = held.turn_of.get(reader.branch_parent or "")
            if not turn.items and not turn.prompt:  # a fork with nothing of its own
                session.turns.remove(turn.id)
                del self.turns[turn.id]
        held.add(reader.own)

    def _agent_meta(self, path: Path) -> dict:
        """A sub-agent's `.meta.json` (description, toolUseId), {} when absent or unreadable."""
        meta_file = path.with_name(path.stem + ".meta.json")
        if not meta_file.is_file():
            return {}
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8", errors="replace"))
        except (OSError, json.JSONDecodeError, RecursionError):
            self.problems.append(Problem(str(meta_file), None, "malformed JSON, ignored"))
            return {}
        return meta if isinstance(meta, dict) else {}

    def _summariser(self, path: Path, session: TranscriptSession, held: Held) -> None:
        """Attach a compaction summariser's transcript to the session's next unclaimed
        compaction step: its tokens and its summary are that step's. A 2.1.8x summariser
        forks the whole conversation first: only the replies the session lacks are its own."""
        problems: list[Problem] = []
        replies: dict = {}
        summary = ""
        summariser_model = ""
        for lineno, _offset, rec in iter_records(path, problems):
            try:
                if typed_field(rec, "type", kind=str) != "assistant" or typed_field(rec, "uuid", kind=str) in held.uuids:
                    continue
                key, tokens, model = reply_usage(rec)
                if key[0] in held.messages:
                    continue
                replies[key] = replies.get(key, NO_TOKENS).largest(tokens)
                summariser_model = model or summariser_model
                texts = [block_text(b) for b in message_blocks(rec) if b.get("type") == "text"]
                summary = "\n".join(t for t in texts if t.strip()) or summary
            except RECORD_ERRORS as exc:
                problems.append(Problem(str(path), lineno, f"{exc}; line skipped"))
        self.problems.extend(problems)
        pending = [i for i in self.compactions.get(session.id, []) if i.summariser is None]
        if pending:
            item = pending[0]
        else:  # no compaction left to claim it (its main transcript is gone): a step of its own
            turn = self.new_turn(session, path, f"{session.id}:{path.stem}", None, "compaction summary", None)
            item = TranscriptItem("compact", path, 0, 1, None, f"{path.stem}:compact", name="compaction")
            turn.items.append(item)
        item.summariser = path
        item.summary = summary
        item.usage = sum(replies.values(), NO_TOKENS)
        item.model = summariser_model
        item.tokens_in, item.tokens_out = item.usage.prompt, item.usage.output

    def _link_subagents(self, session: TranscriptSession) -> None:
        """Find the Task/Agent call that started each sub-agent: by the `.meta.json`
        toolUseId, the result's agentId, or (2.0.x) the identical prompt."""
        calls = [item for tid, item in self.calls.values()
                 if self.turns[tid].session_id == session.id and item.name in AGENT_TOOLS]
        for turn_id in session.turns:
            child = self.turns[turn_id]
            if child.agent_id is None or child.parent_call is not None:
                continue
            child.parent_call = self.agent_calls.get((session.id, child.agent_id))
            if child.parent_call is None and child.prompt:
                match = next((c for c in calls if c.agent_prompt and c.agent_prompt.strip() == child.prompt.strip()), None)
                child.parent_call = match.key if match else None

def read_listed(path: Path, home: Path | None) -> Transcripts:
    """One session's part, its listing filled in."""
    return list_sessions(Transcripts.read(path, home))


def grown_listed(path: Path, resume: Resumable | None, keep: bool, home: Path | None) -> tuple[Transcripts, Resumable | None]:
    """One session's part parsed on from `resume`, its listing filled in; its cursor (if `keep`)."""
    part, kept = Transcripts.read_from(path, home, resume, keep)
    return list_sessions(part), kept


class TranscriptIndex(RecordedRoot[Transcripts]):
    """A set of transcripts, indexed (`Transcripts`); the read model is ClaudeCodeSource."""

    def sessions_inputs(self, files: list[Path]) -> Iterator[str]:
        """What the sessions listed from `files` are read from (`sessions_key`): the parser's
        code; each transcript (or orphaned `subagents` folder) and every file under its session
        folder (sub-agents, tool results: a session's size and files key count them), the
        2.0.x `agent-*.jsonl` files beside it, with their stat keys; `history.jsonl`'s (the
        titles of untitled sessions). Stat calls only: nothing is read."""
        yield parser_code(Transcripts)
        beside: set[str] = set()
        for path in files:
            text = str(path)
            try:
                st = os.stat(text)
            except OSError:
                yield f"{text}\0-"
                continue
            yield f"{text}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}"
            folder = text if stat.S_ISDIR(st.st_mode) else os.path.splitext(text)[0]  # a dir: only its sub-agents are left
            yield from (f"{inside}\0{key}" for inside, key in walk_keys(folder))
            parent = os.path.dirname(text)
            if parent not in beside and not stat.S_ISDIR(st.st_mode):
                beside.add(parent)
                yield from (f"{os.path.join(parent, name)}\0{key}" for name, key in entry_stats(parent, ".jsonl", "agent-"))
        if self.home is not None:
            yield f"history\0{stat_key(self.home / 'history.jsonl')}"

    def build_index(self) -> Transcripts:
        """Each transcript listed now, read only when it or its sub-agents' files changed since
        the last index."""
        whole = Transcripts(home=self.home)
        signature = Signature()
        # partials, not closures: a worker process can run them (memtui.core.sources.part_pool)
        self.merge_listed(whole, signature, partial(read_listed, home=self.home), partial(grown_listed, home=self.home))
        for session in whole.sessions.values():  # their bytes and files keys from the walk just made
            stored = signature.stored_of(session)
            if stored is not None:
                whole.stored[session.id] = stored
        untitled = [s for s in whole.sessions.values() if not s.title]
        for session_id, title in claude_history_titles(self.home, untitled, whole.problems).items():
            whole.sessions[session_id] = replace(whole.sessions[session_id], title=title)  # the part's is served now
        whole.counts["sessions"] = len(whole.sessions)
        whole.counts["malformed_lines"] = count_malformed(whole.problems)
        return whole
