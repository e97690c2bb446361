"""A GC plan's JSON document written row by row (`GcPlan.json_text()`).

The same text as `json.dumps(plan.to_json(), separators=(",", ":"), ensure_ascii=False)`,
without the document: at 100,000 tasks that is 100,000 dicts built to be thrown away, and
most of the preview's time and memory. Numbers (the store's integer columns) are written as
Python's encoder writes them; strings through its own escaping function, in C, falling back
to a slower path for a piece holding something else than text (a BLOB in a TEXT column).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any, Callable, Iterator, Sequence

from memtui.core.gc.records import LiveTask, ReclaimableTask, Root

ROWS_PER_PIECE = 4096


def _any_text(value: Any) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, bytes):  # shown as text, as the CLI's JSON shows bytes
        return encode_basestring(value.decode("utf-8", "replace"))
    return json.dumps(value, ensure_ascii=False)


def _live(rows: Sequence[LiveTask], text: Callable[[Any], str], title: Callable[[int], str]) -> str:
    return ",".join(f'{{"task":{t.task},"reason":{text(t.reason)},"root":{t.root},'
                    f'"chain":[{",".join(map(repr, t.chain))}]{title(t.task)}}}' for t in rows)


def _reclaimable(rows: Sequence[ReclaimableTask], text: Callable[[Any], str], title: Callable[[int], str]) -> str:
    return ",".join(
        f'{{"task":{t.task},"session":{"null" if t.session is None else t.session},"status":{text(t.status)},'
        f'"orphan":{"true" if t.orphan else "false"},"steps":{t.steps},"checkpoints":{t.checkpoints},'
        f'"entries":{t.entries},"blobs":{t.blobs},"bytes":{t.payload_bytes + t.blob_bytes}{title(t.task)}}}'
        for t in rows)


def _pieces(rows: Sequence, write: Callable, titles: dict | None) -> Iterator[str]:
    for start in range(0, len(rows), ROWS_PER_PIECE):
        piece = rows[start:start + ROWS_PER_PIECE]
        try:
            text = write(piece, encode_basestring, _title(titles, encode_basestring))
        except TypeError:  # something else than text in a text column
            text = write(piece, _any_text, _title(titles, _any_text))
        yield ("," if start else "") + text


def _title(titles: dict | None, text: Callable[[Any], str]) -> Callable[[int], str]:
    if titles is None:
        return lambda task: ""
    get = titles.get
    return lambda task: f',"title":{text(get(task, ""))}'


def json_pieces(roots: Sequence[Root], live: Sequence[LiveTask], reclaimable: Sequence[ReclaimableTask],
                titles: dict | None, tail: dict[str, int]) -> Iterator[str]:
    """The plan's document in pieces: its rows (each with its "title" when `titles` is given),
    then the figures of `tail`."""
    yield '{"roots":['
    yield ",".join(f'{{"task":{r.task},"kind":{encode_basestring(r.kind)},'
                   f'"kinds":[{",".join(map(encode_basestring, r.kinds))}]}}' for r in roots)
    yield '],"live":['
    yield from _pieces(live, _live, titles)
    yield '],"reclaimable":['
    yield from _pieces(reclaimable, _reclaimable, titles)
    yield "]," + json.dumps(tail, separators=(",", ":"))[1:]
