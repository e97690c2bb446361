"""Claude Code 2.1.8x-9x forks the whole conversation into the session's `subagents` folder: a
compaction's summariser (`agent-acompact-*`) and a side question (`agent-aside_question-*`)
each start with a copy of every record of the main transcript (same `uuid`s, same
`message.id`s), then add their own few. Read from what the real CLI wrote (tests/fixtures/live,
scenario "forks"), against the scenario's truth: the copies are counted once, the summariser's
reply is the compaction step's, the side question hangs under the turn it was asked after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main

from .live_support import NOT_CALLS, agent_home, fixture_id, fixtures, open_fixture, sessions, truth_of

CLAUDE = fixtures("claude-code")
FORK_KINDS = ("acompact", "aside_question")


def fork_files(fixture: Path, kind: str) -> list[Path]:
    return sorted(agent_home(fixture).glob(f"projects/*/*/subagents/agent-{kind}-*.jsonl"))


FORKED = [f for f in CLAUDE if any(fork_files(f, kind) for kind in FORK_KINDS)]
pytestmark = pytest.mark.skipif(not FORKED, reason="no live fixture with a fork (python -m tests.agents.run makes them)")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_fixtures_hold_both_forks_and_they_copy_the_conversation():
    """The shapes are pinned by files the real CLI wrote: a summariser and a side question,
    each opening with the main transcript's own records, word for word by uuid."""
    forks = [f for f in FORKED if f.name == "forks"]
    assert forks, "no 'forks' fixture: run python -m tests.agents.run --scenario forks"
    for fixture in forks:
        [main_file] = [p for p in agent_home(fixture).glob("projects/*/*.jsonl")]
        main_uuids = {r["uuid"] for r in records(main_file) if "uuid" in r}
        for kind in FORK_KINDS:
            [fork] = fork_files(fixture, kind)
            copied = [r for r in records(fork) if r.get("uuid") in main_uuids]
            assert len(copied) >= 6 and len(records(fork)) - len(copied) == 2, fork.name


@pytest.mark.parametrize("fixture", FORKED, ids=fixture_id)
def test_fork_copies_are_counted_once(fixture):
    """Tool calls, file changes and output tokens of the session equal the script's: the
    copies the forks hold add nothing; what they add (the summary, the answer) is counted."""
    truth = truth_of(fixture)
    source = open_fixture(fixture)
    [session] = sessions(source)
    calls = [s.tool for t in session.tasks() for s in source.steps(t.id) if s.tool not in NOT_CALLS]
    assert sorted(calls) == sorted(truth["tool_calls"])
    assert source.counts()["tool_calls"] == len(truth["tool_calls"])
    edits = [c for c in truth["file_changes"] if c["op"] in ("Write", "Edit", "MultiEdit")]
    assert source.counts()["file_changes"] == len(edits)
    assert session.output_tokens() == truth["output_tokens"]
    assert [t.title for t in session.prompts] == truth["prompts"]
    source.close()


@pytest.mark.parametrize("fixture", [f for f in FORKED if fork_files(f, "acompact")], ids=fixture_id)
def test_the_summariser_reply_is_the_compaction_step(fixture):
    """A compaction shows once, carrying the summariser's own reply (its tokens and its text,
    not the copied conversation's): /compact in the prompt it followed, an automatic one in the
    prompt whose sending set it off."""
    truth = truth_of(fixture)
    source = open_fixture(fixture)
    [session] = sessions(source)
    found = [(n, s) for n, t in enumerate(session.prompts) for s in source.steps(t.id) if s.tool == "compaction"]
    [(where, compaction)] = found
    command = next((t for t in truth["turns"] if t["command"] and t["prompt"] == "/compact"), None)
    expected = command or truth["auto_compaction"]
    assert where == (0 if command else len(session.prompts) - 1)
    assert compaction.tokens_out == expected["output_tokens"]
    assert expected.get("answer") is None or expected["answer"] in str(compaction.result)
    source.close()


@pytest.mark.parametrize("fixture", [f for f in FORKED if fork_files(f, "aside_question")], ids=fixture_id)
def test_a_side_question_hangs_under_the_turn_it_was_asked_after(fixture):
    """The side question is a task under the prompt it was asked after, titled by the question
    (not Claude Code's instructions around it), with its answer's tokens; no prompt of its own."""
    truth = truth_of(fixture)
    source = open_fixture(fixture)
    [session] = sessions(source)
    turns = [t for t in truth["turns"] if not t["command"]]
    assert [[a.title for a in session.asides[str(p.id)]] for p in session.prompts] == \
        [[a["question"] for a in t["asides"]] for t in turns]
    for prompt, turn in zip(session.prompts, turns):
        for aside, expected in zip(session.asides[str(prompt.id)], turn["asides"]):
            steps = source.steps(aside.id)
            assert sum(s.tokens_out for s in steps) == expected["output_tokens"]
            assert [s.tool for s in steps if s.tool not in NOT_CALLS] == []
    source.close()


@pytest.mark.parametrize("fixture", [f for f in FORKED if f.name == "forks"], ids=fixture_id)
def test_memtui_log_json_counts_the_forks_once(fixture, capsys):
    """`memtui log HOME --json`: the session's prompts as tasks, the side question among them
    once, and the tokens the script reported."""
    truth = truth_of(fixture)
    assert main(["log", str(agent_home(fixture)), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    titles = [t["title"] for t in session["tasks"]]
    assert [t for t in titles if t in truth["prompts"]] == truth["prompts"]
    assert [t for t in titles if t in [a["question"] for a in truth["asides"]]] == [a["question"] for a in truth["asides"]]
