"""A transcript that grows is parsed on from where its last parse stopped (memtui.core.sources.cursor):
only its new lines, a line the agent is still writing not until it is complete; and what a user
reads after each step is what a fresh read of the home gives.

The growth is real: the largest session of a real home (tests/fixtures/real) is cut to its first
lines and given the rest back in steps, as the agent wrote them, one step ending in half a line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from real_support import real_home
from test_kept_index import _live, _open, everything, without_index

import memtui.core.sources.jsonl as jsonl

HOMES = ["claude-2.1.39-spotter", "claude-2.1.2-pai", "claude-2.0.28-agtrace", "codex-0.104-localpush",
         "codex-0.66.0-agtrace"]


def _largest(home: Path) -> Path:
    """The largest main transcript (a Claude Code session's, a Codex rollout)."""
    files = [*home.glob("projects/*/*.jsonl"), *home.glob("sessions/**/*.jsonl")]
    return max(files, key=lambda p: p.stat().st_size)


class ParsedLines:
    """Counts the lines of one file parsed as JSON records while it is on (a look at its
    first lines for its header, as discovery takes, is no parse of it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
        self.path, self.count = str(path), 0
        real = jsonl._record  # every line a listing reads goes through it

        def counted(raw, where, *args, **kwargs):
            if str(where) == self.path:
                self.count += 1
            return real(raw, where, *args, **kwargs)

        monkeypatch.setattr(jsonl, "_record", counted)


def _listed(home: Path, monkeypatch: pytest.MonkeyPatch, grown: Path) -> tuple[dict, int, int]:
    """What a user reads of the home through its index, the lines of `grown` parsed to list it,
    and the files parsed."""
    with monkeypatch.context() as patch:
        parsed = ParsedLines(patch, grown)
        source = _open(home)
        source.sessions()
    with source:
        return everything(source), parsed.count, _live(source).files_read


@pytest.mark.parametrize("name", HOMES)
def test_a_transcript_grown_in_steps_is_parsed_from_its_last_line_and_reads_as_a_fresh_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    home = real_home(name, tmp_path)
    grown = _largest(home)
    lines = grown.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 20, "a transcript of some length"
    cut = [len(lines) * share // 100 for share in (30, 50, 70, 85)]
    grown.write_bytes(b"".join(lines[:cut[0]]))
    first, _parsed, _files = _listed(home, monkeypatch, grown)
    assert first == without_index(home)

    torn = lines[cut[2]][: len(lines[cut[2]]) // 2]
    steps = [  # (bytes appended, lines completed by them, whether a torn line ends them)
        (b"".join(lines[cut[0]:cut[1]]), cut[1] - cut[0], False),
        (b"".join(lines[cut[1]:cut[2]]) + torn, cut[2] - cut[1], True),
        (lines[cut[2]][len(torn):] + b"".join(lines[cut[2] + 1:cut[3]]), cut[3] - cut[2], False),
        (b"".join(lines[cut[3]:]), len(lines) - cut[3], False),
    ]
    for appended, completed, ends_torn in steps:
        with grown.open("ab") as out:
            out.write(appended)
        listed, parsed, files = _listed(home, monkeypatch, grown)
        assert files == 1, "the grown session alone is read again"
        # Its new complete lines, and the one being written (not consumed: parsed again next time).
        assert parsed == completed + ends_torn
        assert listed == without_index(home)
    assert grown.read_bytes() == b"".join(lines)
    assert listed != first


@pytest.mark.parametrize("name", ["claude-2.1.39-spotter", "codex-0.104-localpush"])
def test_a_transcript_changed_before_its_last_parse_or_shortened_is_parsed_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    home = real_home(name, tmp_path)
    grown = _largest(home)
    lines = grown.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    grown.write_bytes(b"".join(lines[:half]))
    _listed(home, monkeypatch, grown)

    # The bytes before the cursor rewritten (same length) and new lines after: parsed whole.
    first = lines[0]
    at = first.index(b'"timestamp":"') + len(b'"timestamp":"') if b'"timestamp":"' in first else 2
    edited = first[:at] + (b"1" if first[at:at + 1] != b"1" else b"2") + first[at + 1:]
    grown.write_bytes(b"".join([edited, *lines[1:half + 5]]))
    listed, parsed, _files = _listed(home, monkeypatch, grown)
    assert parsed == half + 5
    assert listed == without_index(home)

    # Shortened (the agent's file rewritten shorter): parsed whole.
    grown.write_bytes(b"".join(lines[:half - 3]))
    listed, parsed, _files = _listed(home, monkeypatch, grown)
    assert parsed == half - 3
    assert listed == without_index(home)

    # Replaced by another file of the same first lines and more (a new inode): parsed whole.
    replacement = grown.with_name(grown.name + ".new")
    replacement.write_bytes(b"".join(lines))
    replacement.replace(grown)
    listed, parsed, _files = _listed(home, monkeypatch, grown)
    assert parsed == len(lines)
    assert listed == without_index(home)


class ParsedFiles:
    """The lines parsed as JSON of each file while it is on (a listing, a record read again by
    its offset, a look at a file's first line)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: dict[str, int] = {}
        # A listing's lines go through `_record`, a record read again by its offset and a
        # first line looked at through `parse_line` (as does a line `_record` leaves to it).
        for name in ("_record", "parse_line"):
            monkeypatch.setattr(jsonl, name, self._counted(getattr(jsonl, name)))

    def _counted(self, real):
        def counted(raw, where, *args, **kwargs):
            self.lines[str(where)] = self.lines.get(str(where), 0) + 1
            return real(raw, where, *args, **kwargs)
        return counted

    def parsed(self) -> set[str]:
        """The files read past their first line (discovery looks at a few files' first line to
        know the home for Claude Code's: no parse of their sessions)."""
        return {path for path, lines in self.lines.items() if lines > 1}


def _appended_exchange(transcript: Path, prompt: str, reply: str) -> None:
    """A prompt and the model's text reply at the end of a session, as Claude Code appends them:
    the session's own records again under new uuids, parented to its last record."""
    import json

    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines() if line.strip()]
    typed = next(r for r in records if r.get("type") == "user" and isinstance(r.get("message", {}).get("content"), str))
    answer = next(r for r in records if r.get("type") == "assistant"
                  and any(b.get("type") == "text" for b in r["message"].get("content", [])))
    last = next(r for r in reversed(records) if r.get("uuid"))
    asked = {**typed, "uuid": "0b1f0000-0000-4000-8000-00000000000a", "parentUuid": last["uuid"],
             "timestamp": "2031-01-01T00:00:00.000Z", "message": {"role": "user", "content": prompt}}
    said = {**answer, "uuid": "0b1f0000-0000-4000-8000-00000000000b", "parentUuid": asked["uuid"],
            "timestamp": "2031-01-01T00:00:05.000Z",
            "message": {**answer["message"], "id": "msg_grown_0001", "content": [{"type": "text", "text": reply}]}}
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps(asked) + "\n" + json.dumps(said) + "\n")


def test_a_search_after_one_session_grew_parses_that_session_alone_and_finds_its_new_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from memtui.cli import main
    from real_support import many_sessions

    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 4)
    sessions = sorted(home.glob("projects/*/*.jsonl"))
    assert len(sessions) == 12
    assert main(["search", str(home), "elixirforum", "--json"]) == 0  # the search index built
    capsys.readouterr()
    grown = sessions[5]
    _appended_exchange(grown, "please look at the quokkafirmware driver", "The zebrawombat register is mapped.")
    with monkeypatch.context() as patch:
        parsed = ParsedFiles(patch)
        assert main(["search", str(home), "quokkafirmware", "--json"]) == 0
        asked = json.loads(capsys.readouterr().out)
    assert parsed.parsed() == {str(grown)}, "no other session's file was parsed"
    assert {h["kind"] for h in asked} == {"task"} and all(h["task"].startswith(grown.stem) for h in asked)
    assert main(["search", str(home), "zebrawombat", "--json"]) == 0  # the model's reply
    said = json.loads(capsys.readouterr().out)
    assert len(said) == 1 and said[0]["task"].startswith(grown.stem), said
    with monkeypatch.context() as patch:
        parsed = ParsedFiles(patch)
        assert main(["search", str(home), "elixirforum", "--json"]) == 0  # warm: nothing changed
        capsys.readouterr()
    assert parsed.parsed() == set(), "a search of an unchanged home parses no transcript"


@pytest.mark.parametrize("may_write", [True, False], ids=["index kept", "read-only"])
def test_following_a_growing_transcript_parses_only_its_new_lines_at_each_reload(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, may_write: bool) -> None:
    """Follow mode reloads the open source when the agent writes: each reload parses the lines
    written since the last one, whether the home's index may be kept or not (--read-only)."""
    from memtui.core.atomic import forbid_writes

    home = real_home("claude-2.1.39-spotter", tmp_path)
    grown = _largest(home)
    lines = grown.read_bytes().splitlines(keepends=True)
    cut = len(lines) // 3
    grown.write_bytes(b"".join(lines[:cut]))
    if not may_write:
        forbid_writes("following read-only")
    try:
        with _open(home) as source:
            source.sessions()
            for end in (cut + 7, cut + 8, 2 * cut, len(lines)):
                with grown.open("ab") as out:
                    out.write(b"".join(lines[cut:end]))
                with monkeypatch.context() as patch:
                    parsed = ParsedLines(patch, grown)
                    source.reload()
                    source.sessions()
                assert parsed.count == end - cut
                cut = end
            followed = everything(source)
    finally:
        forbid_writes(None)
    assert followed == without_index(home)


def test_a_finished_session_keeps_no_cursor_until_it_grows_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transcript last written days ago is indexed without the parser's state (a heavy home's
    finished sessions would triple the index); when it grows after all it is parsed whole once,
    then from its cursor."""
    import os

    from memtui.core.sources.kept_parts import LIVE_NS

    home = real_home("claude-2.1.39-spotter", tmp_path)
    grown = _largest(home)
    lines = grown.read_bytes().splitlines(keepends=True)
    cut = len(lines) // 2
    grown.write_bytes(b"".join(lines[:cut]))
    old = grown.stat().st_mtime_ns - 3 * LIVE_NS
    for path in home.rglob("*"):
        os.utime(path, ns=(old, old))
    _listed(home, monkeypatch, grown)
    for end, parsed_lines in ((cut + 10, cut + 10), (cut + 30, 20), (len(lines), len(lines) - cut - 30)):
        with grown.open("ab") as out:
            out.write(b"".join(lines[len(grown.read_bytes().splitlines()):end]))
        listed, parsed, _files = _listed(home, monkeypatch, grown)
        assert parsed == parsed_lines
    assert listed == without_index(home)
