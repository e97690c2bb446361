"""The Claude Code reader decodes each transcript line lean (memtui.core.agents.claude_code.lean:
the fields it reads, the rest skipped unread). Everything a user can read of a home — every
session, task, step, checkpoint, usage row, count and problem — is the same as when every line
is decoded whole, on the real published homes and the live fixtures the real CLI wrote; and on
lines of shapes the lean decode leaves to the whole decode (a field of another type, invalid
UTF-8 in a skipped field, a count past 64 bits, malformed JSON), which read and report as
they always have."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.core.agents.claude_code import lean
from real_support import real_home
from test_kept_index import LIVE, everything, without_index

REAL_CLAUDE = ["claude-2.1.39-spotter", "claude-2.1.38-spotter-small", "claude-2.1.38-orphan-subagents",
               "claude-2.0.28-agtrace", "claude-2.1.2-pai"]
LIVE_CLAUDE = sorted(str(p.relative_to(LIVE)) for p in LIVE.glob("claude-code-*/*/home/.claude"))


def both_ways(home: Path, monkeypatch) -> tuple[dict, dict]:
    """`everything` of the home read lean, and read with every line decoded whole (no index
    kept either way: each read parses every transcript)."""
    lean_read = without_index(home)
    with monkeypatch.context() as whole:
        whole.setattr(lean, "LEAN", None)
        whole_read = without_index(home)
    return lean_read, whole_read


@pytest.mark.parametrize("name", REAL_CLAUDE)
def test_a_real_home_reads_the_same_lean_and_whole(tmp_path: Path, monkeypatch, name: str) -> None:
    lean_read, whole_read = both_ways(real_home(name, tmp_path), monkeypatch)
    assert lean_read["tasks"] and lean_read == whole_read


@pytest.mark.parametrize("name", LIVE_CLAUDE)
def test_a_live_fixture_reads_the_same_lean_and_whole(tmp_path: Path, monkeypatch, name: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(LIVE / name, home)
    lean_read, whole_read = both_ways(home, monkeypatch)
    assert lean_read["tasks"] and lean_read == whole_read


def _odd_lines(transcript: Path) -> None:
    """Lines of shapes the lean decode leaves to the whole decode, each made from one of the
    transcript's own records (the rest of each line as the CLI wrote it)."""
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines() if line.strip()]
    reply = next(r for r in records if r.get("type") == "assistant" and isinstance(r["message"].get("usage"), dict))
    result = next(r for r in records if r.get("type") == "user" and "toolUseResult" in r)
    progress = next(r for r in records if r.get("type") == "progress")
    odd: list[bytes] = []
    big = json.loads(json.dumps(reply))
    big["message"]["usage"]["output_tokens"] = 2**70  # orjson reads it as a float
    odd.append(json.dumps(big).encode())
    numbered = json.loads(json.dumps(result))
    numbered["toolUseResult"] = 7
    odd.append(json.dumps(numbered).encode())
    block = json.loads(json.dumps(reply))
    block["message"]["content"] = ["a block that is a string", *block["message"]["content"]]
    odd.append(json.dumps(block).encode())
    # Invalid UTF-8 in a field the reader never reads (the progress line's data).
    broken = json.dumps(progress).encode().replace(b'"data": {', b'"data": {"note": "caf\xe9", ', 1)
    assert b"caf\xe9" in broken
    odd.append(broken)
    odd.append(json.dumps(progress).encode()[:-5])  # malformed (cut short) in the middle of the file
    odd.append(json.dumps(dict(reply, timestamp=True)).encode())
    stringly = json.loads(json.dumps(reply))
    stringly["message"] = "a reply that is a string"  # read lean as it is: the same string
    with transcript.open("ab") as out:
        for line in odd:
            out.write(line + b"\n")
        out.write(json.dumps(stringly).encode() + b"\n")


def test_lines_the_lean_decode_leaves_alone_read_and_report_as_whole_lines_do(tmp_path: Path, monkeypatch) -> None:
    home = real_home("claude-2.1.39-spotter", tmp_path)
    transcript = max(home.glob("projects/*/*.jsonl"), key=lambda p: p.stat().st_size)
    _odd_lines(transcript)
    for line in transcript.read_bytes().splitlines()[-7:-1]:
        with pytest.raises(lean.LeanMismatch):
            lean.decode(line)
    assert lean.decode(transcript.read_bytes().splitlines()[-1])["message"] == "a reply that is a string"
    lean_read, whole_read = both_ways(home, monkeypatch)
    assert lean_read == whole_read
    problems = "\n".join(lean_read["problems"])
    assert "invalid UTF-8" in problems and "malformed JSON" in problems


def test_a_lean_record_is_the_whole_record_less_the_fields_the_reader_skips(tmp_path: Path) -> None:
    """Each line of a real transcript: every field the lean record has is the whole record's,
    and what it leaves out is tool output, progress data and thinking, not the fields read."""
    import orjson

    home = real_home("claude-2.1.39-spotter", tmp_path)
    kept = lean.READ_FIELDS
    skipped_bytes = read_bytes = 0
    for transcript in home.glob("projects/*/*.jsonl"):
        for line in transcript.read_bytes().splitlines():
            whole, lean_record = orjson.loads(line), lean.decode(line)
            assert set(lean_record) == set(whole) & kept
            for key in ("type", "uuid", "parentUuid", "timestamp", "sessionId", "cwd", "isSidechain"):
                assert lean_record.get(key) == whole.get(key)
            read_bytes += len(line)
            skipped_bytes += len(line) - len(orjson.dumps(lean_record, default=lambda raw: None))
    assert skipped_bytes > read_bytes / 2  # most of a transcript is what the index never keeps
