"""Bytes to lines for a diff: decoding, line splitting, safe display, binary summaries."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from memtui.core.display import sanitize


def decode_text(data: bytes | None) -> str | None:
    """The text of `data`, or None when it is absent, binary (NUL bytes) or not UTF-8."""
    if data is None or b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[1:] if text.startswith("\ufeff") else text


def split_lines(text: str) -> list[str]:
    """Lines without their "\\n"; a "\\r" stays, so CRLF↔LF changes show as changes.

    Only "\\n" ends a line, as for git (str.splitlines also splits on \\f, \\x1c, U+2028 …).
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def display_line(line: str, tab_size: int = 4, strip_cr: bool = False) -> str:
    """A line as it may be shown in a terminal: tabs expanded, control characters visible.

    strip_cr drops a final "\r" (the file's CRLF convention) instead of showing it as ␍.
    """
    if strip_cr and line.endswith("\r"):
        line = line[:-1]
    if "\t" in line:
        line = line.expandtabs(tab_size)
    return sanitize(line)


@dataclass(frozen=True)
class BlobSummary:
    """What is shown instead of a diff for binary content: size and sha256, or absent."""

    size: int | None
    sha256: str | None

    @classmethod
    def of(cls, data: bytes | None) -> BlobSummary:
        if data is None:
            return cls(None, None)
        return cls(len(data), hashlib.sha256(data).hexdigest())

    def describe(self) -> str:
        if self.size is None:
            return "absent"
        return f"{self.size:,} bytes  sha256 {self.sha256}"
