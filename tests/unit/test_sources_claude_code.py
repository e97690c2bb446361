"""Claude Code transcripts: both record generations, sub-agents, file history, rewinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.memory_source import MemorySource
from memtui.core.discovery import discover
from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.core.sources.base import ContentUnknown
from memtui.core.agents.claude_code.source import ClaudeCodeSource

from sources_support import FIXTURES, agent_homes, discovered, fixture_texts, tree_state

S20 = "1a9d4e2b-3c5f-4a6b-8d7e-9f0a1b2c3d20"
S21 = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"
TEXTS = fixture_texts()


@pytest.fixture
def homes(tmp_path):
    return agent_homes(tmp_path)


@pytest.fixture
def source(homes):
    workspace, env = homes
    source = discovered(workspace, env, "claude-code")
    return source.open()


def test_detected_from_the_workspace_by_recorded_cwd(homes):
    workspace, env = homes
    source = discovered(workspace, env, "claude-code")
    # Two sessions of this project; the notes project in the same home is not picked.
    assert source.counts() == {"sessions": 2, "prompts": 5, "tool_calls": 12, "file_changes": 6, "malformed_lines": 4,
                               "unknown_records": 1, "archived_sessions": 0}
    assert {s.id for s in source.open().sessions()} == {S20, S21}


def test_directory_names_are_not_decoded(homes, tmp_path):
    workspace, env = homes
    claude = tmp_path / "claude" / "projects"
    (claude / "-home-dev-tally").rename(claude / "renamed-anything")
    source = discovered(workspace, env, "claude-code")
    assert source.counts()["sessions"] == 2


@pytest.mark.parametrize("where", ["", "projects", "projects/-home-dev-tally", f"projects/-home-dev-tally/{S21}.jsonl"])
def test_detected_from_the_store_path(where):
    [source] = discover(FIXTURES / "claude_home" / where)
    assert source.kind == "claude-code"
    counts = source.counts()
    if where.endswith(".jsonl"):
        assert counts == {"sessions": 1, "prompts": 2, "tool_calls": 8, "file_changes": 4, "malformed_lines": 1,
                          "unknown_records": 1}
    elif where.endswith("tally"):
        assert counts["sessions"] == 2
    else:  # the home or its projects folder: with the sessions memtui's archive holds of it
        assert counts == {"sessions": 3, "prompts": 6, "tool_calls": 12, "file_changes": 6, "malformed_lines": 4,
                          "unknown_records": 1, "archived_sessions": 0}


def test_malformed_lines_are_reported_with_file_and_line(source):
    problems = {(p.file.rsplit("/", 1)[-1], p.line, p.message.split(" at ")[0].split(" (")[0].split(":")[0]) for p in source.problems()}
    assert problems == {
        (f"{S20}.jsonl", 4, "invalid UTF-8"),
        (f"{S20}.jsonl", 7, "malformed JSON"),
        (f"{S20}.jsonl", 8, "not a JSON object, skipped"),
        (f"{S20}.jsonl", 19, "truncated last line"),
        (f"{S21}.jsonl", 30, "truncated last line"),
        # A record type memtui does not know is counted and reported, not silently skipped.
        (f"{S21}.jsonl", 29, "record type 'weird-future-record' is unknown to memtui"),
    }


def test_sessions_titles_and_turns(source):
    assert isinstance(source, MemorySource)
    sessions = {s.id: s for s in source.sessions()}
    assert sessions[S21].title == "Add verbose flag to tally CLI"  # ai-title (2.1.x)
    assert sessions[S20].title == "Tally: count lines per file"  # the summary whose leaf is in the file
    turns = source.tasks(S21)
    assert [t.title for t in turns] == [
        "Add a --verbose flag to the tally CLI",
        "Now make -v print each file's line count",
        "Review the change",
    ]
    assert "context compacted" in turns[1].summary
    assert source.tasks(S20)[0].title == "Count lines per file in tally (see caf\ufffd.txt)"


def test_rewound_branch_is_superseded_and_the_newest_leaf_is_current(source):
    turns = {t.id: t for t in source.tasks(S20)}
    assert turns[f"{S20}:v2"].superseded and "rewound" in turns[f"{S20}:v2"].summary
    assert not turns[f"{S20}:v3"].superseded
    assert {s.id: s for s in source.sessions()}[S20].current_task_id == f"{S20}:v3"


def test_subagents_of_both_generations_are_handoff_children(source):
    refs = source.references(f"{S21}:u1")
    assert [(r.to_task, r.kind) for r in refs] == [(f"{S21}:agent-a7f3c2e1", "handoff")]  # .meta.json toolUseId
    refs = source.references(f"{S20}:agent-5e0c9a1f")  # 2.0.x: agent file beside the session, matched by prompt
    assert [(r.from_task, r.to_task) for r in refs] == [(f"{S20}:v1", f"{S20}:agent-5e0c9a1f")]
    assert [s.tool for s in source.steps(f"{S20}:agent-5e0c9a1f")] == ["Grep", "reply"]


def test_steps_pair_tool_use_with_result_and_count_usage_once(source):
    steps = source.steps(f"{S21}:u1")[1:]  # after the prompt's file-history checkpoint
    assert [s.tool for s in steps] == ["Read", "Edit", "Write", "Edit", "Agent", "reply"]
    read = steps[0]
    assert read.args["file_path"].endswith("/tally/tally/cli.py") and "numLines" not in str(read.result)
    # Two lines of one reply (thinking, then tool_use) repeat the usage: counted once.
    assert (read.tokens_in, read.tokens_out) == (3 + 2100 + 11800, 160)
    assert steps[3].status == "error" and "String to replace not found" in steps[3].error
    assert steps[1].checkpoint_id == f"{S21}:toolu_02" and steps[3].checkpoint_id is None
    assert [m.role for m in source.messages(f"{S21}:u1")] == ["user", "assistant"]
    assert source.steps(f"{S21}:u2")[3].tool == "compaction"


def test_file_changes_have_exact_before_and_after(source):
    def entry(tool_id):
        [e] = source.checkpoint_entries(f"{tool_id}")
        return e, source.read_entry(e.id)

    e, (before, after) = entry(f"{S21}:toolu_02")  # Edit with originalFile
    assert (e.path, e.kind, before, after) == ("tally/cli.py", "modified", TEXTS.CLI_V0.encode(), TEXTS.CLI_V1.encode())
    e, (before, after) = entry(f"{S21}:toolu_03")  # Write create
    assert (e.path, e.kind, before, after, e.before_known) == ("tests/test_cli.py", "added", None, TEXTS.TEST_V1.encode(), True)
    e, (before, after) = entry(f"{S21}:toolu_06")  # no originalFile: the turn's file-history backup
    assert (before, after) == (TEXTS.CLI_V1.encode(), TEXTS.CLI_V2.encode())
    # Second edit in the turn, no originalFile: the backup is stale; the previous edit's after
    # is its before, and its hunk fits it.
    e, (before, after) = entry(f"{S21}:toolu_07")
    assert (before, after) == (TEXTS.CLI_V2.encode(), TEXTS.CLI_V3.encode())
    e, (before, after) = entry(f"{S20}:toolu_11")  # MultiEdit (2.0.x)
    assert (before, after) == (TEXTS.COUNT_V0.encode(), TEXTS.COUNT_V1.encode())
    e, (before, after) = entry(f"{S20}:toolu_13")  # Write update
    assert (before, after) == (TEXTS.COUNT_V1.encode(), TEXTS.COUNT_V2.encode())
    assert [c.id for c in source.checkpoints(f"{S21}:u1")] == [f"{S21}:toolu_02", f"{S21}:toolu_03"]


def test_a_huge_line_is_streamed(tmp_path):
    home = tmp_path / "claude"
    project = home / "projects" / "p"
    project.mkdir(parents=True)
    source = (FIXTURES / "claude_home" / "projects" / "-home-dev-tally" / f"{S20}.jsonl").read_bytes()
    progress = b'{"type":"progress","uuid":"p1","parentUuid":"b6","sessionId":"%s","data":{"output":"%s"}}\n' % (S20.encode(), b"y" * (30 * 1024 * 1024))
    lines = source.split(b"\n")
    (project / f"{S20}.jsonl").write_bytes(b"\n".join(lines[:5]) + b"\n" + progress + b"\n".join(lines[5:]))
    store = ClaudeCodeSource.from_path(home)
    assert store.counts()["prompts"] == 3 and store.counts()["file_changes"] == 2


def test_browsing_changes_no_byte(homes, tmp_path):
    workspace, env = homes
    before = tree_state(tmp_path)
    for source in discover(workspace, env=env):
        store = source.open()
        source.counts()
        for session in store.sessions():
            for task in store.tasks(session.id):
                store.steps(task.id)
                store.messages(task.id)
                store.references(task.id)
                for cp in store.checkpoints(task.id):
                    for e in store.checkpoint_entries(cp.id):
                        try:
                            store.read_entry(e.id)
                        except ContentUnknown:
                            pass
    assert tree_state(tmp_path) == before


def test_entries_are_relative_to_the_recorded_workspace_root(source, homes):
    workspace, _env = homes
    assert source.workspace == workspace and source.workspace_root(f"{S21}:u1") == workspace
    [e] = source.checkpoint_entries(f"{S21}:toolu_02")
    assert e.path == "tally/cli.py"
    # Opened as a whole Claude home, sessions of two projects: no single root, paths stay absolute.
    everything = ClaudeCodeSource.from_path(FIXTURES / "claude_home")
    assert everything.workspace is None
    assert everything.entry(f"{S21}:toolu_02").path == "/home/dev/tally/tally/cli.py"


def test_rollback_restores_known_contents_and_refuses_unknown_ones(source, homes):
    workspace, env = homes
    target = workspace / "tally" / "cli.py"
    target.parent.mkdir()
    target.write_text(TEXTS.CLI_V3)  # the file as the session left it
    plan = plan_rollback(source, checkpoint=f"{S21}:toolu_06", root=source.workspace)
    [f] = plan.files
    assert f.status == "conflict"  # the disk holds CLI_V3, the edit recorded CLI_V2
    plan = plan_rollback(source, checkpoint=f"{S21}:toolu_07", root=source.workspace)
    [f] = plan.files
    assert f.status == "ready"  # its before is the previous edit's after, and its hunk fits that
    # Without the turn's file-history backup the chain has no start: nothing is known, nothing written.
    [backup] = (Path(env["CLAUDE_CONFIG_DIR"]) / "file-history" / S21).glob("*@v2")
    backup.unlink()
    plan = plan_rollback(source, checkpoint=f"{S21}:toolu_07", root=source.workspace)
    [f] = plan.files
    assert f.status == "error" and "backup" in f.error and "is missing" in f.error
    result = apply_rollback(source, plan)
    assert target.read_text() == TEXTS.CLI_V3  # nothing written for an unknown before
    target.write_text(TEXTS.CLI_V1)  # as the first edit left it
    plan = plan_rollback(source, entry=f"{S21}:toolu_02", root=source.workspace)
    assert [f.status for f in plan.files] == ["ready"]
    result = apply_rollback(source, plan)
    assert target.read_text() == TEXTS.CLI_V0
    assert any("undo recorded" in n and "state folder" in n for n in result.notes)


def test_an_agent_file_beside_the_session_is_read_again_when_rewritten(homes):
    """2.0.x: which session an `agent-*.jsonl` beside the sessions belongs to is read from its
    first record once while the file is unchanged; rewritten for another session (same size),
    it is no longer this session's sub-agent."""
    from memtui.core.agents.claude_code.transcripts import Transcripts

    _workspace, env = homes
    home = Path(env["CLAUDE_CONFIG_DIR"])
    session = home / "projects" / "-home-dev-tally" / f"{S20}.jsonl"
    agent = session.with_name("agent-5e0c9a1f.jsonl")
    assert f"{S20}:agent-5e0c9a1f" in Transcripts.read(session, home).turns
    assert f"{S20}:agent-5e0c9a1f" in Transcripts.read(session, home).turns  # read again, unchanged
    other = S20[:-2] + "99"
    agent.write_text(agent.read_text(encoding="utf-8").replace(S20, other), encoding="utf-8")
    assert f"{S20}:agent-5e0c9a1f" not in Transcripts.read(session, home).turns
