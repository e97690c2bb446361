"""A Claude Code session's files, walked: what its part of the index was read from (its
transcript, the files under its `<session>` folder, the 2.0.x sub-agent transcripts beside it)
with their stat keys — the index's signature of a session (`Signature`) — and, from the same
walk, the session's bytes and files key (`stored_counts`): a warm open walks each folder once."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memtui.core.agents.claude_code.tables import TranscriptSession
from memtui.core.paths import files_key, stat_key

__all__ = ["Signature", "entry_stats", "session_files", "stored_counts", "walk_keys"]


class Signature:
    """What a session's part was read from, as sizes and mtimes: its transcript (or orphaned
    `subagents` folder), the files under its `<session>` folder (sub-agents, tool results), and
    (2.0.x) the `agent-*.jsonl` files beside it. One per index, so a folder's siblings are looked
    at once; the walk of each session folder is kept (`walked`, with the transcript's stat key
    in `keys`): the session's bytes and files key are counted from it (`stored_of`), not walked
    again."""

    def __init__(self) -> None:
        self._beside: dict[str, tuple] = {}
        self.keys: dict[str, tuple[int, int, int]] = {}
        self.walked: dict[str, list[tuple[str, tuple[int, int, int]]]] = {}

    def __call__(self, path: Path) -> tuple | None:
        text = os.fspath(path)  # one stat, and paths as text: this is asked of every listed file at each open
        try:
            st = os.stat(text)
        except OSError:
            return None  # gone since it was listed (archived or deleted by a cleanup)
        own = (st.st_size, st.st_mtime_ns, st.st_ino)
        if stat.S_ISDIR(st.st_mode):
            return own, entry_stats(text, ""), ()
        self.keys[text] = own
        parent, name = os.path.split(text)
        if parent not in self._beside:
            self._beside[parent] = entry_stats(parent, ".jsonl", "agent-")
        folder = os.path.join(parent, os.path.splitext(name)[0])
        inside = self.walked[folder] = walk_keys(folder)
        return own, tuple(inside), self._beside[parent]

    def stored_of(self, session: TranscriptSession) -> tuple[tuple[int, int, int], tuple[int, str]] | None:
        """(the transcript's stat key, its session's bytes and files key) from the walk made of
        it; None when it was not walked (an orphaned session's `subagents` folder)."""
        text = str(session.file)
        own, inside = self.keys.get(text), self.walked.get(os.path.splitext(text)[0])
        if own is None or inside is None:
            return None
        return own, stored_counts(session, own, inside)


def walk_keys(folder: str) -> list[tuple[str, tuple[int, int, int]]]:
    """Every file under `folder` with its stat key ([] when it is gone): links to folders are not
    followed; a file gone while walked is left out."""
    found: list[tuple[str, tuple[int, int, int]]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for entry in sorted(entries, key=lambda e: e.name):
        try:
            if entry.is_dir():
                if not entry.is_symlink():
                    found += walk_keys(entry.path)
            elif entry.is_file():
                st = entry.stat()
                found.append((entry.path, (st.st_size, st.st_mtime_ns, st.st_ino)))
        except OSError:
            continue
    return found


def session_files(session: TranscriptSession, inside: list[str]) -> list[str]:
    """A session's files, sorted: its transcript, the files under its folder (`inside`: sub-agents,
    tool results) and the 2.0.x sub-agent transcripts beside it its turns were read from —
    what cleanup counts of it too."""
    files = {str(session.file), *session.transcripts}
    folder = str(session.file.with_suffix(""))
    if inside:
        files = {f for f in files if not f.startswith(folder + os.sep)} | set(inside)
    return sorted(files)


def stored_counts(session: TranscriptSession, own: tuple[int, int, int],
                  inside: list[tuple[str, tuple[int, int, int]]] | None = None) -> tuple[int, str]:
    """A session's bytes and files key (paths.files_key of `session_files`) from its transcript's
    stat key `own` and the walk of its folder (`inside`, walked now when None); an orphaned
    session's, of the files under its `subagents` folder."""
    text = str(session.file)
    if inside is None and os.path.isdir(text):  # only the sub-agents folder is left
        inside = walk_keys(text)
        return files_key([path for path, _key in inside], dict(inside))
    if inside is None:
        inside = walk_keys(os.path.splitext(text)[0])
    known = dict(inside)
    known[text] = own
    return files_key(session_files(session, [path for path, _key in inside]), known)


def entry_stats(folder: Path | str, suffix: str, prefix: str = "") -> tuple:
    """(name, stat key) of each entry of `folder` named `prefix…suffix`, by name (none when it is
    gone or no folder)."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.startswith(prefix) and e.name.endswith(suffix))
    except OSError:  # gone, or not a folder
        return ()
    return tuple((name, stat_key(os.path.join(folder, name))) for name in names)
