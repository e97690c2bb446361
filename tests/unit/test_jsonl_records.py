"""memtui.core.sources.jsonl.iter_records: each line decoded by orjson where it can, and a line
orjson refuses read as the standard json module reads it — records and problems as before."""

from __future__ import annotations

import json
import math

from memtui.core.sources.jsonl import MAX_DEPTH, iter_records

LINES = [
    b'{"type": "user", "n": 1}\n',
    b"\n",
    b'  {"type": "spaced"}  \r\n',
    b'{"text": "\\ud800 a lone surrogate"}\n',  # orjson refuses it; json reads it
    b'{"cost": NaN, "big": 1e400}\n',  # not JSON to orjson; json reads nan and inf
    b'["a", "list"]\n',
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"\n",
    b'{"deep but fine": ' + b"[" * 100 + b"]" * 100 + b"}\n",
    b'{"bad": \xff\xfe "utf-8"}\n',
    b'{"ok": "caf\xc3\xa9"}\n',
    b'{"broken": \n',
    b'{"last": "cut off',
]


def test_every_line_reads_as_the_json_module_would(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(LINES))
    problems = []
    got = list(iter_records(path, problems))
    offsets = [sum(map(len, LINES[:n])) for n in range(len(LINES))]
    by_line = {lineno: (offset, record) for lineno, offset, record in got}
    assert sorted(by_line) == [1, 3, 4, 5, 8, 10]
    assert by_line[1] == (offsets[0], {"type": "user", "n": 1})
    assert by_line[3] == (offsets[2], {"type": "spaced"})
    assert by_line[4][1]["text"] == "\ud800 a lone surrogate"
    assert math.isnan(by_line[5][1]["cost"]) and by_line[5][1]["big"] == math.inf
    assert by_line[8][1] == json.loads(LINES[7])
    assert by_line[10][1] == {"ok": "café"}
    found = [(p.line, p.message.split(":")[0].split(" (")[0]) for p in problems]
    assert found == [
        (6, "not a JSON object, skipped"),
        (7, f"nested more than {MAX_DEPTH} levels deep, skipped"),
        (9, "invalid UTF-8 at byte 8"),
        (9, "malformed JSON"),
        (11, "malformed JSON"),
        (12, "truncated last line"),
    ]


def test_a_last_line_with_its_newline_that_does_not_parse_is_malformed_not_truncated(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": \n')
    problems = []
    assert [r for _l, _o, r in iter_records(path, problems)] == [{"a": 1}]
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [(2, "malformed JSON")]


def test_a_record_of_many_brackets_is_read_unless_it_nests_past_the_limit(tmp_path):
    """Brackets in strings (code in a tool result) do not count; objects and arrays nested
    deeper than MAX_DEPTH are reported, at the limit they are read."""
    code = "{[" * MAX_DEPTH
    at_limit = {"a": json.loads("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))}
    too_deep = {"a": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)}
    wide = {"calls": [{"input": {"n": n}} for n in range(MAX_DEPTH)]}
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ({"content": code}, at_limit, too_deep, wide)))
    problems = []
    got = {lineno: record for lineno, _o, record in iter_records(path, problems)}
    assert got == {1: {"content": code}, 2: at_limit, 4: wide}
    assert [(p.line, p.message) for p in problems] == [(3, f"nested more than {MAX_DEPTH} levels deep, skipped")]


def test_records_read_within_held_open_are_those_read_alone_and_the_files_are_closed_after(tmp_path):
    """`held_open` (a search index built: every step of a session read) keeps each file open and
    each record read within it; what it reads is what a read alone reads, and no file stays open."""
    import os
    import sys
    from pathlib import Path

    from memtui.core.sources.jsonl import held_open, read_record_at

    sys.path.insert(0, str(Path(__file__).parent))
    from real_support import real_home

    home = real_home("claude-2.1.39-spotter", tmp_path)
    transcripts = sorted(home.glob("projects/*/*.jsonl"))[:3]
    offsets = {}
    for path in transcripts:
        at, found = 0, []
        for line in path.read_bytes().splitlines(keepends=True):
            found.append(at)
            at += len(line)
        offsets[path] = found
    alone = {(p, o): read_record_at(p, o) for p, found in offsets.items() for o in found}
    open_before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    with held_open():
        held = {(p, o): read_record_at(p, o) for p, found in offsets.items() for o in reversed(found)}
        again = read_record_at(transcripts[0], offsets[transcripts[0]][0])
        assert again is held[(transcripts[0], offsets[transcripts[0]][0])]  # read once
    assert held == alone and sum(r is not None for r in alone.values()) > 100
    if open_before is not None:
        assert len(os.listdir("/proc/self/fd")) == open_before
