"""memtui on transcripts the real tools wrote (tests/fixtures/real, PROVENANCE.md there).

Expected numbers come from the independent counters in real_support, never from memtui.
"""

from __future__ import annotations

import pytest

from memtui.core.sources.base import ContentUnknown
from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.codex.source import CodexSource

from real_support import claude_counts, codex_counts, real_home
from sources_support import tree_state

CLAUDE = ["claude-2.1.39-spotter", "claude-2.1.38-spotter-small", "claude-2.0.28-agtrace", "claude-2.1.38-orphan-subagents",
          "claude-2.1.2-pai"]
CODEX = ["codex-0.66.0-agtrace", "codex-0.104-localpush"]
INJECTED = ("<task-notification>", "<local-command", "<command-", "[Request interrupted", "<system-reminder>")


def every_task(source):
    return [t for s in source.sessions() for t in source.tasks(s.id)]


def browse_everything(source) -> list:
    """Every step of every task, and both sides of every file change (as the UI would)."""
    steps = []
    for task in every_task(source):
        steps += source.steps(task.id)
        for checkpoint in source.checkpoints(task.id):
            for entry in source.checkpoint_entries(checkpoint.id):
                try:
                    source.read_entry(entry.id)
                except ContentUnknown:
                    pass
    return steps


def read_real(name, tmp_path, adapter, counter):
    """(truth, memtui's counts, every step, and a check that no byte changed) for one folder."""
    home = real_home(name, tmp_path)
    truth = counter(home)
    before = tree_state(home)
    source = adapter.from_path(home)
    steps = browse_everything(source)
    return source, truth, source.counts(), steps, lambda: tree_state(home) == before


@pytest.mark.parametrize("name", CLAUDE)
def test_claude_code_reads_what_happened(name, tmp_path):
    source, truth, counts, steps, unchanged = read_real(name, tmp_path, ClaudeCodeSource, claude_counts)
    tasks = every_task(source)

    assert counts["prompts"] == truth["typed"] + truth["commands"]
    assert counts["tool_calls"] == truth["tool_calls"]
    assert counts["file_changes"] == truth["file_changes"]
    assert abs(sum(s.tokens_out for s in steps) - truth["output_tokens"]) <= truth["output_tokens"] / 100
    assert sum(t.superseded for t in tasks) == truth["superseded"]
    assert not [t.title for t in tasks if t.title.startswith(INJECTED)]
    assert not [t.title for t in tasks if t.title.startswith("Your task is to create a detailed summary")]
    assert unchanged()  # not a byte changed, not a file added


def test_notifications_interrupts_and_compactions_stay_inside_their_turn(tmp_path):
    """The session where a notification once took 199 steps: they stay with the prompt."""
    home = real_home("claude-2.1.39-spotter", tmp_path)
    source = ClaudeCodeSource.from_path(home)
    [session] = [s for s in source.sessions() if s.id.startswith("258c7280")]
    tasks = source.tasks(session.id)
    assert [t.title for t in tasks if "sub-agent" not in t.summary] == ["Implement spotter-gqc", "did you push?"]
    steps = source.steps(tasks[0].id)
    tools = [s.tool for s in steps]
    assert tools.count("notification") == 2 and tools.count("interrupt") == 1 and tools.count("compaction") == 1
    compaction = steps[tools.index("compaction")]
    assert compaction.tokens_out > 0 and "summary" in str(compaction.result).lower()
    assert session.current_task_id == tasks[1].id and not any(t.superseded for t in tasks)
    # The sub-agent the prompt handed work to hangs under it.
    [agent] = [t for t in tasks if "sub-agent" in t.summary]
    assert [(r.from_task, r.to_task) for r in source.references(agent.id)] == [(tasks[0].id, agent.id)]


def test_interrupted_turns_are_not_failures(tmp_path):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    source = ClaudeCodeSource.from_path(home)
    statuses = {t.title: t.status for t in every_task(source)}
    assert statuses["mix phx.server doesnt seem to start"] == "interrupted"
    assert "failed" not in statuses.values()
    # A custom slash command that started work is shown as the prompt it was.
    assert "/handgemacht:create-beads" in " ".join(statuses)


def test_a_session_whose_transcript_is_gone_is_listed_with_a_problem(tmp_path):
    home = real_home("claude-2.1.38-orphan-subagents", tmp_path)
    source = ClaudeCodeSource.from_path(home)
    [session] = source.sessions()
    assert session.title.startswith("(transcript missing)") and session.task_count == 1
    assert session.stored_bytes > 0
    assert any("transcript is missing" in p.message for p in source.problems())
    [task] = source.tasks(session.id)
    assert task.step_count > 40


@pytest.mark.parametrize("name", CODEX)
def test_codex_reads_what_happened(name, tmp_path):
    source, truth, counts, steps, unchanged = read_real(name, tmp_path, CodexSource, codex_counts)

    assert counts["prompts"] == truth["typed"]
    assert counts["function_calls"] == truth["tool_calls"]
    assert counts["patches"] == truth["patches"]
    assert counts["file_changes"] == truth["patch_files"]
    assert sum(s.tokens_out for s in steps) == truth["output_tokens"]
    assert sum(s.tool == "compaction" for s in steps) == truth["compactions"]
    searches = [s for s in steps if s.tool == "web_search"]
    assert len(searches) == truth["web_searches"] and all(s.status == "ok" for s in searches)
    calls = [s for s in steps if s.tool not in ("reply", "compaction", "turn_diff", "interrupted", "web_search")]
    assert all(s.duration_ms > 0 for s in calls if s.status != "no result")  # calls and outputs carry timestamps
    assert unchanged()


def test_codex_applied_patch_shows_its_diff(tmp_path):
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    source = CodexSource.from_path(home)
    [change] = [e for t in every_task(source) for c in source.checkpoints(t.id) for e in source.checkpoint_entries(c.id)]
    assert (change.path, change.kind) == ("myapp/hoge.py", "added")
    assert source.read_entry(change.id) == (None, b"print(1 + 1)\n")
