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
from pathlib import Path
from typing import Any

from memtui.core.model import CheckpointInfo, Id, MessageInfo, SessionInfo, StepInfo, TaskInfo
from memtui.core.memory_source import Capability, UnknownId
from memtui.core.sources.base import ContentUnknown, SourceEntryInfo, page
from memtui.core.agents.codex.patches import SHELL_TOOLS, exit_code
from memtui.core.agents.codex.patches import PatchFile, parse_patch
from memtui.core.agents.codex.rollouts import RolloutIndex, Rollouts
from memtui.core.agents.codex.tables import RolloutItem, Turn, turn_task
from memtui.core.agents.codex.rollout_files import message_text, rollout_lister
from memtui.core.sources.jsonl import read_record_at
from memtui.core.sources.kept_parts import session_of, session_rows
from memtui.core.paths import files_key, stat_key
from memtui.core.sources.timestamps import file_time, sort_key
from memtui.core.sources.transcript_undo import UndoRecorder

__all__ = ["CodexSource", "PatchFile", "parse_patch"]


class CodexSource(UndoRecorder, RolloutIndex):
    """The Codex rollouts of one project (or any set of rollout files)."""

    kind = "codex"
    label = "Codex"
    agent_processes = ("codex",)
    resume_argv = ("codex", "resume")

    def watched_files(self) -> list[Path]:
        """Each rollout as listed now (the next reload's, so a reload that read a new one is not
        taken for another change), the day, month and year folders above it (sessions/YYYY/MM/DD)
        and the home's sessions folder: a new session is a new file, perhaps in a new folder."""
        listed = self.listed_now()
        folders = {p for r in listed for p in (r.parent, r.parent.parent, r.parent.parent.parent)}
        if self.home is not None:
            folders.add(self.home / "sessions")
        return [*listed, *sorted(folders), Path(self.path)]

    @classmethod
    def from_path(cls, path: Path) -> "CodexSource":
        path = Path(path)
        home = path if (path / "sessions").is_dir() else next((p.parent for p in path.parents if p.name in ("sessions", "archived_sessions")), None)
        if path.is_file():
            return cls([path], home=home, path=path)
        relist = rollout_lister(path)  # listed again at each reload
        return cls(relist(), home=home, path=path, relist=relist)

    @property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """A transcript store's, and statistics of the SQLite files its home keeps."""
        found = super().capabilities
        return found | {Capability.SQLITE_STATS} if self.sqlite_files() else found

    def sqlite_files(self) -> list[Path]:
        """The SQLite files Codex keeps in its home (state_*, logs_*, thread_history_*, …), for
        `memtui stats` (read-only)."""
        if self.home is None:
            return []
        return sorted(p for p in self.home.glob("*.sqlite") if p.is_file())

    # -- summary ---------------------------------------------------------------------------
    def token_usage(self, session_id: Id) -> dict | None:
        """The session's last cumulative `total_token_usage` (None if never reported)."""
        session = self.index().sessions.get(str(session_id))
        return dict(session.total_tokens) if session and session.total_tokens else None

    # -- read model ------------------------------------------------------------------------
    def sessions(self) -> list[SessionInfo]:
        ix = self.index()
        out = []
        for s in ix.sessions.values():
            if stat_key(s.file) is None:
                continue  # removed since the index (a cleanup): gone at once, not at the next reload
            created = s.created_at or file_time(s.file)
            stored, key = files_key([s.file])
            # status: a rollout records no end of its session, and Codex registers no process
            out.append(SessionInfo(id=s.id, title=s.title or s.prompt_title or s.id, status="unknown",
                                   current_task_id=s.turns[-1] if s.turns else None, created_at=created,
                                   updated_at=s.updated_at or created, task_count=len(s.turns),
                                   stored_bytes=stored, files_key=key))
        return sorted(out, key=lambda x: sort_key(x.updated_at), reverse=True)

    def task_info(self, turn: Turn) -> TaskInfo:
        return turn_task(turn)

    def steps(self, task_id: Id, offset: int = 0, limit: int | None = None) -> list[StepInfo]:
        ix = self.index()
        turn = self.turn_of(ix, task_id)
        path = ix.sessions[turn.session_id].file
        return [self._step(turn, path, seq, item) for seq, item in enumerate(page(turn.items, offset, limit), start=offset + 1)]

    def thinking(self, task_id: Id) -> list[MessageInfo]:
        """The turn's reasoning summaries (Codex keeps the reasoning itself encrypted)."""
        from memtui.core.agents.codex.thinking import turn_reasoning

        ix = self.index()
        turn = self.turn_of(ix, task_id)
        return [MessageInfo(id=f"{turn.id}/thinking{n}", task_id=turn.id, role="thinking", content=text, created_at=when)
                for n, (text, when) in enumerate(turn_reasoning(turn, ix.sessions[turn.session_id].file))]

    def step_info(self, ix: Rollouts, turn: Turn, seq: int, item: RolloutItem) -> StepInfo:
        return self._step(turn, ix.sessions[turn.session_id].file, seq, item)

    def _step(self, turn: Turn, path: Path, seq: int, item: RolloutItem) -> StepInfo:
        rec = read_record_at(path, item.offset) or {}
        payload = rec.get("payload") if isinstance(rec.get("payload"), dict) else rec
        step_id = f"{turn.session_id}:{item.key}"
        common = dict(id=step_id, task_id=turn.id, seq=seq, created_at=item.created_at,
                      tokens_in=item.tokens_in, tokens_out=item.tokens_out, model=item.model, usage=item.usage)
        if item.kind == "reply":
            return StepInfo(tool="reply", args=None, result=message_text(payload), **common)
        if item.kind == "turn_diff":
            return StepInfo(tool="turn_diff", args=None, result=payload.get("unified_diff"), **common)
        if item.kind == "compaction":
            return StepInfo(tool="compaction", args=None, result=payload.get("message"), **common)
        if item.kind == "aborted":
            return StepInfo(tool="interrupted", args=None, result=payload.get("reason"), status="interrupted", **common)
        args: Any = payload.get("arguments", payload.get("input", payload.get("action")))
        if isinstance(args, str) and payload.get("type") == "function_call":
            try:
                args = json.loads(args)
            except (json.JSONDecodeError, RecursionError):
                pass
        result: Any = None
        if item.output_offset is not None:
            out_rec = read_record_at(path, item.output_offset) or {}
            out_payload = out_rec.get("payload") if isinstance(out_rec.get("payload"), dict) else out_rec
            result = out_payload.get("output")
        elif item.name == "web_search":
            result = payload.get("action")  # the search is its own record: query and what was opened
        failed = item.patch is not None and item.applied is False
        code = exit_code(result) if item.patch is None and item.name in SHELL_TOOLS else None
        done = item.output_offset is not None or item.status == "completed"
        duration = None  # no result recorded: how long it took is not known
        if item.output_at is not None and item.created_at is not None:
            duration = max(0, int((sort_key(item.output_at) - sort_key(item.created_at)) * 1000))
        return StepInfo(
            tool=item.name, args=args, result=result,
            status="error" if failed or code else ("ok" if done else "no result"),
            error="patch not applied" if failed else (f"exit code {code}" if code else None), duration_ms=duration,
            checkpoint_id=step_id if item.patch is not None and item.applied else None, **common,
        )

    def checkpoints(self, task_id: Id) -> list[CheckpointInfo]:
        turn = self.turn_of(self.index(), task_id)
        return [CheckpointInfo(id=f"{turn.session_id}:{i.key}", task_id=turn.id, step_id=f"{turn.session_id}:{i.key}",
                               created_at=i.created_at, entry_count=len(i.patch or []))
                for i in turn.items if i.patch is not None and i.applied] + self.undo_checkpoints(turn.id)

    def _relative(self, ix: Rollouts, turn: Turn, path: str) -> str:
        """Patch paths are relative to the session's cwd: make them relative to the
        source's workspace, or absolute when there is no single one."""
        cwd = ix.sessions[turn.session_id].cwd
        absolute = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
        return self.relative_to_recorded(absolute)

    def checkpoint(self, checkpoint_id: Id) -> CheckpointInfo:
        """An applied patch's checkpoint (its id is "<session>:<call id>")."""
        if self.is_undo(checkpoint_id):
            return self.undo_checkpoint(checkpoint_id)
        prefix = f"{checkpoint_id}:"
        for entry_id, (turn, item, _pf, _path) in session_rows(self.index().changes, session_of(checkpoint_id)):
            if entry_id.startswith(prefix):
                return CheckpointInfo(id=str(checkpoint_id), task_id=turn.id, step_id=str(checkpoint_id),
                                      created_at=item.created_at, entry_count=len(item.patch or []))
        raise UnknownId(f"no applied patch {checkpoint_id!r} in {self.path}")

    def entry(self, entry_id: Id) -> SourceEntryInfo:
        """One file of an applied patch ("<session>:<call id>:<n>")."""
        if self.is_undo(entry_id):
            return self.undo_entry(entry_id)
        if str(entry_id) not in self.index().changes:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        checkpoint_id = str(entry_id).rsplit(":", 1)[0]
        return next(e for e in self.checkpoint_entries(checkpoint_id) if e.id == str(entry_id))

    def checkpoint_entries(self, checkpoint_id: Id) -> list[SourceEntryInfo]:
        if self.is_undo(checkpoint_id):
            return self.undo_entries(checkpoint_id)
        ix = self.index()
        out = []
        prefix = f"{checkpoint_id}:"
        for entry_id, (turn, item, pf, path) in session_rows(ix.changes, session_of(checkpoint_id)):
            if not entry_id.startswith(prefix):
                continue
            before, after, reason, diff = self._contents(ix, turn, item, pf, path)
            kind = {"add": "added", "delete": "deleted"}.get(pf.action, "modified")
            out.append(SourceEntryInfo(
                id=entry_id, checkpoint_id=str(checkpoint_id), path=self._relative(ix, turn, pf.move_to or pf.path), kind=kind,
                before_size=len(before) if before is not None else None,
                after_size=len(after) if after is not None else None,
                before_known=kind == "added" or before is not None,
                after_known=kind == "deleted" or after is not None,
                unknown_reason=reason, diff=diff, line_counts=pf.line_counts() if pf.action == "update" else None,
            ))
        return out

    def read_entry(self, entry_id: Id) -> tuple[bytes | None, bytes | None]:
        """(before, after): exact for added files (and deleted ones with recorded content).
        Raises ContentUnknown for what Codex did not record — see the entry's `diff`."""
        if self.is_undo(entry_id):
            return self.undo_read(entry_id)
        ix = self.index()
        found = ix.changes.get(str(entry_id))
        if found is None:
            raise UnknownId(f"no file change {entry_id!r} in {self.path}")
        turn, item, pf, path = found
        before, after, reason, _diff = self._contents(ix, turn, item, pf, path)
        if not reason and ((after is None and pf.action != "delete") or (before is None and pf.action != "add")):
            reason = "Codex did not record this side of the change"
        if reason:
            raise ContentUnknown(f"{pf.path}: {reason}")
        return before, after

    def _contents(self, ix: Rollouts, turn: Turn, item: RolloutItem, pf: PatchFile,
                  path: Path) -> tuple[bytes | None, bytes | None, str, str]:
        change: dict = {}
        if item.end_offset is not None:
            rec = read_record_at(path, item.end_offset) or {}
            payload = rec.get("payload")
            if isinstance(payload, dict) and isinstance(payload.get("item"), dict):  # item_completed (0.17x)
                payload = payload["item"]
            changes = payload.get("changes") if isinstance(payload, dict) else None
            if isinstance(changes, dict):
                cwd = ix.sessions[turn.session_id].cwd or ""
                change = changes.get(pf.path) or changes.get(os.path.join(cwd, pf.path)) or {}
                change = change if isinstance(change, dict) else {}
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
