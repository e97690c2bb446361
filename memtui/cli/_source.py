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


def team_or_path(path: str, team: str | None) -> Path | str:
    """PATH, or the team store's URL (`memtui VERB postgresql://…`, `--team URL`, `--team` and
    $MEMTUI_TEAM_URL; `team` is what --team gave: None without it, "" without its URL)."""
    from memtui.core.errors import MemtuiError
    from memtui.core.resolve import team_url
    from memtui.core.store.paths import is_team_url

    if team is not None:
        url = team_url(team or None)
        if url is None:
            raise MemtuiError("--team needs a URL (postgresql://…) or $MEMTUI_TEAM_URL set")
        if not is_team_url(url):
            raise MemtuiError(f"--team takes a postgresql:// URL, not {url!r}")
        return url
    return path if is_team_url(path) else Path(path).expanduser()


def parse_id(text: str) -> int | str:
    """An id as given on the command line: a number for memtui and RA.Aid, else the store's string."""
    return int(text) if text.isdigit() else text
