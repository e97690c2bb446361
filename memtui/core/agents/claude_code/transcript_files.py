"""Finding Claude Code transcripts and reading their first records: where a home keeps them, the
working directory a transcript recorded, whether a file is one. Discovery imports this alone:
looking for a store (an empty project, another agent's home) loads no reader.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Mapping

from memtui.core.paths import recorded_folder
from memtui.core.sources.folders import Folders, recorded_in
from memtui.core.sources.jsonl import first_record

__all__ = ["claude_home", "find_session_transcripts", "first_subagent", "looks_like_transcript", "session_lister",
           "transcript_cwd", "transcripts_for_workspace", "workspace_lister"]


def claude_home(env: Mapping[str, str] | None = None) -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    value = (os.environ if env is None else env).get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path("~/.claude").expanduser()


def first_subagent(path: Path) -> Path | None:
    """A session folder's first sub-agent transcript (for a session whose main file is gone)."""
    return next(iter(sorted(path.glob("agent-*.jsonl"))), None) if path.is_dir() else None


def transcript_cwd(path: Path, max_lines: int = 40) -> str | None:
    """The `cwd` recorded in the first records of a transcript (None if none); for a
    `subagents` folder, the cwd its first sub-agent recorded."""
    path = first_subagent(path) or path
    record = first_record(path, max_lines, where=lambda r: isinstance(r.get("cwd"), str))
    return recorded_folder(record["cwd"]) if record else None


def looks_like_transcript(path: Path) -> bool:
    """Whether a file opens as a Claude Code transcript: a typed record of a session (a header
    with a sessionId and no type is another agent's: Gemini CLI's chats open so), a summary."""
    record = first_record(first_subagent(path) or path)
    if not record:
        return False
    return ("sessionId" in record and "type" in record) or "leafUuid" in record or \
        record.get("type") in ("summary", "file-history-snapshot")


def find_session_transcripts(projects: Path, folders: Folders | None = None) -> list[Path]:
    """The sessions in a projects dir or one project dir: each session's transcript, or —
    when only its sub-agents are left — its `<session>/subagents` folder. `folders`: listings
    kept from the last time (a folder whose mtime is unchanged is not listed again)."""
    folders = folders or Folders()
    found: list[Path] = []
    for folder in [projects] + [c for c in folders.folders(projects) if c.name != "memory"]:
        entries = folders.entries(folder)  # names alone: a Path is made only of what is found
        names = {name for name, is_dir, _link in entries if not is_dir and name.endswith(".jsonl")}
        found += [folder / name for name in sorted(names) if not name.startswith((".", "agent-"))]
        for name, is_dir, _link in entries:
            if is_dir and not name.startswith(".") and f"{name}.jsonl" not in names:
                subagents = folder / name / "subagents"
                if first_subagent(subagents):
                    found.append(subagents)
    return sorted(set(found), key=lambda p: p.parts)  # Path's order on POSIX, its parts compared once each


def transcripts_for_workspace(workspace: Path, home: Path, cwds: dict[Path, str] | None = None,
                              folders: Folders | None = None) -> list[Path]:
    """The session transcripts whose recorded cwd is `workspace` (`cwds`: as found before)."""
    return recorded_in(workspace, find_session_transcripts(home / "projects", folders), transcript_cwd, cwds)


def session_lister(projects: Path) -> Callable[[], list[Path]]:
    """`find_session_transcripts(projects)` at each call, listing only the folders that changed."""
    folders = Folders()
    return lambda: find_session_transcripts(projects, folders)


def workspace_lister(workspace: Path, home: Path) -> Callable[[], list[Path]]:
    """`transcripts_for_workspace(workspace, home)` at each call, reading each new file's cwd once."""
    folders, cwds = Folders(), {}  # type: ignore[var-annotated]
    return lambda: transcripts_for_workspace(workspace, home, cwds, folders)
