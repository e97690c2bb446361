"""Where Claude Code keeps its stores: a home (`~/.claude`, `$CLAUDE_CONFIG_DIR`) with
`projects/<project>/<session>.jsonl`; a projects folder, a project folder or one transcript
given as PATH; and, for a workspace, the transcripts whose recorded working directory is it.
Looking imports no reader (memtui.core.agents.claude_code.transcript_files finds them)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from memtui.core.agents.claude_code.transcript_files import looks_like_transcript, session_lister, workspace_lister
from memtui.core.sources.found import Looking, Source, archived_too

KIND = "claude-code"


def _store(path: Path, transcripts: list[Path], home: Path | None, archive: Path | None = None,
           project: Path | None = None, relist: Callable[[], list[Path]] | None = None) -> Source:
    def opener():
        from memtui.core.agents.claude_code.source import ClaudeCodeSource  # the reader: once a store is opened

        live = ClaudeCodeSource(transcripts, home=home, path=path, relist=relist)
        return archived_too(live, home, ClaudeCodeSource.from_path, archive, project)
    return Source(KIND, path, opener, label="Claude Code")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """A transcript, a home holding transcripts (or archived sessions), its projects folder or
    one project folder of it; None for anything else. The stores of folders list their
    sessions again at each reload (`relist`)."""
    if path.is_file():
        if path.suffix != ".jsonl" or not looks_like_transcript(path):
            return None
        home = next((p.parent for p in path.parents if p.name == "projects"), None)
        return [_store(path, [path], home)]
    if (path / "projects").is_dir():
        relist = session_lister(path / "projects")
        transcripts = relist()
        if any(looks_like_transcript(t) for t in transcripts[:5]) or looking.archived_here(path, KIND):
            return [_store(path, transcripts, path, looking.archive, relist=relist)]
    if path.name == "projects" or path.parent.name == "projects":
        relist = session_lister(path)
        transcripts = relist()
        if any(looks_like_transcript(t) for t in transcripts[:5]):
            whole = path.name == "projects"
            home = path.parent if whole else path.parent.parent
            return [_store(path, transcripts, home, looking.archive if whole else None, relist=relist)]
    return None


def for_workspace(workspace: Path, looking: Looking) -> list[Source]:
    """The sessions of the Claude Code home that worked in `workspace` (and the archived ones);
    every session of the home when `workspace` is the user's home folder."""
    home = looking.home("CLAUDE_CONFIG_DIR", ".claude")
    if home is None:
        return []
    if looking.user_home and home.is_dir():
        return store_at(home.resolve(), looking) or []
    relist = workspace_lister(workspace, home)  # listed again at each reload
    transcripts = relist()
    if transcripts or looking.archived_here(home, KIND, workspace):
        return [_store(home / "projects", transcripts, home, looking.archive, workspace, relist)]
    return []
