"""How sources are named on screen: their kind, their path, their counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from functools import cache

from memtui.ui.text import one_line


@cache
def kind_labels() -> dict[str, str]:
    """How each source kind is named on screen: each agent by the label its package declares
    (the agents' registry is imported when a kind is first named, not before the first frame)."""
    from memtui.core.agents import all_agents

    return {"memory-files": "Memory files", "every-agent": "every agent", **{a.kind: a.label for a in all_agents()}}


def kind_label(kind: str) -> str:
    """The on-screen name of the source kind `kind` (itself when no agent declares it)."""
    return kind_labels().get(kind, kind)


def shown_path(path: Path, opened: Path) -> str:
    """A source's path for people: relative to what was opened when inside it, `~/…` when
    under the home folder, else absolute."""
    path, opened = Path(path), Path(opened).expanduser().resolve()
    if path == opened:
        return "."
    if path.is_relative_to(opened):
        return str(path.relative_to(opened))
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def counts_line(counts: dict[str, int], width: int = 60) -> str:
    """`sessions 2 · prompts 5 · …` (underscores read as spaces), cut to `width`."""
    return one_line(" · ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()), width)


def folder_label(path: Path) -> str:
    """A path as given, except one that names no folder by itself (`.`, `..`): that folder's
    path, `~/…` under the home folder ("Stores found at or for ~", not "… for .")."""
    path = Path(path)
    if path.name not in ("", ".", ".."):
        return str(path)
    try:
        resolved = path.expanduser().resolve()
        inside = resolved.relative_to(Path.home())
    except ValueError:
        return str(resolved)
    except (OSError, RuntimeError):
        return str(path)
    return "~" if inside == Path(".") else f"~/{inside}"


def workspace_label(app: Any) -> str:
    """The workspace as the header names it: as given (`shown_path`), else `~/…` under the
    home folder, else its path. A folder that is not on this machine (the one another agent's
    sessions recorded elsewhere) is not named: the path memtui opened is."""
    if app.shown_path is not None:
        return app.shown_path
    where = app.workspace if app.workspace is not None and Path(app.workspace).is_dir() else app.path
    try:
        inside = Path(where).resolve().relative_to(Path.home())
    except (ValueError, OSError, RuntimeError):
        return str(where)
    return "~" if inside == Path(".") else f"~/{inside}"
