"""Claude Code 2.1.8x shapes (tests/fixtures/make_shape_fixtures.py, claude_forks/): sub-agent
files that fork the whole conversation, titles, continued sessions, persisted tool outputs.

Expected numbers come from the independent counter in real_support (each record, reply and
tool call counted once, in the first transcript of its session that holds it).
"""

from __future__ import annotations

import pytest

from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.claude_code.transcripts import transcripts_for_workspace

from real_support import claude_session_counts
from sources_support import FIXTURES

HOME = FIXTURES / "shapes" / "claude_forks"
FORK = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c86"
PRED = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c40"
CONT = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c41"
TITLES = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c50"
IDE = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c51"
API = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c52"
FRAGMENT = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c53"
WORKTREE = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c54"
NOT_CALLS = {"reply", "thinking", "compaction", "checkpoint", "interrupt", "notification", "command output", "shell",
             "command", "api error", "notice"}


@pytest.fixture(scope="module")
def claude():
    return ClaudeCodeSource.from_path(HOME)


def per_session(source) -> dict[str, dict[str, int]]:
    """What memtui shows per session: prompts (tasks that are neither sub-agents nor side
    questions nor the part before the first prompt), tool calls, file changes, output tokens."""
    out = {}
    for session in source.sessions():
        counts = dict(prompts=0, tool_calls=0, file_changes=0, output_tokens=0)
        for task in source.tasks(session.id):
            steps = source.steps(task.id)
            if "sub-agent" not in task.summary and "side question" not in task.summary and not task.id.endswith(":start"):
                counts["prompts"] += 1
            counts["tool_calls"] += sum(s.tool not in NOT_CALLS for s in steps)
            counts["file_changes"] += sum(1 for s in steps if s.checkpoint_id and s.tool != "checkpoint")
            counts["output_tokens"] += sum(s.tokens_out for s in steps)
        out[session.id] = counts
    return out


def test_every_session_counts_each_record_once(claude):
    truth = {sid: dict(prompts=c["typed"] + c["commands"], tool_calls=c["tool_calls"], file_changes=c["file_changes"],
                       output_tokens=c["output_tokens"]) for sid, c in claude_session_counts(HOME).items()}
    assert per_session(claude) == truth
    assert claude.counts()["tool_calls"] == sum(c["tool_calls"] for c in truth.values())


def test_the_summariser_fork_adds_only_its_summary_to_the_compaction(claude):
    steps = [s for t in claude.tasks(FORK) for s in claude.steps(t.id)]
    [compaction] = [s for s in steps if s.tool == "compaction"]
    assert compaction.tokens_out == 310  # its own reply, not the 960 of the conversation it copied
    assert "400 tests pass" in compaction.result
    assert [s.tool for s in steps].count("Edit") == 1


def test_a_side_question_hangs_under_the_turn_it_was_asked_during(claude):
    tasks = claude.tasks(FORK)
    [side] = [t for t in tasks if "side question" in t.summary]
    first = tasks[0]
    assert side.title == "btw, which Python versions does tally support?"
    assert [(r.from_task, r.to_task, r.kind) for r in claude.references(side.id)] == [(first.id, side.id, "handoff")]
    [answer] = claude.steps(side.id)
    assert (answer.tool, answer.tokens_out) == ("reply", 15)


def test_a_thinking_only_reply_keeps_its_tokens(claude):
    run = next(t for t in claude.tasks(FORK) if t.title == "Run the tests")
    steps = claude.steps(run.id)
    assert [s.tool for s in steps] == ["thinking", "Bash", "reply", "compaction"]  # auto compaction ran after it
    assert steps[0].tokens_out == 700 and steps[0].result == "Long deliberation."


def test_titles_prefer_what_names_the_session(claude):
    titles = {s.id: s.title for s in claude.sessions()}
    assert titles[FORK] == "verbose flag"  # custom-title over ai-title over the first prompt
    assert titles[TITLES] == "Why is the build slow?"  # not the local /usage before it
    assert titles[IDE] == "Explain build_parser"  # not the IDE context blocks before it
    assert [t.title for t in claude.tasks(TITLES)] == ["(before the first prompt)", "Why is the build slow?"]


def test_a_continued_session_is_listed_under_its_own_id(claude):
    ids = {s.id for s in claude.sessions()}
    assert {PRED, CONT} <= ids
    tasks = claude.tasks(CONT)
    assert f"continues session {PRED}" in tasks[0].summary
    assert [(r.from_task, r.to_task, r.kind) for r in claude.references(tasks[0].id)
            if r.kind == "continues"] == [(tasks[0].id, claude.tasks(PRED)[-1].id, "continues")]


def test_a_prompt_sent_again_after_an_interrupt_is_no_rewind(claude):
    tasks = [t for t in claude.tasks(CONT) if t.title == "Add a test for count_words"]
    assert [(t.status, t.superseded) for t in tasks] == [("interrupted", False), ("completed", False)]


def test_api_errors_and_fragments_read_without_a_crash(claude):
    [task] = claude.tasks(API)
    assert task.title == "Summarise the changelog" and task.status == "failed"
    assert [(s.tool, s.status, s.result) for s in claude.steps(task.id)] == [("api error", "error", "Overloaded")] * 2
    assert [t.title for t in claude.tasks(FRAGMENT)] == ["Carry on"]
    assert not claude.problems()


def test_a_worktree_project_folder_is_found_by_its_recorded_cwd():
    found = transcripts_for_workspace(__import__("pathlib").Path("/home/dev/tally/.claude/worktrees/fix-flag"), HOME)
    assert [p.stem for p in found] == [WORKTREE]


def test_cleanup_names_sessions_as_browsing_does(tmp_path):
    from memtui.core.homes import take_inventory

    titles = {s.id: s.title for s in take_inventory(HOME, cache=tmp_path / "cache").sessions}
    assert (titles[IDE], titles[TITLES], titles[FORK]) == ("Explain build_parser", "Why is the build slow?", "verbose flag")
