"""The chats the real Gemini CLI wrote (tests/fixtures/live/gemini-cli-*, made by
`python -m tests.agents.run`) read by memtui as a user sees them, against each scenario's truth:
prompts, tool calls, file changes and their bytes, output tokens, resume — found from the Gemini
home, the project folder and the chat file — and reading writes nothing into the home."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.core.discovery import discover
from memtui.core.memory_source import Capability

from .live_support import agent_home, fingerprint, fixture_id, fixtures, open_fixture, sessions, truth_of

FIXTURES = fixtures("gemini-cli")


def scratch_env(tmp_path: Path, **values: str) -> dict[str, str]:
    """An environment whose every agent home and XDG folder is a scratch folder."""
    scratch = tmp_path / "scratch"
    env = {"HOME": str(scratch), "CLAUDE_CONFIG_DIR": str(scratch / ".claude"), "CODEX_HOME": str(scratch / ".codex"),
           "XDG_STATE_HOME": str(scratch / "state"), "XDG_DATA_HOME": str(scratch / "data"),
           "XDG_CONFIG_HOME": str(scratch / "config"), "XDG_CACHE_HOME": str(scratch / "cache")}
    return {**env, **values}
pytestmark = pytest.mark.skipif(not FIXTURES, reason="no Gemini CLI live fixtures (python -m tests.agents.run makes them)")


@pytest.fixture(params=FIXTURES, ids=fixture_id, scope="module")
def live(request):
    fixture = request.param
    before = fingerprint(agent_home(fixture))
    source = open_fixture(fixture)
    [session] = sessions(source)
    yield fixture, truth_of(fixture), source, session
    source.close()
    assert fingerprint(agent_home(fixture)) == before, "reading the Gemini home wrote into it"


def test_one_session_holds_every_prompt_in_order(live):
    """The session context Gemini sends first is no prompt, nor is a tool result; a resumed
    session's prompts append to the same session."""
    _fixture, truth, source, session = live
    assert truth["sessions"] == 1 and len(source.sessions()) == 1
    assert [t.title for t in session.prompts] == [p[:79] + "…" if len(p) > 80 else p for p in truth["prompts"]]
    assert source.sessions()[0].title == session.prompts[0].title


def test_tool_calls_of_each_prompt(live):
    _fixture, truth, _source, session = live
    assert [session.calls(t.id) for t in session.prompts] == [t["tool_calls"] for t in truth["turns"]]


def test_output_tokens_of_each_prompt_and_the_session(live):
    _fixture, truth, source, session = live
    assert session.output_tokens() == truth["output_tokens"]
    assert [sum(s.tokens_out for s in source.steps(t.id)) for t in session.prompts] == \
        [t["output_tokens"] for t in truth["turns"]]


def test_file_changes_carry_the_truths_bytes(live):
    """Each prompt's write_file / replace calls (its sub-agents' included): path, kind, and
    before/after bytes equal to the truth's (Gemini CLI 0.61 records the whole file on both sides)."""
    _fixture, truth, source, session = live
    for n, task in enumerate(session.prompts):
        entries = [e for t in (task, *session.subagents[str(task.id)]) for e in session.changes(t)]
        expected = [c for c in truth["file_changes"] if c["turn"] == n]
        assert [(e.path, e.kind) for e in entries] == [(c["path"], c["kind"]) for c in expected]
        for entry, change in zip(entries, expected):
            assert entry.before_known and entry.after_known
            before, after = source.read_entry(entry.id)
            assert after == change["after"].encode()
            assert before == (None if change["before"] is None else change["before"].encode())


def test_sub_agents_are_nested_under_the_prompt_that_started_them(live):
    """An `invoke_agent` call's sub-agent (its chat beside the caller's, in chats/<session id>/):
    its prompt is a task right after the one that called it, with its own tool calls and tokens."""
    _fixture, truth, source, session = live
    for task, turn in zip(session.prompts, truth["turns"]):
        found = session.subagents[str(task.id)]
        assert [t.title for t in found] == [f"{s['prompt']} (sub-agent)" for s in turn["subagents"]]
        # A sub-agent of Gemini CLI ends its run by calling complete_task with its answer.
        assert [[c for c in session.calls(s.id) if c != "complete_task"] for s in found] == \
            [s["tool_calls"] for s in turn["subagents"]]
        assert [sum(x.tokens_out for x in source.steps(s.id)) for s in found] == \
            [s["output_tokens"] for s in turn["subagents"]]
    assert source.counts().get("subagent_chats", 0) == sum(len(t["subagents"]) for t in truth["turns"])
    assert source.sessions()[0].current_task_id == session.prompts[-1].id


def test_failed_shell_calls_and_long_results_are_read(live):
    """A shell call's output is its step's result; every record is read (no unknown type)."""
    _fixture, _truth, source, session = live
    assert [p.message for p in source.problems()] == []
    assert source.counts().get("unknown_records", 0) == 0
    for task in session.prompts:
        for step in source.steps(task.id):
            if step.tool == "run_shell_command":
                assert isinstance(step.result, str) and step.result


def test_resume_command_and_capabilities(live):
    _fixture, truth, source, session = live
    command = source.resume_command(session.id)
    assert command.argv == ("gemini", "--resume", session.id)
    assert str(command.cwd) == truth["workspace"]
    assert Capability.DIFF in source.capabilities
    # Rollback restores under the project folder the session worked in: offered where it is a folder here.
    assert (Capability.ROLLBACK in source.capabilities) == Path(truth["workspace"]).is_dir()


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_found_from_the_user_home_the_project_and_the_chat_file(fixture, tmp_path):
    """`memtui` in the user's home, in the project folder (projects.json names its tmp folder),
    on a chat file: each finds the session, with GEMINI_CLI_HOME or HOME."""
    truth = truth_of(fixture)
    home = agent_home(fixture)
    user = home.parent
    [chat] = sorted(home.glob("tmp/*/chats/session-*"))
    # The recorded project path is where the run worked; make it exist, as on the user's machine.
    project = tmp_path / "copy"
    shutil.copytree(user, project / "user")
    copied = project / "user" / ".gemini"
    workspace = Path(truth["workspace"])
    env = scratch_env(tmp_path, HOME=str(project / "user"))
    for found in (discover(project / "user", env=env), discover(copied / "tmp" / "repo", env=env),
                  discover(copied / "tmp" / "repo" / "chats" / chat.name, env=env)):
        assert [s.kind for s in found] == ["gemini-cli"]
        assert [t.title for t in found[0].open().tasks(found[0].open().sessions()[0].id)]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert [s.kind for s in discover(elsewhere, env=scratch_env(tmp_path, GEMINI_CLI_HOME=str(project / "user")))] == []
    if workspace.is_dir():  # the run's folder is still here: found from the project itself
        found = discover(workspace, env=scratch_env(tmp_path, GEMINI_CLI_HOME=str(project / "user")))
        assert [s.kind for s in found] == ["gemini-cli"]


def test_found_from_a_project_folder_by_projects_json(tmp_path):
    """A project folder finds the chats of the tmp folder projects.json names for it."""
    fixture = FIXTURES[0]
    user = tmp_path / "user"
    shutil.copytree(agent_home(fixture).parent, user)
    workspace = tmp_path / "work" / "repo"
    workspace.mkdir(parents=True)
    (user / ".gemini" / "projects.json").write_text(json.dumps({"projects": {str(workspace): "repo"}}))
    (user / ".gemini" / "tmp" / "repo" / ".project_root").write_text(str(workspace))
    found = discover(workspace, env=scratch_env(tmp_path, HOME=str(user)))
    assert [s.kind for s in found] == ["gemini-cli"]
    assert len(found[0].open().sessions()) == 1
    other = tmp_path / "work" / "other"
    other.mkdir()
    assert discover(other, env=scratch_env(tmp_path, HOME=str(user))) == []


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_memtui_sources_and_log_list_it(fixture, capsys):
    from memtui.cli import main

    truth = truth_of(fixture)
    home = agent_home(fixture)
    before = fingerprint(home)
    assert main(["sources", str(home), "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)["sources"]
    assert listed["kind"] == "gemini-cli" and listed["problems"] == []
    assert main(["log", str(home), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    # Each prompt, then the sub-agents it started, with the file changes each made.
    expected = [(turn["prompt"], sum(1 for c in truth["file_changes"] if c["turn"] == n and c["by"] == "main"))
                for n, turn in enumerate(truth["turns"])]
    for n, turn in reversed(list(enumerate(truth["turns"]))):
        expected[n + 1:n + 1] = [(f"{s['prompt']} (sub-agent)", sum(1 for c in truth["file_changes"]
                                 if c["turn"] == n and c["by"] == "subagent")) for s in turn["subagents"]]
    assert [(t["title"], t["checkpoints"]) for t in session["tasks"]] == expected
    assert fingerprint(home) == before


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.name == "resume"], ids=fixture_id)
def test_memtui_search_finds_a_prompt_and_a_tool_call_and_writes_no_byte_of_the_home(fixture, tmp_path, capsys,
                                                                                    monkeypatch):
    """`memtui search HOME WORD`: the index is kept in memtui's cache folder (a scratch one
    here), never in the Gemini home."""
    from memtui.cli import main

    for name, value in scratch_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    home = agent_home(fixture)
    before = fingerprint(home)
    assert main(["search", str(home), "zeta", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert {"task", "step"} <= {h["kind"] for h in hits}
    assert any("Second prompt, resumed" in h["text"] for h in hits if h["kind"] == "task")
    assert fingerprint(home) == before


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_memtui_export_writes_each_prompt_and_sub_agent_and_no_byte_of_the_home(fixture, tmp_path, capsys,
                                                                                monkeypatch):
    """`memtui export HOME --session ID`: every prompt the scenario typed and every sub-agent's
    prompt is in the Markdown, with the sub-agent nested in the task tree; the home is unchanged."""
    from memtui.cli import main

    for name, value in scratch_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    truth = truth_of(fixture)
    home = agent_home(fixture)
    before = fingerprint(home)
    assert main(["log", str(home), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    out = tmp_path / "out.md"
    assert main(["export", str(home), "--session", session["id"], "-o", str(out)]) == 0
    text = out.read_text()
    assert f"Source: gemini-cli at {home}" in text
    for turn in truth["turns"]:
        assert f"```text\n{turn['prompt']}\n```" in text
        for sub in turn["subagents"]:
            tree = text.split("## Task tree", 1)[1].split("\n## ", 1)[0]
            assert any(line.startswith("  - ") and f"{sub['prompt']} (sub-agent)" in line for line in tree.splitlines())
    assert fingerprint(home) == before
