"""Figures memtui shows for the transcripts real tools wrote (tests/fixtures/real): a figure
the transcript does not hold is shown as unknown, never as a made-up zero."""

from __future__ import annotations

import json

from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.agents.codex.source import CodexSource

from real_support import real_home

GQC = "258c7280-ae70-4798-800f-63464d01a85d"
PUSHED = f"{GQC}:41fc1786-c22e-45ab-89c6-527c89c66d26"  # "did you push?": a checkpoint and a reply


def test_claude_code_steps_without_a_result_have_no_duration(tmp_path) -> None:
    home = real_home("claude-2.1.39-spotter", tmp_path)
    source = ClaudeCodeSource.from_path(home)
    steps = source.steps(PUSHED)
    assert [s.tool for s in steps] == ["checkpoint", "reply"]
    assert [s.duration_ms for s in steps] == [None, None]  # the transcript times neither
    assert source.step_totals(PUSHED)["duration_ms"] is None
    # a tool call with its result: the time between the two records
    task = f"{GQC}:1a2252ee-fde8-4a8f-a103-4028c39c47ce"
    calls = [s for s in source.steps(task) if s.tool == "Bash" and s.status == "ok"]
    assert calls and all(isinstance(s.duration_ms, int) for s in calls)
    assert source.step_totals(task)["duration_ms"] == sum(s.duration_ms for s in source.steps(task)
                                                          if s.duration_ms is not None)


def test_codex_replies_have_no_duration(tmp_path) -> None:
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    rollout = next(home.rglob("rollout-*.jsonl"))
    calls = sum(1 for line in rollout.read_text().splitlines()
                if json.loads(line).get("payload", {}).get("type") in ("function_call", "custom_tool_call"))
    source = CodexSource.from_path(home)
    steps = [s for t in source.tasks(source.sessions()[0].id) for s in source.steps(t.id)]
    timed = [s for s in steps if s.duration_ms is not None]
    assert len(timed) == calls  # each call with its output; the replies carry no duration
    assert all(s.duration_ms is None for s in steps if s.tool == "reply")


def _requests(rollout) -> list[tuple[int, int]]:
    """(input, output) tokens of each model request, by the raw rollout: the last_token_usage
    of each token_count event whose cumulative total grew."""
    out, previous = [], None
    for line in rollout.read_text().splitlines():
        payload = json.loads(line).get("payload") or {}
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if info and info["total_token_usage"] != previous:
            previous = info["total_token_usage"]
            out.append((info["last_token_usage"]["input_tokens"], info["last_token_usage"]["output_tokens"]))
    return out


def test_codex_steps_carry_the_tokens_of_the_request_that_made_them(tmp_path) -> None:
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    rollout = next(home.rglob("rollout-*.jsonl"))
    source = CodexSource.from_path(home)
    tasks = source.tasks(source.sessions()[0].id)
    first = source.steps(tasks[0].id)  # mkdir, the patch, the reply: three requests
    assert [(s.tool, s.tokens_in, s.tokens_out) for s in first] == [
        ("shell_command", *_requests(rollout)[0]), ("apply_patch", *_requests(rollout)[1]), ("reply", *_requests(rollout)[2])]
    steps = [s for t in tasks for s in source.steps(t.id)]
    assert [(s.tokens_in, s.tokens_out) for s in steps if s.tokens_in or s.tokens_out] == _requests(rollout)


def test_codex_token_totals_are_the_rollouts_own(tmp_path) -> None:
    home = real_home("codex-0.104-localpush", tmp_path)
    source = CodexSource.from_path(home)
    for session in source.sessions():
        rollout = next(home.rglob(f"rollout-*{session.id}.jsonl"))
        final = [json.loads(line)["payload"]["info"]["total_token_usage"] for line in rollout.read_text().splitlines()
                 if '"token_count"' in line and json.loads(line)["payload"].get("info")][-1]
        steps = [s for t in source.tasks(session.id) for s in source.steps(t.id)]
        assert sum(s.tokens_in for s in steps) == final["input_tokens"]
        assert sum(s.tokens_out for s in steps) == final["output_tokens"]
        assert len([s for s in steps if s.tokens_in]) > len(source.tasks(session.id))  # per request, not per turn


def test_a_codex_command_that_exited_non_zero_is_an_error(tmp_path) -> None:
    """`python hoge.py` failed twice ("Exit code: 1" in the rollout) before `python3` worked:
    those steps read as errors, as Claude Code marks a failing Bash call."""
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    rollout = next(home.rglob("rollout-*.jsonl"))
    codes = {}
    for line in rollout.read_text().splitlines():
        payload = json.loads(line).get("payload") or {}
        if payload.get("type") == "function_call_output" and payload["output"].startswith("Exit code: "):
            codes[payload["call_id"]] = int(payload["output"].split()[2])
    assert sorted(codes.values()) == [0, 0, 1, 1]
    source = CodexSource.from_path(home)
    steps = [s for t in source.tasks(source.sessions()[0].id) for s in source.steps(t.id) if s.tool == "shell_command"]
    assert len(steps) == len(codes)
    for step in steps:
        code = codes[str(step.id).split(":", 1)[1]]
        assert (step.status, step.error) == (("error", f"exit code {code}") if code else ("ok", None)), step


def test_a_claude_code_sessions_size_counts_its_sub_agents(tmp_path) -> None:
    """The sessions pane's "Stored": the transcript with its folder (sub-agents, compaction)
    and 2.0.x sub-agent transcripts beside it — as `memtui cleanup` counts them."""
    spotter = real_home("claude-2.1.39-spotter", tmp_path)
    agtrace = real_home("claude-2.0.28-agtrace", tmp_path)
    for home in (spotter, agtrace):
        source = ClaudeCodeSource.from_path(home)
        for session in source.sessions():
            transcript = next(home.rglob(f"{session.id}.jsonl"))
            files = [transcript, *[p for p in (transcript.parent / session.id).rglob("*") if p.is_file()],
                     *[p for p in transcript.parent.glob("agent-*.jsonl") if session.id in p.read_text()]]
            assert len(files) > 1  # every session of these has sub-agent transcripts
            assert session.stored_bytes == sum(p.stat().st_size for p in files), session.id


def test_a_sessions_size_follows_its_files(tmp_path) -> None:
    """Sizes are worked out once per listing (the sessions pane asks for them at each page):
    a transcript the agent appended to is counted again at once, a sub-agent's file that grew
    at the next reload (ctrl+r, follow mode) — never a size of before."""
    home = real_home("claude-2.1.39-spotter", tmp_path)
    source = ClaudeCodeSource.from_path(home)
    sizes = {str(s.id): s.stored_bytes for s in source.sessions()}
    session = sorted(sizes)[0]
    transcript = next(home.rglob(f"{session}.jsonl"))
    sub = next((transcript.parent / session / "subagents").glob("agent-*.jsonl"))
    line = transcript.read_bytes().splitlines(keepends=True)[-1]
    with transcript.open("ab") as out:
        out.write(line)
    assert {str(s.id): s.stored_bytes for s in source.sessions()} == {**sizes, session: sizes[session] + len(line)}
    with sub.open("ab") as out:
        out.write(b"\n")
    source.reload()
    assert {str(s.id): s.stored_bytes for s in source.sessions()} == {**sizes, session: sizes[session] + len(line) + 1}


def test_a_damaged_line_says_where_on_the_line(tmp_path) -> None:
    """A line cut inside a string: 'Unterminated string starting at column 10', not a message
    ending in 'starting at'."""
    home = real_home("claude-2.0.28-agtrace", tmp_path)
    transcript = next(home.rglob("7f2abd2d-*.jsonl"))
    lines = len(transcript.read_text().splitlines())
    with transcript.open("a") as out:
        out.write('{"type": "user, "uuid": 1}\n')
    problems = [p for p in ClaudeCodeSource.from_path(home).problems() if p.line == lines + 1]
    assert [p.message for p in problems] == ["malformed JSON: Expecting ',' delimiter at column 18"]
    with transcript.open("a") as out:
        out.write('{"type": "us\n')
    problems = [p for p in ClaudeCodeSource.from_path(home).problems() if p.line == lines + 2]
    assert [p.message for p in problems] == ["malformed JSON: Unterminated string starting at column 10"]
