"""Where Aider keeps its history: `.aider.chat.history.md` at the root of a repository it ran
in (its `--chat-history-file` default) — that file given as PATH, or a folder holding it."""

from __future__ import annotations

from pathlib import Path

from memtui.core.agents.aider.history import HISTORY, STARTED
from memtui.core.agents.aider.source import AiderSource
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
    return Source(KIND, history.parent, lambda: AiderSource(history), label="Aider")


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
