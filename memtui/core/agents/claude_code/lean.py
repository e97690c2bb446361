"""A transcript line decoded for the index: the fields the reader reads (memtui.core.agents.
claude_code.reader and .records), the rest skipped unread.

Most of a transcript's bytes are what the index never keeps: tool output (a result block's
`content`, `toolUseResult`'s stdout and whole files), a progress line's `data`, thinking text,
a Write's content. msgspec decodes a line against the shape below, walking past every field
it does not name without making a Python object of it: two to three times orjson's speed on a
heavy home's lines, and the record is a small dict the reader reads as before.

The record is the dict orjson makes of the line, less the fields not named; a line that does not
fit the shape (a field of another type: a `message` that is no object, a block that is no
object, a count that is no integer of 64 bits, a `toolUseResult` that is a number) is decoded
whole the usual way (`jsonl._record`), which reads or reports it as it always has. So is a line
msgspec refuses (malformed JSON, a lone surrogate, nesting past the recursion limit) and one
that is not valid UTF-8 (`decode` checks the bytes it skipped too): its problem is reported.
What the lean decode does not check is how deeply the fields it skips nest — the reader never
reads them; a view that shows the whole line (a step's payload) decodes it whole and refuses
one nested past jsonl.MAX_DEPTH there.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict, Union

import msgspec

__all__ = ["LEAN", "READ_FIELDS", "decode", "LeanMismatch"]

Count = Union[Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)], None]
"""A token count that fits a signed 64-bit integer: a larger one (orjson reads it as an unsigned
integer or a float, msgspec as an int) goes the whole way, so it is read as it always was."""


class _Input(TypedDict, total=False):
    file_path: Any
    prompt: Any


class _Block(TypedDict, total=False):
    type: Any
    id: Any
    name: Any
    input: _Input
    text: Any
    tool_use_id: Any
    is_error: Any


class _CacheSplit(TypedDict, total=False):
    ephemeral_1h_input_tokens: Count
    ephemeral_5m_input_tokens: Count


class _OutputDetails(TypedDict, total=False):
    thinking_tokens: Count


class _Usage(TypedDict, total=False):
    input_tokens: Count
    cache_creation_input_tokens: Count
    cache_read_input_tokens: Count
    output_tokens: Count
    cache_creation: Union[_CacheSplit, None]
    output_tokens_details: Union[_OutputDetails, None]


class _Message(TypedDict, total=False):
    id: Any
    model: Any
    usage: Union[_Usage, None]
    content: Union[str, list[_Block], None]


class _Result(TypedDict, total=False):
    filePath: Any
    agentId: Any


class _Backup(TypedDict, total=False):
    backupFileName: Any


class _Snapshot(TypedDict, total=False):
    messageId: Any
    trackedFileBackups: Union[dict[str, Union[_Backup, str, int, float, bool, None]], None]


class _Record(TypedDict, total=False):
    type: Any
    timestamp: Union[str, Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)], float, None]
    isSidechain: Any
    sessionId: Any
    cwd: Any
    uuid: Any
    parentUuid: Any
    logicalParentUuid: Any
    message: Union[_Message, str, None]
    toolUseResult: Union[_Result, str, list[msgspec.Raw], None]  # a list's items are not read
    requestId: Any
    summary: Any
    leafUuid: Any
    aiTitle: Any
    agentName: Any
    customTitle: Any
    snapshot: Union[_Snapshot, None]
    messageId: Any
    snapshotMessageId: Any
    trackingPath: Any
    backup: Union[_Backup, None]
    subtype: Any
    isApiErrorMessage: Any
    isMeta: Any
    isCompactSummary: Any
    isVisibleInTranscriptOnly: Any


READ_FIELDS = frozenset(_Record.__annotations__)
"""The fields of a line a lean record keeps (when the line has them)."""

LeanMismatch = (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError)
"""What `decode` raises for a line it leaves to the whole decode."""

_decode = msgspec.json.Decoder(_Record).decode


def decode(raw: bytes) -> dict[str, Any]:
    """The line's record, its unread fields left out; raises one of LeanMismatch for a line
    the whole decode should read (see the module's text)."""
    record: dict[str, Any] = _decode(raw)  # type: ignore[assignment]  # a TypedDict is decoded as a plain dict
    if not raw.isascii():
        raw.decode("utf-8")  # the skipped bytes valid too, as the whole decode needs them
    return record


LEAN = (decode, LeanMismatch)
"""The reader's lean decode as memtui.core.sources.jsonl takes one (its `Lean`)."""
