"""The sessions the real Claude Code and Codex wrote (tests/fixtures/live, made by
`python -m tests.agents.run`) read by memtui as a user sees them, against each scenario's truth:
prompts, tool calls, sub-agents, file changes and their bytes, output tokens, resume, checkpoints
and rollback — and reading writes nothing into the agent's home."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memtui.core.rollback import plan_rollback
from memtui.core.rollback_apply import apply_rollback
from memtui.core.sources.base import ContentUnknown

from .live_support import (RECORDED_OPS, agent_home, agent_of, fingerprint, fixture_id, fixtures, open_fixture,
                           sessions, truth_of)

FIXTURES = fixtures("claude-code", "codex")
pytestmark = pytest.mark.skipif(not FIXTURES, reason="no live fixtures (python -m tests.agents.run makes them)")


@pytest.fixture(params=FIXTURES, ids=fixture_id, scope="module")
def live(request):
    """(fixture folder, truth, the opened source, its one session) — read in place; the last
    test of each checks nothing was written."""
    fixture = request.param
    before = fingerprint(agent_home(fixture))
    source = open_fixture(fixture)
    [session] = sessions(source)
    yield fixture, truth_of(fixture), source, session
    source.close()
    assert fingerprint(agent_home(fixture)) == before, "reading the agent's home wrote into it"


def recorded(fixture: Path, truth: dict, turn: int | None = None) -> list[dict]:
    """The truth's file changes the agent's sessions record (see RECORDED_OPS)."""
    return [c for c in truth["file_changes"] if c["op"] in RECORDED_OPS[agent_of(fixture)]
            and (turn is None or c["turn"] == turn)]


def test_one_session_holds_every_prompt_in_order(live):
    """Resumed turns append to the session they resume (no second session), and the prompts
    are the scenario's, in order; a slash command (/compact) is no prompt."""
    _fixture, truth, source, session = live
    assert truth["sessions"] == 1 and len(source.sessions()) == 1
    assert [t.title for t in session.prompts] == [p[:79] + "…" if len(p) > 80 else p for p in truth["prompts"]]


def test_tool_calls_of_each_prompt(live):
    _fixture, truth, _source, session = live
    turns = [t for t in truth["turns"] if not t["command"]]
    assert [session.calls(t.id) for t in session.prompts] == [t["tool_calls"] for t in turns]


def test_sub_agents_are_nested_under_the_prompt_that_started_them(live):
    _fixture, truth, _source, session = live
    turns = [t for t in truth["turns"] if not t["command"]]
    for task, turn in zip(session.prompts, turns):
        found = session.subagents[str(task.id)]
        assert [session.calls(s.id) for s in found] == [s["tool_calls"] for s in turn["subagents"]]
        assert [sum(x.tokens_out for x in session.source.steps(s.id)) for s in found] == \
            [s["output_tokens"] for s in turn["subagents"]]


def test_output_tokens_of_the_session(live):
    _fixture, truth, _source, session = live
    assert session.output_tokens() == truth["output_tokens"]


def test_file_changes_carry_the_truths_bytes(live):
    """Each prompt's file changes (its sub-agents' included): path, kind, and before/after bytes
    equal to the truth's wherever memtui says it knows them; where it does not, the reason is
    given and the diff holds the change's lines."""
    fixture, truth, source, session = live
    turns = [i for i, t in enumerate(truth["turns"]) if not t["command"]]
    for task, turn in zip(session.prompts, turns):
        entries = [e for t in (task, *session.subagents[str(task.id)]) for e in session.changes(t)]
        expected = recorded(fixture, truth, turn)
        assert sorted((e.path, e.kind) for e in entries) == sorted((c["path"], c["kind"]) for c in expected)
        for entry, change in zip(sorted(entries, key=lambda e: e.path), sorted(expected, key=lambda c: c["path"])):
            before_text, after_text = change["before"], change["after"]
            try:
                before, after = source.read_entry(entry.id)
            except ContentUnknown:
                assert not (entry.before_known and entry.after_known) and entry.unknown_reason
                before = after = None
                diff_lines = set(entry.diff.splitlines())
                for line in set((before_text or "").splitlines()) ^ set((after_text or "").splitlines()):
                    assert any(d[1:] == line for d in diff_lines if d[:1] in "+-"), f"{line!r} not in the diff"
            if entry.before_known and before is not None or change["kind"] == "added":
                assert before == (None if before_text is None else before_text.encode())
            if entry.after_known and after is not None or change["kind"] == "deleted":
                assert after == (None if after_text is None else after_text.encode())


def test_no_record_is_unread_or_unexpected(live):
    """Every record the agent wrote is read or deliberately ignored: no problem reported, no
    record type left unknown (a new release's new record types show here first)."""
    _fixture, _truth, source, _session = live
    assert [p.message for p in source.problems()] == []
    assert source.counts().get("unknown_records", 0) == 0


def _scratch_workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "workspace"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if agent_of(f) == "claude-code"
                                     and (agent_home(f) / "file-history").is_dir()], ids=fixture_id)
def test_each_prompts_checkpoint_rolls_the_workspace_back_to_before_it(fixture, tmp_path):
    """Where Claude Code kept file history, each prompt that changed files opens with a
    checkpoint; rolling back to it (in a scratch copy of the workspace as the run left it)
    restores every file it tracked to the bytes the truth says it had before that prompt."""
    truth = truth_of(fixture)
    source = open_fixture(fixture)
    [session] = sessions(source)
    turns = [i for i, t in enumerate(truth["turns"]) if not t["command"]]
    checked = 0
    for task, turn in zip(session.prompts, turns):
        tracked = {c["path"] for c in recorded(fixture, truth, turn)}
        first = source.steps(task.id)[0]
        if not tracked:
            continue
        assert first.tool == "checkpoint" and first.checkpoint_id, f"prompt {turn} has no checkpoint"
        workspace = _scratch_workspace(tmp_path / str(turn), truth["files_after"])
        result = apply_rollback(source, plan_rollback(source, checkpoint=first.checkpoint_id, root=workspace))
        assert result.ok
        state = dict(truth["files_before"])
        for change in truth["file_changes"]:
            if change["turn"] < turn and change["after"] is not None:
                state[change["path"]] = change["after"]
            elif change["turn"] < turn:
                state.pop(change["path"], None)
        for path in tracked:
            disk = workspace / path
            assert (disk.read_text() if disk.exists() else None) == state.get(path), path
        checked += 1
    assert checked, "no prompt of this scenario changed a file"
    source.close()


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_rolling_back_a_prompt_restores_what_memtui_knows(fixture, tmp_path):
    """A prompt's rollback (its own recorded changes, sub-agents' included) in a scratch copy of
    the workspace: every file whose before-bytes memtui knows gets them back; one it cannot
    restore is named, never written."""
    truth = truth_of(fixture)
    source = open_fixture(fixture)
    [session] = sessions(source)
    last = session.prompts[-1]
    turn = [i for i, t in enumerate(truth["turns"]) if not t["command"]][-1]
    workspace = _scratch_workspace(tmp_path, truth["files_after"])
    plan = plan_rollback(source, task=last.id, root=workspace)
    changes = recorded(fixture, truth, turn)
    if not changes:
        assert plan.files == ()
        return
    first_before = {}
    for change in changes:
        first_before.setdefault(change["path"], change["before"])
    result = apply_rollback(source, plan)
    restored = Counter()
    for f in plan.files:
        disk = workspace / f.path
        now = disk.read_text() if disk.exists() else None
        if f.status == "ready":
            assert now == first_before[f.path], f.path
            restored["ok"] += 1
        else:
            assert now == truth["files_after"].get(f.path), f"{f.path} was written though not restorable"
    assert result.ok or restored["ok"] < len(plan.files)
    source.close()


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.name == "resume"], ids=fixture_id)
def test_memtui_log_json_shows_the_resumed_session(fixture, capsys):
    """`memtui log HOME --json` (what a script sees): one session, the scenario's prompts as its
    tasks, each with one checkpoint per file change it recorded."""
    from memtui.cli import main

    truth = truth_of(fixture)
    assert main(["log", str(agent_home(fixture)), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert [t["title"] for t in session["tasks"]] == truth["prompts"]
    assert [t["checkpoints"] for t in session["tasks"]] == [len(recorded(fixture, truth, i)) for i in range(len(truth["turns"]))]


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.name.startswith("compact")], ids=fixture_id)
def test_a_compaction_is_a_step_of_the_prompt_it_happened_in(fixture):
    """Claude Code's /compact and Codex's automatic compaction each show once, in the first
    prompt (the session goes on after it)."""
    source = open_fixture(fixture)
    [session] = sessions(source)
    found = [[s.tool for s in source.steps(t.id) if s.tool in ("compaction", "compacted")] for t in session.prompts]
    assert found[0] and not any(found[1:]) and len(found[0]) == 1
    source.close()


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.name == "cd-mid-session"], ids=fixture_id)
def test_a_cd_moves_the_recorded_cwd_not_the_session(fixture):
    """After a `cd sub` in a shell step Claude Code records the shell's folder as the cwd of the
    records that follow (and its file checkpoints stay relative to the folder it started in):
    the session stays one, of the workspace — found for it and not for the subfolder — and its
    prompts' paths are the workspace's (their rollback is checked above)."""
    from memtui.core.agents.claude_code.transcripts import transcripts_for_workspace

    truth = truth_of(fixture)
    home = agent_home(fixture)
    [transcript] = home.glob("projects/*/*.jsonl")
    cwds = [json.loads(line).get("cwd") for line in transcript.read_text().splitlines()]
    assert {c for c in cwds if c} == {truth["workspace"], truth["workspace"] + "/sub"}
    assert transcripts_for_workspace(Path(truth["workspace"]), home) == [transcript]
    assert transcripts_for_workspace(Path(truth["workspace"]) / "sub", home) == []
    source = open_fixture(fixture)
    [session] = sessions(source)
    assert {str(source.workspace_root(t.id)) for t in session.prompts} == {truth["workspace"]}
    source.close()
