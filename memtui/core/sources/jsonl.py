"""Streaming JSON Lines: one record at a time, malformed lines reported and skipped.

Files are read in binary, line by line, so a multi-hundred-MiB transcript never sits in
memory whole (one huge line does, briefly). Invalid UTF-8 is replaced and reported; a
last line without a newline that does not parse is a crash mid-write and is reported as
truncated. Byte offsets let an adapter re-read one record later instead of keeping it.
Lines are decoded by orjson (3x json's speed: a cold index build is mostly this), an integer
past 64 bits coming back as a float as orjson reads it; a line orjson refuses (NaN, a lone
surrogate escape, invalid UTF-8) is read by json, or reported, as before.
"""

from __future__ import annotations

import json
import os
import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from memtui.core.model import Problem

# Untrusted lines are bounded: deeper nesting than any agent writes, or a longer line than
# any transcript holds, is reported and skipped instead of exhausting the stack or memory.
MAX_DEPTH = 256
MAX_LINE_BYTES = 256 * 1024 * 1024
READ_BUFFER = 1 << 20
"""Bytes read at a time when a file is read line by line: with io's default (8 KiB) a line of
a transcript (a tool's result, often tens of KiB) took several reads and joins; reading the
lines of a heavy home took 2.5x longer."""
_NOT_OPENING = bytes(b for b in range(256) if b not in b"{[")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def nesting_depth(raw: bytes) -> int:
    """How deeply the JSON text `raw` nests arrays and objects (strings ignored)."""
    if raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH:
        return 0  # cannot be deeper than the limit: skip the scan
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", raw)):
        if bracket in (b"{", b"["):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _decode(raw: bytes, path: Path, lineno: int, problems: list[Problem]) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(str(path), lineno, f"invalid UTF-8 at byte {exc.start} (replaced)"))
        return raw.decode("utf-8", "replace")


def parse_line(
    raw: bytes, path: Path, lineno: int, problems: list[Problem], *, last: bool = False
) -> Any | None:
    """One JSON record from one line of bytes, or None (blank or malformed, reported)."""
    stripped = raw.strip()
    if not stripped:
        return None
    if len(stripped) > MAX_LINE_BYTES:
        problems.append(Problem(str(path), lineno, f"line of {len(stripped)} bytes is over the {MAX_LINE_BYTES}-byte limit, skipped"))
        return None
    if nesting_depth(stripped) > MAX_DEPTH:
        problems.append(Problem(str(path), lineno, f"nested more than {MAX_DEPTH} levels deep, skipped"))
        return None
    try:  # orjson: 3x json's speed on the bytes as read; any line it refuses goes the slow way
        return orjson.loads(stripped)
    except orjson.JSONDecodeError:
        pass  # invalid UTF-8, a lone surrogate, NaN: json reads or names what is wrong
    text = _decode(stripped, path, lineno, problems)
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        if last and not raw.endswith(b"\n"):
            problems.append(Problem(str(path), lineno, "truncated last line (incomplete write), skipped"))
        else:
            problems.append(Problem(str(path), lineno, malformed(exc)))
        return None


def malformed(exc: Exception) -> str:
    """What is wrong with a line json.loads refused: "malformed JSON: Unterminated string
    starting at column 10" (the parser's message ends "at": the column says where)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}"
    return "malformed JSON: nested too deeply" if isinstance(exc, RecursionError) else f"malformed JSON: {exc}"


Lean = tuple[Callable[[bytes], dict[str, Any]], tuple[type[BaseException], ...]]
"""A reader's own decode of a line (the fields it reads alone: memtui.core.agents.claude_code.
lean) and the exceptions with which it leaves a line to the whole decode."""


def iter_records(path: Path, problems: list[Problem], lean: Lean | None = None) -> Iterator[tuple[int, int, Any]]:
    """Yield (line number, byte offset, record) for each parseable line of `path`.

    Records that are not JSON objects are reported and skipped, so callers can rely on
    `.get`. A file that cannot be opened is one problem, not an exception. With `lean`, each
    line is decoded by it first (see Lean).
    """
    try:
        handle = open(path, "rb", buffering=READ_BUFFER)
    except OSError as exc:
        problems.append(Problem(str(path), None, f"cannot read: {exc.strerror or exc}"))
        return
    with handle:
        offset = 0
        lineno = 0
        for raw in handle:
            lineno += 1
            start = offset
            offset += len(raw)
            # Only the last line can lack its newline: that is what marks it truncated.
            record = _record(raw, path, lineno, problems, last=not raw.endswith(b"\n"), lean=lean)
            if record is not None:
                yield lineno, start, record


def object_depth(value: Any) -> int:
    """How deeply a decoded JSON value nests arrays and objects, as `nesting_depth` counts its
    text; a walk of its containers alone, stopped once past MAX_DEPTH."""
    deepest = 0
    stack = [(value, 1)] if value.__class__ is dict or value.__class__ is list else []
    while stack and deepest <= MAX_DEPTH:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in node.values() if node.__class__ is dict else node:
            if child.__class__ is dict or child.__class__ is list:
                stack.append((child, depth + 1))
    return deepest


def _record(raw: bytes, path: Path, lineno: int, problems: list[Problem], *, last: bool,
            lean: Lean | None = None) -> dict[str, Any] | None:
    """The JSON object on a line as read, or None (reported). The common line is decoded as it is
    (orjson takes the newline as whitespace); a line of many brackets is then checked for depth on
    the decoded object (a regex pass over a large line's text cost more than its decoding); one
    that nests too deeply, is too long, or that orjson refuses is read the slow way (`_object`).
    With `lean`, a line it decodes is that record (see Lean)."""
    if lean is not None and len(raw) <= MAX_LINE_BYTES:
        try:
            return lean[0](raw)
        except lean[1]:
            pass
    if len(raw) <= MAX_LINE_BYTES:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = None
        # The opening brackets counted in one pass (the bytes left once all others are deleted).
        if record.__class__ is dict and (len(raw.translate(None, _NOT_OPENING)) <= MAX_DEPTH or object_depth(record) <= MAX_DEPTH):
            return record
    return _object(raw, path, lineno, problems, last=last)


def _object(raw: bytes, path: Path, lineno: int, problems: list[Problem], *, last: bool) -> dict[str, Any] | None:
    record = parse_line(raw, path, lineno, problems, last=last)
    if record is None or isinstance(record, dict):
        return record
    problems.append(Problem(str(path), lineno, "not a JSON object, skipped"))
    return None


UNKNOWN_TYPE = "record type {!r} is unknown to memtui: {} line(s) not read"


def unknown_type_problems(path: Path, unknown: dict[str, list[int]]) -> list[Problem]:
    """One problem per record type a reader does not know (type → the lines holding it), at
    its first line: a new release's records are reported, never silently dropped."""
    return [Problem(str(path), lines[0], UNKNOWN_TYPE.format(rtype, len(lines))) for rtype, lines in unknown.items()]


def count_malformed(problems: list[Problem]) -> int:
    """How many lines were skipped as unreadable (invalid UTF-8 is replaced, not skipped; a
    well-formed record of an unknown type is counted as `unknown_records`, not here)."""
    return sum(1 for p in problems if p.line is not None and not p.message.startswith(("invalid UTF-8", "record type ")))


class _HeldOpen(threading.local):
    files: dict[str, tuple[Any, dict[int, dict[str, Any] | None]]] | None = None
    """Within a `held_open` block of this thread: each file read (its path as text) → its open
    handle and the records read of it, by offset."""


_held = _HeldOpen()


@contextmanager
def held_open() -> Iterator[None]:
    """Within the block, this thread's `read_record_at` keeps each file it reads open and each
    record it read (several steps of a reply are one line): for a pass over many records of the
    same few files (a session's steps, indexed for search). Not for a read that must see a file
    replaced since the block began. Each record is the one object for every read of it: not to
    be changed."""
    if _held.files is not None:  # within a block already
        yield
        return
    _held.files = {}
    try:
        yield
    finally:
        for handle, _records in _held.files.values():
            handle.close()
        _held.files = None


def read_record_at(path: Path, offset: int) -> dict[str, Any] | None:
    """The record on the line starting at byte `offset` (None if it no longer parses); decoded as
    a file's lines are (`_record`: orjson, its depth checked on the object), any problem not kept."""
    files = _held.files
    if files is None:
        try:
            with open(path, "rb") as handle:
                handle.seek(offset)
                raw = handle.readline()
        except OSError:
            return None
        return _record(raw, path, 0, [], last=False)
    key = os.fspath(path)
    held = files.get(key)
    if held is None:
        try:
            held = files[key] = (open(path, "rb"), {})
        except OSError:
            return None
    handle, records = held
    if offset not in records:
        try:
            handle.seek(offset)
            records[offset] = _record(handle.readline(), path, 0, [], last=False)
        except OSError:
            return None
    return records[offset]


def first_record(
    path: Path, max_lines: int = 20, where: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any] | None:
    """The first JSON object among the first `max_lines` lines (the first for which `where`
    holds, if given), without reading further."""
    try:
        with open(path, "rb") as handle:
            for _ in range(max_lines):
                raw = handle.readline()
                if not raw:
                    return None
                record = parse_line(raw, path, 0, [], last=False)
                if isinstance(record, dict) and (where is None or where(record)):
                    return record
    except OSError:
        return None
    return None


class GrownLines:
    """The lines of a JSON Lines file from byte `offset` on (line `lineno` parsed last): first
    its complete lines (`complete`: each ends in a newline), then what follows the last of them
    (`tail`: a last line the agent has not finished writing, or one written without its newline).
    A parse kept at `end` (after `complete`) goes on from there when the file grows; the tail is
    read again then, as part of the next complete line."""

    def __init__(self, path: Path, problems: list[Problem], offset: int = 0, lineno: int = 0,
                 lean: Lean | None = None) -> None:
        self.path, self.problems, self.lean = path, problems, lean
        self.end, self.lineno = offset, lineno
        self.last_line = b""  # the last complete line (a cursor's check of the bytes before `end`)
        self._tail = b""

    def complete(self) -> Iterator[tuple[int, int, Any]]:
        """(line number, byte offset, record) of each parseable complete line after `offset`."""
        try:
            handle = open(self.path, "rb", buffering=READ_BUFFER)
        except OSError as exc:
            self.problems.append(Problem(str(self.path), None, f"cannot read: {exc.strerror or exc}"))
            return
        path, problems, lean = self.path, self.problems, self.lean
        with handle:
            handle.seek(self.end)
            lineno, end, last_line = self.lineno, self.end, self.last_line
            try:
                for raw in handle:
                    if not raw.endswith(b"\n"):
                        self._tail = raw
                        break
                    lineno += 1
                    offset = end
                    end += len(raw)
                    last_line = raw
                    record = _record(raw, path, lineno, problems, last=False, lean=lean)
                    if record is not None:
                        yield lineno, offset, record
            finally:  # where the lines read so far end, as the caller may stop between two
                self.lineno, self.end, self.last_line = lineno, end, last_line

    def tail(self, problems: list[Problem] | None = None) -> Iterator[tuple[int, int, Any]]:
        """The record of the unfinished last line, if it parses (a torn one is reported, in
        `problems` if given)."""
        if self._tail:
            record = _record(self._tail, self.path, self.lineno + 1, self.problems if problems is None else problems, last=True,
                             lean=self.lean)
            if record is not None:
                yield self.lineno + 1, self.end, record
