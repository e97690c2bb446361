"""Files on disk as the cleanup sees them: stat records, folder walks, and the head and
tail of a JSON Lines file read without reading the middle.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
HEAD_BYTES = 16 * 1024
TITLE_CHARS = 120


def short_title(text: str) -> str:
    """A session's title on one line, whitespace collapsed, at most TITLE_CHARS characters: a
    longer one is cut with "…" (the text stays as recorded; the views sanitize it)."""
    text = " ".join(text.split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
TAIL_BYTES = 16 * 1024
TAIL_LIMIT = 16 * 1024 * 1024  # a last line longer than this is not parsed
FIRST_LINE_LIMIT = TAIL_LIMIT  # a first line longer than this is not parsed either


@dataclass(frozen=True)
class FileInfo:
    """One regular file: where it is and what `restore` must give back (size, mtime, mode)."""

    path: Path
    size: int
    mtime_ns: int
    mode: int

    def unchanged(self, st: os.stat_result) -> bool:
        """The file `st` was read from still has the size and mtime listed here."""
        return st.st_size == self.size and st.st_mtime_ns == self.mtime_ns


def first_changed(files: list[FileInfo]) -> FileInfo | None:
    """The first of `files` no longer of the size or mtime listed (one gone since is not
    changed: nothing of it is left to lose); None when none is."""
    for info in files:
        try:
            st = os.lstat(info.path)
        except FileNotFoundError:
            continue
        if not info.unchanged(st):
            return info
    return None


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB chunks."""
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def file_info(path: Path) -> FileInfo | None:
    """The FileInfo of a regular file (symlinks and special files: None)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return FileInfo(Path(path), st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode))


def walk_files(root: Path) -> tuple[list[FileInfo], list[Path]]:
    """Every regular file under `root` (symlinks not followed) and every folder, `root` first."""
    files: list[FileInfo] = []
    dirs: list[Path] = []
    stack = [Path(root)]
    while stack:
        folder = stack.pop()
        dirs.append(folder)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                info = file_info(Path(entry.path))
                if info is not None:
                    files.append(info)
    return files, dirs


def chunk_records(chunk: bytes) -> Iterator[dict[str, Any]]:
    """The JSON objects on the lines of `chunk`, parsed lazily (stop early to save time)."""
    for raw in chunk.splitlines():
        raw = raw.strip()
        if not raw.startswith(b"{"):
            continue
        try:
            record = json.loads(raw.decode("utf-8", "replace"))
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(record, dict):
            yield record


def records_with(chunk: bytes, needle: bytes) -> list[dict[str, Any]]:
    """Only the records on lines containing `needle` (a cheap byte search first)."""
    out: list[dict[str, Any]] = []
    at = chunk.find(needle)
    while at >= 0:
        start = chunk.rfind(b"\n", 0, at) + 1
        end = chunk.find(b"\n", at)
        end = len(chunk) if end < 0 else end
        out.extend(chunk_records(chunk[start:end]))
        at = chunk.find(needle, end)
    return out


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The whole lines among the first line and the `size` bytes after it (a cut-off last line is
    dropped). The first line is read whole however long, up to FIRST_LINE_LIMIT: a Codex
    rollout's `session_meta` carries the model's whole instructions (22 KiB in 0.171), and a head
    of its first bytes alone held no line at all — no folder, no start, no first prompt."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(FIRST_LINE_LIMIT)  # one read however long, not a growing join
            if not first.endswith(b"\n"):
                return first  # the whole file is one line, or the line is longer than the limit
            rest = handle.read(size)  # and `size` bytes after it
    except OSError:
        return b""
    chunk = first + rest
    return chunk if len(rest) < size else chunk[: chunk.rfind(b"\n")]  # the whole file, or whole lines


def lines_from_end(path: Path, file_size: int) -> Iterator[bytes]:
    """The file's whole lines, newest first, read backwards in growing blocks (at most
    TAIL_LIMIT bytes: older lines are not reached)."""
    try:
        handle = open(path, "rb")
    except OSError:
        return
    with handle:
        end = file_size
        block = TAIL_BYTES
        rest = b""
        while end > 0 and file_size - end < TAIL_LIMIT:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start) + rest
            end = start
            lines = chunk.split(b"\n")
            rest = lines[0] if start > 0 else b""
            for line in reversed(lines if start == 0 else lines[1:]):
                if line.strip():
                    yield line
            block = min(block * 4, TAIL_LIMIT)


def newest_records(path: Path, file_size: int) -> Iterator[dict[str, Any]]:
    """The file's JSON objects, newest first (see `lines_from_end`)."""
    for line in lines_from_end(path, file_size):
        yield from chunk_records(line)
