"""Claude Code transcripts: `projects/<encoded-cwd>/<sessionId>.jsonl` under the Claude home.

Mapping: a session transcript → a session; each user prompt → a task (a turn); a
sub-agent transcript (`<sessionId>/subagents/agent-<id>.jsonl`, or `agent-<id>.jsonl`
beside the session in 2.0.x) → one task in its parent's session, with a handoff
reference from the turn whose Task/Agent call started it; assistant replies and tool
calls (tool_use paired with its tool_result) → steps; a successful Edit / Write /
MultiEdit → a checkpoint with one entry, whose before-content comes from the result's
`originalFile` or the turn's `file-history` backup and whose after-content is rebuilt
from `structuredPatch` (or Write's `content`).

Transcripts are indexed in one streaming pass that keeps byte offsets, not payloads
(memtui.core.agents.claude_code.transcripts); the read model here re-reads the lines of
steps and entries on demand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memtui.core.model import (
    CheckpointInfo,
    Id,
    MessageInfo,
    Reference,
    SessionInfo,
    StepInfo,
    TaskInfo,
)
from memtui.core.memory_source import UnknownId
from memtui.core.sources.base import ContentUnknown, SourceEntryInfo, files_and_folders, page
from memtui.core.agents.claude_code.transcripts import (
    TranscriptIndex,
    TranscriptItem,
    Transcripts,
    Turn,
    claude_home,
    find_session_transcripts,
    looks_like_transcript,
    session_lister,
    transcript_cwd,
    transcripts_for_workspace,
    workspace_lister,
)
from memtui.core.agents.claude_code.checkpoints import LABEL, SUFFIX, snapshot_contents, snapshot_files
from memtui.core.agents.claude_code.processes import registry, running_sessions, session_status
from memtui.core.agents.claude_code.contents import backups_folder, edit_contents
from memtui.core.agents.claude_code.records import block_text, message_blocks
from memtui.core.agents.claude_code.session_rows import turn_task
from memtui.core.sources.fields import RECORD_ERRORS
from memtui.core.sources.jsonl import read_record_at
from memtui.core.agents.claude_code.session_walk import stored_counts
from memtui.core.paths import stat_key
from memtui.core.sources.timestamps import file_time, parse_time, sort_key
from memtui.core.sources.transcript_undo import UndoRecorder

__all__ = [
    "ClaudeCodeSource",
    "claude_home",
    "find_session_transcripts",
    "looks_like_transcript",
    "session_lister",
    "transcript_cwd",
    "transcripts_for_workspace",
    "workspace_lister",
]


def _blocks(record: dict) -> list[dict]:
    """The content blocks of a re-read line ([] when its shape changed)."""
    try:
        return message_blocks(record)
    except RECORD_ERRORS:
        return []


def _event_text(record: dict) -> str:
    return "\n".join(block_text(b) for b in _blocks(record) if b.get("type") == "text")


def _mtime(path: Path):
    try:
        return file_time(path)
    except OSError:
        return None


_SAVED_TO = re.compile(r"saved to: [^\n]*?[\\/]tool-results[\\/]([^\\/\s]+)")


class ClaudeCodeSource(UndoRecorder, TranscriptIndex):
    """The Claude Code transcripts of one project (or any set of session transcripts)."""

    kind = "claude-code"
    label = "Claude Code"
    resume_argv = ("claude", "--resume")

    def watched_files(self) -> list[Path]:
        """Each transcript as listed now (the next reload's, so a reload that read a new one is
        not taken for another change), its project folder (a new session is a new file there),
        the projects folder (a new project) and the path opened."""
        projects = [self.home / "projects"] if self.home is not None else []
        listed = self.listed_now()
        return [*files_and_folders(listed), *projects, Path(self.path)]

    @classmethod
    def from_path(cls, path: Path) -> "ClaudeCodeSource":
        """A transcript file, a project dir, a projects dir or a Claude home (its sessions listed
        again at each reload)."""
        path = Path(path)
        if path.is_file():
            home = next((p.parent for p in path.parents if p.name == "projects"), None)
            return cls([path], home=home, path=path)
        if (path / "projects").is_dir():
            relist = session_lister(path / "projects")
            return cls(relist(), home=path, path=path, relist=relist)
        home = path.parent if path.name == "projects" else next((p.parent for p in path.parents if p.name == "projects"), None)
        relist = session_lister(path)
        return cls(relist(), home=home, path=path, relist=relist)

    # -- read model ------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        ix = self.index()
        out = []
        running = running_sessions(self.home)  # transcripts record no end: the process registry tells
        kept = registry(self.home) is not None
        for s in ix.sessions.values():
            own = stat_key(s.file)
            if own is None:
                continue  # removed since the index (a cleanup): gone at once, not at the next reload
            created = s.created_at or _mtime(s.file)
            title = s.title or s.prompt_title or s.id
            if s.orphaned:
                title = f"(transcript missing) {title}"
            stored, key = self._stored(ix, s, own)
            out.append(SessionInfo(id=s.id, title=title, status=session_status(str(s.id), running, kept), current_task_id=s.current,
                                   created_at=created, updated_at=s.updated_at or created,
                                   task_count=len(s.turns), stored_bytes=stored, files_key=key))
        return sorted(out, key=lambda x: sort_key(x.updated_at), reverse=True)

    def session_open(self, session_id: Id) -> bool:
        return str(session_id) in running_sessions(self.home)

    def _stored(self, ix: Transcripts, session, own: tuple) -> tuple[int, str]:
        """Bytes and files key (paths.files_key) of the session's files: walked once per index
        while the transcript keeps its stat key `own` (a reload builds a new index)."""
        known = ix.stored.get(session.id)
        if known is None or known[0] != own:
            known = ix.stored[session.id] = (own, stored_counts(session, own))
        return known[1]

    def task_info(self, turn: Turn) -> TaskInfo:
        return turn_task(turn, self.index().sessions.get(turn.session_id))

    def references(self, task_id: Id) -> list[Reference]:
        """Handoffs (either end): the turn that called Task/Agent → the sub-agent's task, and
        the turn a side question was asked during → the side question. And "continues": a
        continued session's first task → the last task of the session it continues."""
        ix = self.index()
        session = self.session_of_task(task_id)
        refs = []
        before = ix.sessions.get(session.predecessor) if session.predecessor else None
        if before is not None and before.turns and session.turns and task_id == session.turns[0]:
            refs.append(Reference(from_task=session.turns[0], to_task=before.turns[-1], kind="continues"))
        return refs + list(ix.handoffs.get(str(task_id), []))

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        ix = self.index()
        turn = self.turn_of(ix, task_id)
        out = []
        for seq, item in enumerate(page(turn.items, offset, limit), start=offset + 1):  # numbered from 1
            out.append(self.step_info(ix, turn, seq, item))
        return out

    def thinking(self, task_id: Id) -> list[MessageInfo]:
        from memtui.core.agents.claude_code.thinking import turn_thinking

        turn = self.turn_of(self.index(), task_id)
        return [MessageInfo(id=f"{turn.id}/thinking{n}", task_id=turn.id, role="thinking", content=text, created_at=when)
                for n, (text, when) in enumerate(turn_thinking(turn))]

    def step_info(self, ix: Transcripts, turn: Turn, seq: int, item: TranscriptItem) -> StepInfo:
        step_id = f"{turn.session_id}:{item.key}"
        rec = read_record_at(item.transcript, item.offset) or {}
        if item.kind == "compact":
            meta = rec.get("compactMetadata") if isinstance(rec.get("compactMetadata"), dict) else None
            return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool="compaction", args=meta,
                            result=item.summary or rec.get("content"), tokens_in=item.tokens_in,
                            tokens_out=item.tokens_out, created_at=item.created_at, model=item.model, usage=item.usage)
        if item.kind == "snapshot":
            files = snapshot_files(ix, turn)
            return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool="checkpoint", args={"files": len(files)},
                            result=f"{len(files)} file(s) as they were before this prompt (Claude Code's file history); "
                                   "rolling this checkpoint back restores them, as /rewind does",
                            created_at=item.created_at, checkpoint_id=step_id)
        if item.kind == "event" and item.is_error:  # an API error the tool retried (or gave up on)
            error = rec.get("error") if isinstance(rec.get("error"), dict) else {}
            detail = error.get("error") if isinstance(error.get("error"), dict) else {}
            text = str(detail.get("message") or rec.get("content") or _event_text(rec) or "API error")
            return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool=item.name, args=None, result=text, status="error",
                            error=text, created_at=item.created_at)
        if item.kind == "event":
            return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool=item.name, args=None, result=_event_text(rec),
                            status="interrupted" if item.name == "interrupt" else "ok", created_at=item.created_at)
        blocks = _blocks(rec)
        block = blocks[item.block] if item.block < len(blocks) else {}
        if item.kind == "reply":
            text = block.get("thinking", "") if item.name == "thinking" else block.get("text", "")
            return StepInfo(id=step_id, task_id=turn.id, seq=seq, tool=item.name or "reply", args=None, result=text,
                            tokens_in=item.tokens_in, tokens_out=item.tokens_out, created_at=item.created_at,
                            model=item.model, usage=item.usage)
        result: Any = None
        duration = None  # no result recorded: how long it took is not known
        if item.result_offset is not None:
            res = read_record_at(item.transcript, item.result_offset) or {}
            for b in _blocks(res):
                if b.get("type") == "tool_result" and b.get("tool_use_id") == item.key:
                    result = b.get("content")
            end = parse_time(res.get("timestamp"))
            if end and item.created_at:
                duration = max(0, int((sort_key(end) - sort_key(item.created_at)) * 1000))
        result = self._persisted(ix, turn, result)
        error = None
        if item.is_error:
            error = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)[:500]
        return StepInfo(
            id=step_id, task_id=turn.id, seq=seq, tool=item.name, args=block.get("input"), result=result,
            status="error" if item.is_error else ("ok" if item.result_offset is not None else "no result"),
            error=error, tokens_in=item.tokens_in, tokens_out=item.tokens_out, duration_ms=duration,
            created_at=item.created_at, checkpoint_id=step_id if item.change else None, model=item.model,
            usage=item.usage,
        )

    @staticmethod
    def _persisted(ix: Transcripts, turn: Turn, result: Any) -> Any:
        """A large output Claude Code saved under `<session>/tool-results/` (the result names
        the file inside `<persisted-output>`, with a 2 KB preview): the whole output, read from
        that file; the recorded result when the file is gone or unreadable."""
        text = result if isinstance(result, str) else None
        if isinstance(result, list) and len(result) == 1 and isinstance(result[0], dict):
            text = result[0].get("text") if isinstance(result[0].get("text"), str) else None
        if text is None or not text.startswith("<persisted-output>"):
            return result
        found = _SAVED_TO.search(text)
        session = ix.sessions.get(turn.session_id)
        if found is None or session is None:
            return result
        folder = session.file.parent if session.orphaned else session.file.with_suffix("")
        try:
            return (folder / "tool-results" / found.group(1)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return result

    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        turn = self.turn_of(self.index(), task_id)
        return [
            CheckpointInfo(id=f"{turn.session_id}:{i.key}", task_id=turn.id, step_id=f"{turn.session_id}:{i.key}",
                           created_at=i.created_at, entry_count=1)
            for i in turn.items if i.change
        ] + self.undo_checkpoints(turn.id)

    def _change(self, ix: Transcripts, checkpoint_id: Id) -> tuple[Turn, TranscriptItem]:
        found = ix.calls.get(str(checkpoint_id))
        if found is None or not found[1].change:
            raise UnknownId(f"no file change {checkpoint_id!r} in {self.path}")
        return ix.turns[found[0]], found[1]

    def _snapshot(self, ix: Transcripts, checkpoint_id: Id) -> Turn:
        """The prompt turn of a "<session>:<prompt uuid>:before" checkpoint."""
        key = str(checkpoint_id)
        turn = ix.turns.get(key.removesuffix(SUFFIX)) if key.endswith(SUFFIX) else None
        if turn is None or not turn.items or turn.items[0].kind != "snapshot":
            raise UnknownId(f"no checkpoint {checkpoint_id!r} in {self.path}")
        return turn

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        """A file change's checkpoint ("<session>:<tool_use id>"), or a prompt's file-history
        checkpoint ("<session>:<prompt uuid>:before": every tracked file before the prompt)."""
        if self.is_undo(checkpoint_id):
            return self.undo_checkpoint(checkpoint_id)
        ix = self.index()
        if str(checkpoint_id).endswith(SUFFIX):
            turn = self._snapshot(ix, checkpoint_id)
            return CheckpointInfo(id=str(checkpoint_id), task_id=turn.id, step_id=str(checkpoint_id),
                                  created_at=turn.created_at, entry_count=len(snapshot_files(ix, turn)), label=LABEL)
        turn, item = self._change(ix, checkpoint_id)
        return CheckpointInfo(id=str(checkpoint_id), task_id=turn.id, step_id=str(checkpoint_id),
                              created_at=item.created_at, entry_count=1)

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        """One entry: of an edit's checkpoint (same id) or of a prompt's ("<checkpoint>:<n>")."""
        if self.is_undo(entry_id):
            return self.undo_entry(entry_id)
        key = str(entry_id)
        if SUFFIX + ":" in key:
            return next((e for e in self.checkpoint_entries(key.rsplit(":", 1)[0]) if e.id == key), None) or self._no(key)
        return self.checkpoint_entries(entry_id)[0]

    def _no(self, entry_id: str):
        raise UnknownId(f"no file change {entry_id!r} in {self.path}")

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        if self.is_undo(checkpoint_id):
            return self.undo_entries(checkpoint_id)
        ix = self.index()
        if str(checkpoint_id).endswith(SUFFIX):
            turn = self._snapshot(ix, checkpoint_id)
            return [self._entry_info(f"{checkpoint_id}:{n}", str(checkpoint_id), f.path, *snapshot_contents(ix, turn, f))
                    for n, f in enumerate(snapshot_files(ix, turn))]
        turn, item = self._change(ix, checkpoint_id)
        return [self._entry_info(str(checkpoint_id), str(checkpoint_id), item.file_path or "", *self._contents(turn, item))]

    def _entry_info(self, entry_id: str, checkpoint_id: str, path: str, before: bytes | None, after: bytes | None,
                    reason: str) -> SourceEntryInfo:
        absent = before is None and not reason
        return SourceEntryInfo(
            id=entry_id, checkpoint_id=checkpoint_id, path=self.relative_to_recorded(path), kind="added" if absent else "modified",
            before_size=len(before) if before is not None else None,
            after_size=len(after) if after is not None else None,
            before_known=before is not None or absent, after_known=after is not None, unknown_reason=reason,
        )

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after) exactly as recorded; None for a side that did not exist (a file
        the edit created). Raises ContentUnknown when the transcript lacks a side."""
        if self.is_undo(entry_id):
            return self.undo_read(entry_id)
        key = str(entry_id)
        ix = self.index()
        if SUFFIX + ":" in key:
            checkpoint_id, n = key.rsplit(":", 1)
            turn = self._snapshot(ix, checkpoint_id)
            files = snapshot_files(ix, turn)
            if not n.isdigit() or int(n) >= len(files):
                self._no(key)
            file = files[int(n)]
            before, after, reason = snapshot_contents(ix, turn, file)
            name = file.path
        else:
            turn, item = self._change(ix, entry_id)
            before, after, reason = self._contents(turn, item)
            name = item.file_path
        if not reason and after is None:  # an edit always leaves a file behind
            reason = "the after-content is not recorded"
        if reason:
            raise ContentUnknown(f"{name}: {reason}")
        return before, after

    def _contents(self, turn: Turn, item: TranscriptItem) -> tuple[bytes | None, bytes | None, str]:
        """(before, after, reason-if-unknown) for one Edit/Write/MultiEdit result."""
        backups = backups_folder(self.home, turn.session_id)
        try:
            return edit_contents(turn, item, backups)
        except RECORD_ERRORS as exc:  # a result of an unexpected shape: its contents are unknown
            return None, None, f"the tool result cannot be read ({exc})"
