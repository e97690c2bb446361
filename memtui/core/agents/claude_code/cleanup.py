"""Inventory of a Claude Code home (`$CLAUDE_CONFIG_DIR` or `~/.claude`).

A session's files: `projects/<encoded cwd>/<id>.jsonl` (the transcript), the folder
`projects/<encoded cwd>/<id>/` (sub-agents, tool results), 2.0.x `agent-*.jsonl` beside the
transcript whose records name the session, `file-history/<id>/`, `session-env/<id>/`,
`tasks/<id>/`, `todos/<id>-*.json` and `debug/<id>.txt`. Only names that are session ids
(UUIDs) are taken as per-session: `tasks/<team>/`, `plans/`, `shell-snapshots/` (shared,
removed by Claude Code itself), `memory/` and everything global stay untouched.
`sessions/<pid>.json` registers running processes: a session named there by a live pid is
running.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memtui.core.cleanup.files import HEAD_BYTES, UUID, short_title, FileInfo, chunk_records, file_info, newest_records, read_head, records_with, walk_files
from memtui.core.cleanup.inventory import Inventory, OrphanRecord, SessionRecord
from memtui.core.cleanup.summaries import SummaryCache
from memtui.core.paths import recorded_folder
from memtui.core.agents.claude_code.records import IDE_CONTEXT, classify_user
from memtui.core.agents.claude_code.processes import running_sessions
from memtui.core.sources.timestamps import parse_time

# Top-level folders holding one sub-folder per session, and what an orphan there is.
SESSION_FOLDERS = {
    "file-history": "file-history backups of a session whose transcript is gone",
    "session-env": "session environment of a session whose transcript is gone",
    "tasks": "task list of a session whose transcript is gone",
}
INJECTED = ("<command-", "<local-command", "[Request interrupted")


def _prompt(record: dict) -> str | None:
    """The text of a prompt someone typed, or None (tool results, injected and meta lines)."""
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary") or "toolUseResult" in record:
        return None
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    content = message.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        texts = [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"]
        typed = [t for t in texts if not t.lstrip().startswith(IDE_CONTEXT)]  # IDE context comes before what was typed
        text = "\n".join(typed or texts)
    else:
        return None
    text = text.strip()
    return text or None


def _command(record: dict, text: str | None) -> str | None:
    """`/name args` of a slash-command line (its text starts `<command-`), else None."""
    if not text or not text.startswith("<command-"):
        return None
    line = classify_user(record)
    return line.text if line.kind == "command" else None


def _blocks(record: dict) -> list[dict]:
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def turn_open(records_newest_first) -> bool:
    """Whether the transcript ends inside a turn: its last main-chain exchange is a prompt
    without a reply, a tool call without its result, or a result without the reply to it."""
    for record in records_newest_first:
        kind = record.get("type")
        if kind not in ("user", "assistant") or record.get("isSidechain") or record.get("isMeta"):
            continue
        if record.get("isCompactSummary"):
            continue
        if kind == "assistant":
            return any(b.get("type") == "tool_use" for b in _blocks(record))
        if any(b.get("type") == "tool_result" for b in _blocks(record)):
            return True
        text = _prompt(record) or ""
        return not text.startswith(INJECTED)
    return False


def read_session(path: Path, session_id: str, info: FileInfo) -> SessionRecord:
    """The session record of one transcript, from its first and last lines only."""
    head = read_head(path)
    cwd = first = prompt = command = None
    for n, record in enumerate(chunk_records(head)):
        if cwd is None and isinstance(record.get("cwd"), str):
            cwd = recorded_folder(record["cwd"])
        if first is None:
            first = parse_time(record.get("timestamp"))
        if prompt is None:
            text = _prompt(record)
            prompt = text if text and not text.startswith(INJECTED) else None
            command = command or _command(record, text)
        if (cwd and first and prompt) or n > 200:
            break
    if prompt is None and len(head) >= HEAD_BYTES - 1:  # a long first prompt: look further
        prompt = next((t for t in map(_prompt, chunk_records(read_head(path, 1 << 20))) if t and not t.startswith(INJECTED)), None)
    prompt = prompt or command  # begun with a slash command and nothing typed: named by it, as browsing does
    last = None
    tail: list[dict] = []
    for record in newest_records(path, info.size):
        tail.append(record)
        last = last or parse_time(record.get("timestamp"))
        if last is not None and record.get("type") in ("user", "assistant") and not record.get("isSidechain") \
                and not record.get("isMeta") and not record.get("isCompactSummary"):
            break
    title = None
    for record in records_with(head, b'-title"') + [r for r in tail if r.get("type") in ("ai-title", "custom-title")]:
        title = record.get("customTitle") or record.get("aiTitle") or title
    if title is None:
        title = next((r["summary"] for r in chunk_records(head[:4096]) if r.get("type") == "summary" and isinstance(r.get("summary"), str)), None)
    title = short_title(title if isinstance(title, str) else prompt or session_id)
    return SessionRecord("claude-code", session_id, cwd, title, [info], first, last or first, turn_open=turn_open(tail))


def cleanup_period_days(home: Path) -> int:
    """Claude Code's `cleanupPeriodDays` from the home's settings.json (default 30): at
    start-up it deletes transcripts whose files are older than this."""
    try:
        value = json.loads((Path(home) / "settings.json").read_text(encoding="utf-8")).get("cleanupPeriodDays")
    except (OSError, ValueError, AttributeError):
        return 30
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 30


def _first_session_id(path: Path) -> str | None:
    for record in chunk_records(read_head(path, 16 * 1024)):
        if isinstance(record.get("sessionId"), str):
            return record["sessionId"]
    return None


def inventory_claude(home: Path, cache: Path | None = None) -> Inventory:
    """Every session of the Claude Code home, with all its files, and the orphans."""
    summaries = SummaryCache(cache, "claude-code", home)
    sessions: dict[str, SessionRecord] = {}
    orphans: list[OrphanRecord] = []

    def orphan(owner: str, path: Path, what: str) -> None:
        if path.is_dir():
            files, dirs = walk_files(path)
        else:
            info = file_info(path)
            files, dirs = ([info] if info else []), []
        if files:
            orphans.append(OrphanRecord("claude-code", owner, path, files, what, dirs))

    projects = home / "projects"
    for project in sorted((p for p in os.scandir(projects) if p.is_dir(follow_symlinks=False)), key=lambda p: p.name) if projects.is_dir() else []:
        entries = sorted(os.scandir(project.path), key=lambda e: e.name)
        local: dict[str, SessionRecord] = {}
        for entry in entries:
            if entry.name.endswith(".jsonl") and not entry.name.startswith("agent-") and entry.is_file(follow_symlinks=False):
                sid = entry.name[: -len(".jsonl")]
                info = file_info(Path(entry.path))
                if info is None or sid in sessions:
                    continue  # a second transcript of one id is left alone
                local[sid] = sessions[sid] = summaries.session(
                    "claude-code", sid, [info], lambda p=Path(entry.path), s=sid, i=info: read_session(p, s, i))
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False) and entry.name in local:
                files, dirs = walk_files(path)
                local[entry.name].files += files
                local[entry.name].dirs += dirs
            elif entry.is_dir(follow_symlinks=False) and UUID.match(entry.name):
                orphan(entry.name, path, "sub-agent transcripts of a session whose transcript is gone")
            elif entry.name.startswith("agent-") and entry.name.endswith(".jsonl"):
                owner = _first_session_id(path)
                info = file_info(path)
                if owner in local and info is not None:
                    local[owner].files.append(info)
                elif owner and info is not None:
                    orphan(owner, path, "sub-agent transcript of a session whose transcript is gone")
    for folder, what in SESSION_FOLDERS.items():
        base = home / folder
        for entry in sorted(os.scandir(base), key=lambda e: e.name) if base.is_dir() else []:
            if not (entry.is_dir(follow_symlinks=False) and UUID.match(entry.name)):
                continue
            if entry.name in sessions:
                files, dirs = walk_files(Path(entry.path))
                sessions[entry.name].files += files
                sessions[entry.name].dirs += dirs
            else:
                orphan(entry.name, Path(entry.path), what)
    for folder, what, owner_of in (
        ("todos", "todo list of a session whose transcript is gone", lambda n: n[:36] if n.endswith(".json") else ""),
        ("debug", "debug log of a session whose transcript is gone", lambda n: n[:-4] if n.endswith(".txt") else ""),
    ):
        base = home / folder
        for entry in sorted(os.scandir(base), key=lambda e: e.name) if base.is_dir() else []:
            owner = owner_of(entry.name)
            if not UUID.match(owner) or not entry.is_file(follow_symlinks=False):
                continue
            info = file_info(Path(entry.path))
            if owner in sessions and info is not None:
                sessions[owner].files.append(info)
            else:
                orphan(owner, Path(entry.path), what)
    summaries.save()
    running = running_sessions(home)
    for session in sessions.values():
        session.running = session.id in running
    return Inventory("claude-code", home, list(sessions.values()), orphans)
