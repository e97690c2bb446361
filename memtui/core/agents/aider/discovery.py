"""Where Aider keeps its history: `.aider.chat.history.md` at the root of a repository it ran
in (its `--chat-history-file` default) — that file given as PATH, or a folder holding it."""

from __future__ import annotations

from pathlib import Path

from memtui.core.agents.aider.history import HISTORY, STARTED
from memtui.core.sources.found import Looking, Source

KIND = "aider"


def looks_like_history(path: Path) -> bool:
    """A chat history file whose first lines hold aider's start line."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return STARTED.encode() in head


def _store(history: Path) -> Source:
    def opener():
        from memtui.core.agents.aider.source import AiderSource  # the reader: once a store is opened

        return AiderSource(history)
    return Source(KIND, history.parent, opener, label="Aider")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """`.aider.chat.history.md` itself; None for anything else (a repository holding one is a
    workspace: `inside`)."""
    if path.is_file() and path.name == HISTORY and looks_like_history(path):
        return [_store(path)]
    return None


def inside(workspace: Path, looking: Looking) -> list[Source]:
    """The repository's own `.aider.chat.history.md`."""
    history = workspace / HISTORY
    return [_store(history)] if history.is_file() and looks_like_history(history) else []


def for_workspace(workspace: Path, looking: Looking) -> list[Source]:
    """For the user's home folder (`memtui ~`), the histories of the repositories below it:
    Aider keeps no list of the repositories it ran in, so they are looked for by the bounded
    walk of memory.chain.folders_below (hidden folders and dependencies skipped). They come
    after the agents' homes kept there, so `memtui log ~` still means the first of those."""
    if not looking.user_home:
        return []
    from memtui.core.memory.chain import folders_below

    return [_store(f / HISTORY) for f in folders_below(workspace)
            if (f / HISTORY).is_file() and looks_like_history(f / HISTORY)]
