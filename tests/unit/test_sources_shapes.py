"""The real-world shapes memtui once misread, rebuilt small (tests/fixtures/make_shape_fixtures.py)."""

from __future__ import annotations

import pytest

from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.codex.rollout_files import rollouts_for_workspace
from memtui.core.agents.codex.source import CodexSource

from sources_support import FIXTURES, copy_fixture

SHAPES = "7e5d3c1b-9a8f-4e6d-b2c1-0a9f8e7d6c51"
INLINE = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e10"
ORPHAN = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"


@pytest.fixture(scope="module")
def claude():
    return ClaudeCodeSource.from_path(FIXTURES / "shapes" / "claude_home")


@pytest.fixture(scope="module")
def codex():
    return CodexSource.from_path(FIXTURES / "shapes" / "codex_home")


def titles(source, session_id):
    return [t.title for t in source.tasks(session_id)]


def test_injected_lines_are_steps_of_the_turn_not_prompts(claude):
    # Typed: 4 prompts and 1 slash command that started work; the interrupts, the
    # notification, /compact and its output are not prompts.
    assert titles(claude, SHAPES) == ["Fix the flaky CLI test", "Now run the whole suite", "Try pytest -x",
                                      "Run pytest -q instead", "/review tally/cli.py"]
    first = claude.tasks(SHAPES)[0]
    assert [s.tool for s in claude.steps(first.id)] == [
        "Bash", "reply", "interrupt", "notification", "Edit", "command", "compaction", "command output"]


def test_a_compaction_is_not_a_rewind_only_a_sibling_prompt_is(claude):
    tasks = claude.tasks(SHAPES)
    assert [t.superseded for t in tasks] == [False, False, True, False, False]
    session = next(s for s in claude.sessions() if s.id == SHAPES)
    assert session.current_task_id == tasks[-1].id


def test_output_tokens_are_the_last_snapshot_of_each_reply(claude):
    first = claude.tasks(SHAPES)[0]
    steps = claude.steps(first.id)
    assert steps[0].tokens_out == 441  # not the first line's 10, not 10 + 10 + 441
    assert sum(s.tokens_out for s in steps if s.tool != "compaction") == 441 + 220


def test_the_compaction_summariser_belongs_to_the_compaction(claude):
    assert not any("summary" in t for t in titles(claude, SHAPES))
    compaction = next(s for s in claude.steps(claude.tasks(SHAPES)[0].id) if s.tool == "compaction")
    assert compaction.tokens_out == 300 and "flaky CLI test" in compaction.result


def test_interrupted_is_its_own_status(claude):
    statuses = [t.status for t in claude.tasks(SHAPES)]
    assert statuses[-1] == "interrupted" and "failed" not in statuses


def test_inline_sidechain_is_a_nested_sub_agent(claude):
    prompt, agent = claude.tasks(INLINE)
    assert prompt.title == "Where is count_lines used?" and "sub-agent" in agent.summary
    assert [(r.from_task, r.to_task) for r in claude.references(agent.id)] == [(prompt.id, agent.id)]
    assert [s.tool for s in claude.steps(agent.id)] == ["Grep", "reply"]


def test_a_session_with_only_sub_agents_left_is_listed(claude):
    orphan = next(s for s in claude.sessions() if s.id == ORPHAN)
    # Named by the prompt history (the slash command before it names nothing).
    assert orphan.title == "(transcript missing) Map the tally package for me"
    assert any(ORPHAN in p.file and "missing" in p.message for p in claude.problems())


def test_claude_counts_are_typed_prompts(claude):
    assert claude.counts() == {"sessions": 3, "prompts": 6, "tool_calls": 6, "file_changes": 1, "malformed_lines": 0}


def test_codex_patches_every_way_they_are_applied(codex):
    assert codex.counts()["patches"] == 4
    entries = {e.path: e for t in codex.tasks(next(s.id for s in codex.sessions() if s.title.startswith("Patch")))
               for c in codex.checkpoints(t.id) for e in codex.checkpoint_entries(c.id)}
    assert set(entries) == {"notes/a.md", "tally/cli.py", "tally/count.py"}
    assert entries["tally/count.py"].line_counts == (1, 1)
    assert "PATCH" not in entries["tally/count.py"].diff  # the heredoc terminator is not part of the patch
    assert codex.read_entry(entries["notes/a.md"].id) == (None, b"first note\n")


def test_codex_one_compaction_searches_aborts_and_durations(codex):
    session = next(s for s in codex.sessions() if s.title == "Patch three files")
    patch_turn, test_turn = codex.tasks(session.id)
    steps = codex.steps(patch_turn.id)
    assert [s.tool for s in steps] == ["applypatch", "shell", "shell", "web_search", "compaction", "reply"]
    search = steps[3]
    assert search.status == "ok" and search.result["query"] == "python splitlines newline"
    assert all(s.duration_ms > 0 for s in steps[:3])
    assert test_turn.status == "interrupted"
    assert [s.status for s in codex.steps(test_turn.id)][-1] == "interrupted"


def test_codex_early_rollout_found_from_its_project(tmp_path):
    workspace = tmp_path / "tally"
    workspace.mkdir()
    home = copy_fixture("shapes/codex_home", tmp_path / "codex", workspace)
    found = rollouts_for_workspace(workspace, home)
    assert len(found) == 2  # the early one has its cwd only in the environment context
    early = CodexSource(found, home=home)
    session = next(s for s in early.sessions() if s.title == "Rename the CLI flag")
    [task] = early.tasks(session.id)
    [checkpoint] = early.checkpoints(task.id)
    [entry] = early.checkpoint_entries(checkpoint.id)
    assert entry.path == "README.md" and early.workspace_root(task.id) == workspace


def test_codex_thread_names_index_first_then_state_database(tmp_path):
    home = copy_fixture("shapes/codex_home", tmp_path / "codex")
    codex = CodexSource.from_path(home)
    assert {s.title for s in codex.sessions()} == {"Patch three files", "Rename the CLI flag"}
    # The WAL-mode state database is opened immutable: no -wal/-shm appear beside it.
    assert sorted(p.name for p in home.iterdir()) == ["session_index.jsonl", "sessions", "state_5.sqlite"]


def test_codex_a_token_count_that_drops_is_a_new_baseline():
    from real_support import codex_counts

    home = FIXTURES / "shapes" / "codex_reset"
    source = CodexSource.from_path(home)
    [session] = source.sessions()
    per_turn = [sum(s.tokens_out for s in source.steps(t.id)) for t in source.tasks(session.id)]
    assert per_turn == [400, 53, 67]  # the turn after the reset is not 0 (nor negative)
    assert sum(per_turn) == codex_counts(home)["output_tokens"]
    assert sum(s.tokens_in for t in source.tasks(session.id) for s in source.steps(t.id)) == 60000 + 59970 + 60030
    assert source.token_usage(session.id)["output_tokens"] == 520
