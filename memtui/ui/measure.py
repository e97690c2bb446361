"""The header's facts about the open workspace: database size, row counts, GC figures.

`measure` runs in the app's measuring worker once the sessions are drawn (it never competes
with the first paint), and posts what it has as soon as it has it.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from memtui.core.memory_source import Capability
from memtui.ui.messages import WorkspaceMeasured
from memtui.ui.opening import is_store


def measure(source: Any, post: Callable[[WorkspaceMeasured], Any],
            failed: Callable[[BaseException], Any]) -> None:
    """Post the database size and counts, then (memtui's own store) the live/reclaimable
    figures, counted as the GC plan would count them, without building one (`g` does)."""
    try:
        databases = source.part(Capability.LIVE).watched_databases() if source.has_part(Capability.LIVE) else []
        size = sum(os.path.getsize(p) for db in databases for p in (str(db), f"{db}-wal")
                   if os.path.exists(p)) if databases else None
        counts = source.counts()
    except Exception:  # a damaged store: the header names the workspace, without figures;
        post(WorkspaceMeasured(None, {}, None))  # the worker fails and says why
        raise
    planned = is_store(source)
    post(WorkspaceMeasured(size, counts, None, gc_pending=planned))
    if not planned:
        return
    try:
        from memtui.core.gc import gc_figures

        figures = gc_figures(source)
    except Exception as exc:  # the header says "not computed"; the user gets the reason
        failed(exc)
        post(WorkspaceMeasured(size, counts, None))
        return
    post(WorkspaceMeasured(size, counts, figures))
