"""Where a JSONL session store is: a folder with `sessions/*.jsonl` (or `memory/history.jsonl`),
or one session file of it given as PATH."""

from __future__ import annotations

from pathlib import Path

from memtui.core.agents.jsonl.layout import is_jsonl_store
from memtui.core.sources.found import Looking, Source
from memtui.core.sources.jsonl import first_record


def _store(root: Path) -> Source:
    def opener():
        from memtui.core.agents.jsonl.source import JsonlSessionsSource  # the reader: once a store is opened

        return JsonlSessionsSource(root)
    return Source("jsonl-sessions", root, opener, label="JSONL sessions")


def store_at(path: Path, looking: Looking) -> list[Source] | None:
    """The store a session file (`<root>/sessions/<id>.jsonl`) belongs to; None for anything else
    (a store's folder is a workspace that holds it: `inside`)."""
    if not path.is_file() or path.suffix != ".jsonl" or path.parent.name != "sessions":
        return None
    record = first_record(path) or {}
    return [_store(path.parent.parent)] if "key" in record else None


def inside(workspace: Path, looking: Looking) -> list[Source]:
    """The JSONL session store `workspace` is."""
    return [_store(workspace)] if is_jsonl_store(workspace) else []
