"""The Claude Code reader's fast paths read a line as its general path does: a progress or
attachment line (`TranscriptReader._link`) and a reply's usage (`records.reply_usage`), on the real
transcripts and on lines whose fields are of every unexpected type (each then read, or reported,
by the general path)."""

from __future__ import annotations

import itertools
import json
import pickle
from pathlib import Path

import pytest
from real_support import real_home

from memtui.core.agents.claude_code import records
from memtui.core.agents.claude_code.reader import TranscriptReader
from memtui.core.agents.claude_code.transcripts import Transcripts
from memtui.core.usage.tokens import from_anthropic

ODD = [None, "", "x", 0, 7, -1, 1.5, True, [], {}, {"a": 1}]
"""Values of every JSON type, put in the place of each field a fast path reads."""


def _read(path: Path, home: Path) -> tuple[bytes, list]:
    """A session's part and problems, pickled (every table, in order)."""
    part = Transcripts.read(path, home)
    return pickle.dumps((part.sessions, part.turns, part.calls, part.counts), 5), sorted(map(repr, part.problems))


def _both(monkeypatch: pytest.MonkeyPatch, path: Path, home: Path) -> None:
    fast = _read(path, home)
    with monkeypatch.context() as patch:
        patch.setattr(TranscriptReader, "_link", lambda self, lineno, rec, main: False)  # every line: _record
        patch.setattr(records, "_plain_tokens", lambda usage: None)  # every usage: the checked path
        general = _read(path, home)
    assert fast == general


@pytest.mark.parametrize("name", ["claude-2.1.39-spotter", "claude-2.1.2-pai", "claude-2.0.28-agtrace"])
def test_a_real_home_reads_the_same_through_the_fast_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    home = real_home(name, tmp_path)
    transcripts = sorted(p for p in home.glob("projects/*/*.jsonl") if not p.name.startswith("agent-"))
    assert transcripts
    for path in transcripts:
        _both(monkeypatch, path, home)


def _line(**fields) -> dict:
    base = {"type": "progress", "uuid": "u2", "parentUuid": "u1", "isSidechain": False, "sessionId": "s",
            "cwd": "/w", "timestamp": "2026-01-01T00:00:01.000Z", "data": {"type": "hook_progress"}}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not _GONE}


_GONE = object()


def test_a_link_line_of_any_field_type_reads_as_the_general_path_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    project = home / "projects" / "-w"
    project.mkdir(parents=True)
    prompt = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "cwd": "/w",
              "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "content": "hello"}}
    n = 0
    for key in ("uuid", "parentUuid", "logicalParentUuid", "isSidechain", "sessionId", "cwd", "timestamp"):
        for value, rtype in itertools.product([*ODD, _GONE], ["progress", "attachment"]):
            lines = [prompt, _line(type=rtype, **{key: value}), _line(type=rtype, uuid="u3", parentUuid="u2")]
            if key == "logicalParentUuid":
                lines[1]["parentUuid"] = None
            path = project / f"{n:04d}.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in lines))
            _both(monkeypatch, path, home)
            n += 1


def test_a_usage_of_any_shape_gives_the_tokens_the_checked_path_gives() -> None:
    counts = [None, 0, 5, -1, 2.0, True, "3", [1]]
    for fresh, written, read, output in itertools.product(counts, repeat=4):
        for split in (None, {}, {"ephemeral_1h_input_tokens": 4, "ephemeral_5m_input_tokens": 9},
                      {"ephemeral_1h_input_tokens": -2}, {"ephemeral_5m_input_tokens": 1.5}, [3]):
            for details in (None, {"thinking_tokens": 6}, {"thinking_tokens": False}, "x"):
                usage = {"input_tokens": fresh, "cache_creation_input_tokens": written, "cache_read_input_tokens": read,
                         "output_tokens": output, "cache_creation": split, "output_tokens_details": details}
                usage = {k: v for k, v in usage.items() if v is not None}
                fast = records._plain_tokens(usage)
                plain = all(v is None or (type(v) is int and v >= 0) for v in (fresh, written, read, output))
                assert (fast is not None) == plain, usage
                if fast is not None:
                    assert fast == from_anthropic(usage), usage


def test_a_step_pickles_with_every_field_it_has() -> None:
    """TranscriptItem pickles as its fields in order (its __reduce__): each field, given a value
    of its own, comes back, and a field added to the class without it fails here."""
    import dataclasses
    import datetime as dt

    from memtui.core.agents.claude_code.tables import TranscriptItem
    from memtui.core.usage.tokens import Tokens

    values = {"transcript": Path("/t.jsonl"), "created_at": dt.datetime(2026, 1, 2, tzinfo=dt.timezone.utc),
              "usage": Tokens(1, 2, 3, 4, 5, 6), "summariser": Path("/s.jsonl"), "is_error": True, "change": True}
    fields = dataclasses.fields(TranscriptItem)
    for n, f in enumerate(fields):
        values.setdefault(f.name, n + 100 if f.type == "int" or f.type == "int | None" else f"{f.name}-{n}")
    item = TranscriptItem(**values)
    back = pickle.loads(pickle.dumps(item, 5))
    assert back == item and len(TranscriptItem.__reduce__(item)[1]) == len(fields)
    assert [getattr(back, f.name) for f in fields] == [values[f.name] for f in fields]


def test_a_folder_s_agent_files_are_the_ones_pathlib_s_glob_finds(tmp_path: Path) -> None:
    from memtui.core.agents.claude_code.transcripts import _agent_files

    for name in ("agent-b.jsonl", "agent-.jsonl", "agentx.jsonl", "Agent-c.jsonl", "agent-d.jsonl.bak", ".agent-e.jsonl",
                 "agent-a.JSONL", "xagent-f.jsonl", "agent-g.jsonl"):
        (tmp_path / name).write_text("{}\n")
    (tmp_path / "agent-h.jsonl").mkdir()
    assert _agent_files(tmp_path) == sorted(tmp_path.glob("agent-*.jsonl"))
    assert [p.name for p in _agent_files(tmp_path)] == ["agent-.jsonl", "agent-b.jsonl", "agent-g.jsonl", "agent-h.jsonl"]
    assert _agent_files(tmp_path / "gone") == [] == sorted((tmp_path / "gone").glob("agent-*.jsonl"))
    assert _agent_files(tmp_path / "agent-b.jsonl") == []
