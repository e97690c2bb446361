"""Where the parse of an append-only JSON Lines file (a Claude Code transcript, a Codex rollout)
stopped, so that when the file grows only its new lines are parsed.

A cursor is kept with the parser's state at that point (memtui.core.sources.kept_parts); it
goes on only in the same file (its inode), as long as it is (the file is no shorter, and its
first bytes and the last line parsed are the bytes parsed then). A file that shrank, was
replaced or rewritten before the cursor is parsed whole.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.core.sources.jsonl import GrownLines

HEAD_BYTES = 4096
"""The file's first bytes a cursor checks (with the last line parsed)."""


def _check(head: bytes, last_line: bytes) -> bytes:
    return hashlib.blake2b(head + b"\0" + last_line, digest_size=16).digest()


@dataclass(frozen=True)
class FileCursor:
    """A parse of a file up to byte `offset` (the end of its line `lineno`)."""

    inode: int
    offset: int
    lineno: int
    check: bytes
    last_len: int

    @classmethod
    def after(cls, path: Path, lines: GrownLines) -> "FileCursor | None":
        """The cursor after `lines.complete()` ran; None when the file cannot be read now."""
        try:
            with open(path, "rb") as handle:
                inode = os.fstat(handle.fileno()).st_ino
                head = handle.read(min(HEAD_BYTES, lines.end))
        except OSError:
            return None
        return cls(inode, lines.end, lines.lineno, _check(head, lines.last_line), len(lines.last_line))

    def resumes(self, path: Path) -> bool:
        """Whether `path` is still the file parsed, grown or not: the parse goes on from here."""
        try:
            with open(path, "rb") as handle:
                st = os.fstat(handle.fileno())
                if st.st_ino != self.inode or st.st_size < self.offset:
                    return False
                head = handle.read(min(HEAD_BYTES, self.offset))
                handle.seek(self.offset - self.last_len)
                last_line = handle.read(self.last_len)
        except OSError:
            return False
        return _check(head, last_line) == self.check


@dataclass(frozen=True)
class Resumable:
    """A cursor and the parser's state at it (pickled by the parser: its own objects)."""

    cursor: FileCursor
    state: Any


def resumable(resume: "Resumable | None", path: Path) -> Any:
    """The state to go on from in `path`, None when it must be parsed whole."""
    return resume.state if resume is not None and resume.cursor.resumes(path) else None
