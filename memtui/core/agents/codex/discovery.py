"""Where Codex keeps its stores: a home (`~/.codex`, `$CODEX_HOME`) with
`sessions/YYYY/MM/DD/rollout-*.jsonl` (and `archived_sessions/`); a sessions folder or one rollout
given as PATH; and, for a workspace, the rollouts whose recorded working directory is it.
Looking imports no reader (memtui.core.agents.codex.rollout_files finds them)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from memtui.core.agents.codex.rollout_files import looks_like_rollout, rollout_lister, workspace_lister
from memtui.core.sources.found import Looking, Source, archived_too

KIND = "codex"


def _store(path: Path, rollouts: list[Path], home: Path | None, archive: Path | None = None,
           project: Path | None = None, relist: Callable[[], list[Path]] | None = None) -> Source:
    def opener():
        from memtui.core.agents.codex.source import CodexSource  # the reader: once a store is opened

        live = CodexSource(rollouts, home=home, path=path, relist=relist)
        return archived_too(live, home, CodexSource.from_path, archive, project)
    return Source(KIND, path, opener, label="Codex")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """A rollout, a home holding rollouts (or archived sessions), or its sessions folder; None
    for anything else."""
    if path.is_file():
        if path.suffix != ".jsonl" or not looks_like_rollout(path):
            return None
        home = next((p.parent for p in path.parents if p.name in ("sessions", "archived_sessions")), None)
        return [_store(path, [path], home)]
    has_sessions = (path / "sessions").is_dir()
    relist = rollout_lister(path)
    rollouts = relist() if has_sessions or path.name in ("sessions", "archived_sessions") else []
    if rollouts or (has_sessions and looking.archived_here(path, KIND)):
        home = path if has_sessions else path.parent
        return [_store(path, rollouts, home, looking.archive if home == path else None, relist=relist)]
    return None


def for_workspace(workspace: Path, looking: Looking) -> list[Source]:
    """The rollouts of the Codex home that worked in `workspace` (and the archived ones); every
    rollout of the home when `workspace` is the user's home folder."""
    home = looking.home("CODEX_HOME", ".codex")
    if home is None:
        return []
    if looking.user_home and home.is_dir():
        return store_at(home.resolve(), looking) or []
    relist = workspace_lister(workspace, home)
    rollouts = relist()
    if rollouts or looking.archived_here(home, KIND, workspace):
        return [_store(home / "sessions", rollouts, home, looking.archive, workspace, relist)]
    return []
