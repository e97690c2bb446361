"""Verbs reach the store PATH means through `memtui.core.resolve` (as the app does), so every
verb and the app agree on it; a store that can't do what the verb needs is refused in one line
(`Unsupported`: what it can't do, what to open instead)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from memtui.core.memory_source import Capability, MemorySource


@contextmanager
def opened(path: str | Path, need: Capability | None = None, *, root: Path | None = None,
           kind: str | None = None) -> Iterator[MemorySource]:
    """The store PATH means, open read-only and closed after (`memtui.core.resolve.resolve`)."""
    from memtui.core.resolve import resolve

    with resolve(path, need, root=root, kind=kind) as resolved:
        yield resolved.source


def parse_id(text: str) -> int | str:
    """An id as given on the command line: a number for memtui and RA.Aid, else the store's string."""
    return int(text) if text.isdigit() else text
