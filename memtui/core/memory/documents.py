"""Read memory documents: exact bytes, text if (and only if) they are valid UTF-8, JSONL
records with malformed lines reported by number, and markdown headings for a table of
contents. Nothing here writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.core.errors import DocumentNotFound
from memtui.core.model import Problem
from memtui.core.sources.jsonl import MAX_DEPTH, malformed, nesting_depth


@dataclass(frozen=True)
class DiskVersion:
    """What a file looked like on disk: compared at save time to detect external writes."""

    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class OpenedDocument:
    """A document as read from disk.

    `text` is None when the bytes are not valid UTF-8; then `encoding_error` says where, and
    the document must be shown read-only (saving would re-encode it).
    """

    path: Path
    data: bytes
    version: DiskVersion
    text: str | None
    encoding_error: str | None = None

    @property
    def readonly(self) -> bool:
        return self.text is None


@dataclass(frozen=True)
class JsonlRecord:
    """One well-formed line of a JSONL document (1-based line number)."""

    line: int
    value: Any


@dataclass(frozen=True)
class JsonlDocument:
    records: list[JsonlRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def columns(self, limit: int = 12) -> list[str]:
        """Keys of object records in first-seen order (for a table), at most `limit`."""
        seen: dict[str, None] = {}
        for record in self.records:
            if isinstance(record.value, dict):
                for key in record.value:
                    seen.setdefault(str(key), None)
                    if len(seen) >= limit:
                        return list(seen)
        return list(seen)


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int  # 1-based


def hash_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def version_of(path: Path, data: bytes) -> DiskVersion:
    st = os.stat(path)
    return DiskVersion(size=len(data), mtime_ns=st.st_mtime_ns, sha256=hash_bytes(data))


def disk_version(path: Path) -> tuple[bytes | None, DiskVersion | None]:
    """The bytes and version now on disk, or (None, None) if the file does not exist."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return None, None
    return data, version_of(path, data)


def decode_utf8(data: bytes) -> tuple[str | None, str | None]:
    """(text, None) for valid UTF-8, else (None, a one-line reason with the byte offset)."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, f"invalid UTF-8 at byte {exc.start} (line {line}); opened read-only"


def read_document(path: Path) -> OpenedDocument:
    """Read a document for display or editing; raises DocumentNotFound if it is missing."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DocumentNotFound(f"{path} does not exist") from None
    except IsADirectoryError:
        raise DocumentNotFound(f"{path} is a directory") from None
    text, error = decode_utf8(data)
    return OpenedDocument(path, data, version_of(path, data), text, error)


def parse_jsonl(text: str, file: str = "") -> JsonlDocument:
    """Parse JSON Lines tolerantly: blank lines are skipped, malformed lines become
    Problems (by 1-based line number) and are skipped, never an exception."""
    records: list[JsonlRecord] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if nesting_depth(line.encode("utf-8", "surrogatepass")) > MAX_DEPTH:  # bounded before parsing
            problems.append(Problem(file, number, f"nested more than {MAX_DEPTH} levels deep, skipped"))
            continue
        try:
            records.append(JsonlRecord(number, json.loads(line)))
        except (ValueError, RecursionError) as exc:  # too deep for the parser's stack: like any other bad line
            problems.append(Problem(file, number, malformed(exc)))
    return JsonlDocument(records, problems)


def record_text(value: Any) -> str:
    """A one-line rendering of a JSONL record or field for tables and search."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def _fence_scan(text: str):
    """(line number, line, whether it opens or closes a fence, the fence open after it)."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        m = _FENCE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
        yield number, line, m is not None, fence


def open_fence(text: str) -> str | None:
    """The fence (``` or ~~~) that `text` ends inside of, or None when every fence is closed."""
    fence: str | None = None
    for *_, fence in _fence_scan(text):
        pass
    return fence


def iter_prose_lines(text: str):
    """(line number, line) for lines outside fenced code blocks: headings and fields that
    appear inside ``` fences are examples, not structure."""
    for number, line, is_marker, fence in _fence_scan(text):
        if not is_marker and fence is None:
            yield number, line


def markdown_headings(text: str) -> list[Heading]:
    """ATX headings outside code fences, for a table of contents or section lookups."""
    headings = []
    for number, line in iter_prose_lines(text):
        m = _ATX.match(line)
        if m:
            headings.append(Heading(len(m.group(1)), m.group(2), number))
    return headings
