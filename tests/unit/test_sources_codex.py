"""Codex CLI rollouts: turns, calls with outputs, cumulative tokens, apply_patch outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.memory_source import MemorySource
from memtui.core.discovery import discover
from memtui.core.sources.base import ContentUnknown
from memtui.core.agents.codex.rollout_files import find_rollouts
from memtui.core.agents.codex.source import CodexSource, parse_patch

from sources_support import FIXTURES, agent_homes, discovered, tree_state

SID = "0196f1c2-8a4b-7c3d-9e8f-1a2b3c4d5e6f"
ROLLOUT = f"sessions/2025/06/06/rollout-2025-06-06T09-59-59-{SID}.jsonl"


@pytest.fixture
def homes(tmp_path):
    return agent_homes(tmp_path)


@pytest.fixture
def source(homes):
    workspace, env = homes
    source = discovered(workspace, env, "codex")
    return source.open()


def test_detected_from_the_workspace_by_session_meta_cwd(homes):
    workspace, env = homes
    source = discovered(workspace, env, "codex")
    # The early flat rollout records no cwd and belongs to no workspace.
    assert source.counts() == {"sessions": 1, "prompts": 2, "function_calls": 4, "patches": 2, "file_changes": 3, "malformed_lines": 1,
                               "unknown_records": 1, "archived_sessions": 0}


@pytest.mark.parametrize("where", ["", "sessions", ROLLOUT])
def test_detected_from_the_store_path(where):
    [source] = discover(FIXTURES / "codex_home" / where)
    assert source.kind == "codex"
    counts = source.counts()
    if where == ROLLOUT:
        assert counts == {"sessions": 1, "prompts": 2, "function_calls": 4, "patches": 2, "file_changes": 3, "malformed_lines": 1,
                          "unknown_records": 1}
    else:  # the early flat-format rollout reads too
        expected = {"sessions": 2, "prompts": 3, "function_calls": 5, "patches": 2, "file_changes": 3, "malformed_lines": 1,
                    "unknown_records": 1}
        if where == "":  # the home: with the sessions memtui's archive holds of it
            expected["archived_sessions"] = 0
        assert counts == expected


def test_a_link_back_up_the_sessions_tree_lists_each_rollout_once(homes):
    """A link to a folder above (made by hand, or a sync tool) is not walked into: each
    rollout is one session, read once, with no 'already read from another file' problems;
    two such links each level would otherwise list it 2^40 times."""
    workspace, env = homes
    day = Path(env["CODEX_HOME"]) / "sessions" / "2025" / "06" / "06"
    (day / "back").symlink_to("..", target_is_directory=True)
    source = discovered(workspace, env, "codex")
    assert source.counts()["sessions"] == 1
    assert not [p for p in source.problems() if "already read" in p.message]
    assert len(find_rollouts(Path(env["CODEX_HOME"]))) == 2


def test_problems_name_file_and_line(source):
    assert [(p.file.endswith(ROLLOUT.rsplit("/", 1)[1]), p.line, p.message.split(" at ")[0].split(" (")[0])
            for p in source.problems()] == [(True, 28, "invalid UTF-8"), (True, 30, "truncated last line"),
                                            (True, 26, "record type 'future_thing' is unknown to memtui: 1 line(s) not read")]


def test_turns_steps_and_titles(source):
    assert isinstance(source, MemorySource)
    [session] = source.sessions()
    assert session.id == SID and session.title == "Add --json flag to tally"  # session_index.jsonl
    turns = source.tasks(SID)
    assert [t.title for t in turns] == ["Add a --json flag to tally", "Also delete the old formatter modules"]
    steps = source.steps(turns[0].id)
    assert [s.tool for s in steps] == ["shell", "apply_patch", "turn_diff", "reply"]
    assert steps[0].args["command"] == ["bash", "-lc", "cat tally/cli.py"]
    assert '"exit_code": 0' in steps[0].result
    assert "+++ b/tally/output.py" in steps[2].result and steps[2].checkpoint_id is None  # the turn's diff is shown, not counted
    second = source.steps(turns[1].id)
    assert [(s.tool, s.status) for s in second] == [("apply_patch", "error"), ("shell", "ok"), ("reply", "ok")]
    assert [m.role for m in source.messages(turns[0].id)] == ["user", "assistant"]


def test_tokens_are_cumulative_totals_not_summed_repeats(source):
    turns = source.tasks(SID)
    per_turn = [sum(s.tokens_in for s in source.steps(t.id)) for t in turns]
    assert per_turn == [2600, 4000 - 2600]  # the repeated 2600 total is not added twice
    assert source.token_usage(SID)["total_tokens"] == 4420


def test_applied_patches_become_file_changes(source):
    turns = source.tasks(SID)
    [cp] = source.checkpoints(turns[0].id)
    entries = {e.path: e for e in source.checkpoint_entries(cp.id)}
    assert set(entries) == {"tally/cli.py", "tally/output.py"}
    added = entries["tally/output.py"]
    assert added.kind == "added" and source.read_entry(added.id) == (None, b'import json\n\n\ndef render(rows):\n    return json.dumps(rows, indent=2)\n')
    updated = entries["tally/cli.py"]
    assert (updated.kind, updated.before_known, updated.after_known) == ("modified", False, False)
    assert "--json" in updated.diff
    with pytest.raises(ContentUnknown):
        source.read_entry(updated.id)
    assert source.entry(added.id) == added and source.checkpoint(cp.id).entry_count == 2
    [cp2] = source.checkpoints(turns[1].id)  # the failed apply_patch made no checkpoint
    [deleted] = source.checkpoint_entries(cp2.id)
    assert (deleted.path, deleted.kind, deleted.before_known) == ("tally/format.py", "deleted", False)


def test_parse_patch_handles_moves():
    files = parse_patch("*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End Patch\n")
    assert [(f.action, f.path, f.move_to, f.body) for f in files] == [("update", "a.py", "b.py", ["@@", "-x", "+y"])]


def test_a_huge_line_is_streamed(tmp_path):
    rollout = tmp_path / "rollout-2025-06-06T09-59-59-x.jsonl"
    data = (FIXTURES / "codex_home" / ROLLOUT).read_bytes()
    huge = b'{"timestamp":"2025-06-06T10:00:30.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"nope","output":"%s"}}\n' % (b"z" * (20 * 1024 * 1024))
    first, rest = data.split(b"\n", 1)
    rollout.write_bytes(first + b"\n" + huge + rest)
    assert CodexSource([rollout]).counts()["patches"] == 2


def test_browsing_changes_no_byte(homes, tmp_path):
    workspace, env = homes
    before = tree_state(tmp_path)
    source = discovered(workspace, env, "codex")
    store = source.open()
    for session in store.sessions():
        for task in store.tasks(session.id):
            store.steps(task.id)
            for cp in store.checkpoints(task.id):
                for e in store.checkpoint_entries(cp.id):
                    try:
                        store.read_entry(e.id)
                    except ContentUnknown:
                        pass
    assert tree_state(tmp_path) == before


def test_a_windows_drive_spelt_two_ways_is_one_project(tmp_path):
    """Two real rollouts whose session_meta records the same Windows folder as `c:\\…` and
    `C:\\…` (Windows spells the drive both ways): usage by project shows one project."""
    import json

    import zstandard

    from memtui.core.resolve import open_source
    from memtui.core.usage import price, source_replies, summarise

    real = sorted((FIXTURES / "real" / "codex-0.104-localpush").rglob("rollout-*.jsonl.zst"))
    assert len(real) == 2
    day = tmp_path / ".codex" / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    for rollout, drive in zip(real, "cC"):
        text = zstandard.ZstdDecompressor().decompress(rollout.read_bytes(), max_output_size=1 << 30).decode()
        records = [json.loads(line) for line in text.splitlines()]
        for record in records:
            if record.get("type") == "session_meta":
                record["payload"]["cwd"] = drive + ":\\Users\\me\\proj"
        (day / rollout.name.removesuffix(".zst")).write_text("".join(json.dumps(r) + "\n" for r in records))
    with open_source(tmp_path / ".codex") as source:
        report = summarise(price(source_replies(source)), "project")
    assert [row.key for row in report.rows] == ["C:\\Users\\me\\proj"]
