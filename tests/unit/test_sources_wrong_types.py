"""Adapters are total: a field of the wrong type anywhere in a Claude Code or Codex record is
a reported problem, never an exception out of the adapter (a fast slice; the reliability
harness fuzzes more)."""

from __future__ import annotations

import json
import shutil

import pytest

from memtui.core.errors import ContentError
from memtui.core.memory_source import UnknownId
from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.codex.source import CodexSource

from sources_support import FIXTURES

WRONG = {str: 7, int: "x", float: "x", bool: "yes", dict: [], list: {"a": 1}, type(None): {"n": []}}


def leaves(value, path=()):
    """Every (path, value) in a JSON value, objects and lists included."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves(child, path + (key,))
    elif isinstance(value, list):
        for n, child in enumerate(value[:4]):
            yield from leaves(child, path + (n,))


def mutated(record, path):
    record = json.loads(json.dumps(record))
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = WRONG[type(parent[path[-1]])]
    return record


def read_everything(source) -> None:
    for session in source.sessions():
        for task in source.tasks(session.id):
            source.references(task.id)
            source.messages(task.id)
            source.steps(task.id)
            for checkpoint in source.checkpoints(task.id):
                for entry in source.checkpoint_entries(checkpoint.id):
                    try:
                        source.read_entry(entry.id)
                    except (ContentError, UnknownId):
                        pass  # unknown content is reported as such, never guessed


@pytest.mark.parametrize("home, adapter", [("claude_home", ClaudeCodeSource), ("codex_home", CodexSource)])
def test_a_wrong_type_in_any_field_is_a_problem_not_a_crash(home, adapter, tmp_path):
    base = FIXTURES / "shapes" / home
    files = sorted(base.rglob("*.jsonl"))
    originals = {f: [json.loads(line) for line in f.read_text().splitlines()] for f in files}
    paths = {f: [[p for p, _ in leaves(rec) if p] for rec in recs] for f, recs in originals.items()}
    rounds = max(len(p) for per_file in paths.values() for p in per_file)
    for round_ in range(rounds):
        work = tmp_path / f"round{round_}"
        shutil.copytree(base, work)
        for f, recs in originals.items():
            lines = []
            for rec, rec_paths in zip(recs, paths[f]):
                if rec_paths:
                    rec = mutated(rec, rec_paths[round_ % len(rec_paths)])
                lines.append(json.dumps(rec))
            (work / f.relative_to(base)).write_text("\n".join(lines) + "\n")
        source = adapter.from_path(work)
        read_everything(source)  # raises on any escaped exception
        for problem in source.problems():
            assert problem.file and (problem.line is not None or "missing" in problem.message)
        shutil.rmtree(work)


def test_a_wrong_typed_usage_is_reported_with_file_line_and_field(tmp_path):
    home = tmp_path / "claude"
    shutil.copytree(FIXTURES / "shapes" / "claude_home", home)
    [path] = home.rglob("7e5d3c1b-*.jsonl")
    lines = path.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["message"]["usage"]["output_tokens"] = "x"
    lines[1] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    source = ClaudeCodeSource.from_path(home)
    [problem] = [p for p in source.problems() if p.file == str(path)]
    assert problem.line == 2 and "message.usage.output_tokens" in problem.message
    assert source.counts()["prompts"] == 6  # the rest of the file still reads
