"""Which Claude Code user lines are prompts, by what Claude Code itself lists as the user's
prompts (its rewind list): a prompt that opens with a tag (pasted HTML) is one; a local command
(/context, /compact) is none, whether its output is a user line or (2.1.1xx+) a `system` line
of subtype `local_command` followed by the CLI's own "No response requested.".

The independent counter (real_support.claude_session_counts) and memtui, against the truth of
the live fixtures the real CLI wrote (tests/fixtures/live/claude-code-*, scenario
"tagged-prompt" among them: python -m tests.agents.run makes them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.core.agents.claude_code.source import ClaudeCodeSource

from real_support import claude_session_counts, records

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
FIXTURES = sorted(p.parent for p in LIVE.glob("claude-code-*/*/truth.json"))


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def live(request, tmp_path):
    """(a scratch copy of the fixture's Claude home, the scenario's truth)."""
    home = tmp_path / ".claude"
    shutil.copytree(request.param / "home" / ".claude", home)
    return home, json.loads((request.param / "truth.json").read_text())


def test_the_counter_and_memtui_count_the_prompts_the_scenario_typed(live):
    home, truth = live
    [(session_id, counted)] = claude_session_counts(home).items()
    # The scenarios' slash commands (/compact, /context) all run locally: none starts work.
    assert (counted["typed"], counted["commands"]) == (len(truth["prompts"]), 0)
    source = ClaudeCodeSource.from_path(home)
    assert source.counts()["prompts"] == len(truth["prompts"])
    tasks = [t for t in source.tasks(session_id) if not any(n.startswith(("sub-agent", "side question")) for n in t.summary.split("; "))]
    assert [t.title for t in tasks] == [p[:79] + "…" if len(p) > 80 else p for p in truth["prompts"]]


def test_the_fixtures_hold_the_shapes_that_decide_the_rule():
    """The real CLI wrote a tag-led prompt and a local command whose output is a system line."""
    shapes = set()
    for fixture in FIXTURES:
        for path in (fixture / "home" / ".claude" / "projects").glob("*/*.jsonl"):
            for rec in records(path):
                content = (rec.get("message") or {}).get("content")
                if rec.get("type") == "user" and isinstance(content, str) and content.startswith("<section"):
                    shapes.add("tag-led prompt")
                if rec.get("type") == "system" and rec.get("subtype") == "local_command":
                    shapes.add("local command as a system line")
    assert shapes == {"tag-led prompt", "local command as a system line"}


def test_a_json_line_holding_a_unicode_line_separator_is_one_record(tmp_path):
    """JSON leaves U+2028 and U+0085 unescaped inside strings; a transcript line holding one is
    still one record (the counter once split it in two and lost the prompt)."""
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "user", "text": "one\u2028two\x85three"}, ensure_ascii=False) + "\n")
    assert records(path) == [{"type": "user", "text": "one\u2028two\x85three"}]


def _synthetic_texts(home: Path) -> list[str]:
    """The text of every assistant line the CLI wrote itself (model `<synthetic>`), read with json."""
    return sorted(block["text"] for path in home.glob("projects/*/*.jsonl") for rec in records(path)
                  if rec.get("type") == "assistant" and (rec.get("message") or {}).get("model") == "<synthetic>"
                  for block in rec["message"]["content"] if block.get("type") == "text")


def test_claude_codes_own_words_after_a_local_command_are_a_notice_not_the_models_reply(live):
    """The CLI answers a local command itself with an assistant line of model `<synthetic>`
    ("No response requested."): the timeline shows it as Claude Code's notice, never as a
    reply of the model."""
    home, _truth = live
    source = ClaudeCodeSource.from_path(home)
    steps = [step for session in source.sessions() for task in source.tasks(session.id) for step in source.steps(task.id)]
    synthetic = _synthetic_texts(home)
    assert sorted(step.result for step in steps if step.tool == "notice") == synthetic
    assert not set(synthetic) & {step.result for step in steps if step.tool == "reply"}


def test_some_fixture_holds_a_reply_the_cli_wrote_itself():
    assert any(_synthetic_texts(fixture / "home" / ".claude") for fixture in FIXTURES)
