"""The sessions the real OpenCode 1.18 wrote (tests/fixtures/live/opencode-*/, its SQLite
opencode.db and snapshot store under the run's XDG data folder) read by memtui as a user sees
them, against each scenario's truth — and reading writes nothing into the agent's home."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memtui.core.discovery import discover

from .live_support import LIVE, fingerprint, fixture_id, sessions, truth_of

FIXTURES = sorted(p.parent for p in LIVE.glob("opencode-*/*/truth.json"))
pytestmark = pytest.mark.skipif(not FIXTURES, reason="no OpenCode live fixtures")


def data_folder(fixture: Path) -> Path:
    return fixture / "home" / ".local" / "share" / "opencode"


def prompt_as_stored(prompt: str) -> str:
    """`opencode run MESSAGE` quotes a message holding a space before it stores it."""
    return f'"{prompt}"' if " " in prompt else prompt


@pytest.fixture(params=FIXTURES, ids=fixture_id, scope="module")
def live(request):
    fixture = request.param
    before = fingerprint(fixture / "home")
    [found] = discover(data_folder(fixture))
    assert found.kind == "opencode"
    source = found.open()
    [session] = sessions(source)  # a sub-agent's own session is nested, not listed
    yield fixture, truth_of(fixture), source, session
    source.close()
    assert fingerprint(fixture / "home") == before, "reading OpenCode's home wrote into it"


def test_one_session_holds_every_prompt_in_order(live):
    _fixture, truth, source, session = live
    [listed] = source.sessions()
    assert listed.title == "Scripted session"  # the session row's title
    assert [t.summary for t in session.prompts] == [prompt_as_stored(p) for p in truth["prompts"]]


def test_tool_calls_of_each_prompt(live):
    _fixture, truth, source, session = live
    assert [session.calls(t.id) for t in session.prompts] == [t["tool_calls"] for t in truth["turns"]]


def test_sub_agents_are_nested_under_the_prompt_that_started_them(live):
    """A `task` call's sub-agent session: its prompt is a task right after the one that called
    it, handed the work, with its own tool calls and tokens."""
    _fixture, truth, source, session = live
    for task, turn in zip(session.prompts, truth["turns"]):
        found = session.subagents[str(task.id)]
        assert [t.summary for t in found] == [s["prompt"] for s in turn["subagents"]]
        assert [session.calls(s.id) for s in found] == [s["tool_calls"] for s in turn["subagents"]]
        assert [sum(x.tokens_out for x in source.steps(s.id)) for s in found] == \
            [s["output_tokens"] for s in turn["subagents"]]
    assert source.counts().get("subagent_sessions", 0) == sum(len(t["subagents"]) for t in truth["turns"])
    [listed] = source.sessions()
    assert listed.current_task_id == session.prompts[-1].id  # the last prompt, not a sub-agent's task


def test_each_prompts_messages_are_its_prompt_and_the_replies(live):
    """What export and search read as a task's messages: the prompt as stored, then each reply
    text OpenCode recorded, in order."""
    _fixture, truth, source, session = live
    for task, prompt in zip(session.prompts, truth["prompts"]):
        messages = source.messages(task.id)
        assert (messages[0].role, messages[0].content) == ("user", prompt_as_stored(prompt))
        replies = [s.result for s in source.steps(task.id) if s.tool == "reply" and s.result]
        assert [(m.role, m.content) for m in messages[1:]] == [("assistant", r) for r in replies]
        assert replies, "every scripted prompt ends with a reply"


def test_shell_commands_and_their_errors(live):
    _fixture, truth, source, session = live
    for task, turn in zip(session.prompts, truth["turns"]):
        shells = [s for s in source.steps(task.id) if s.tool == "bash"]
        assert [s.args["command"] for s in shells] == turn["shell"]
        assert sum(s.status == "error" for s in source.steps(task.id)) == turn["errors"]


def test_output_tokens_per_prompt_and_session(live):
    _fixture, truth, source, session = live
    per_task = [sum(s.tokens_out for s in source.steps(t.id)) for t in session.prompts]
    assert per_task == [t["output_tokens"] for t in truth["turns"]]
    usage = [s.usage for t in session.tasks() for s in source.steps(t.id) if s.usage]
    costs = truth["cost_inputs"]
    assert sum(u.input for u in usage) == costs["input_tokens"]
    assert sum(u.cache_read for u in usage) == costs["cache_read_tokens"]


def test_file_changes_carry_the_truths_bytes(live):
    """Each prompt's write/edit changes (its sub-agents' included): path, kind, and the after
    bytes (and the before bytes wherever memtui says it knows them) equal to the truth's."""
    _fixture, truth, source, session = live
    for n, task in enumerate(session.prompts):
        entries = [e for t in (task, *session.subagents[str(task.id)]) for e in session.changes(t)]
        expected = [c for c in truth["file_changes"] if c["turn"] == n]
        assert [(e.path, e.kind) for e in entries] == [(c["path"], c["kind"]) for c in expected]
        for entry, change in zip(entries, expected):
            before, after = source.read_entry(entry.id)
            assert entry.after_known and after == change["after"].encode()
            if entry.before_known:
                assert before == (None if change["before"] is None else change["before"].encode())
            else:
                assert entry.unknown_reason and before is None


def test_every_part_is_read_and_the_resume_command_is_opencodes(live):
    _fixture, truth, source, session = live
    assert source.problems() == [] and source.counts()["unknown_records"] == 0
    assert source.resume_command(session.id).argv == ("opencode", "--session", str(session.id))
    # Rollback restores under the directory the session recorded: offered where it is a folder here.
    assert ("rollback" in {c.value for c in source.capabilities}) == Path(truth["workspace"]).is_dir()


def test_a_sessions_stored_bytes_are_its_rows_and_its_sub_agents(live):
    """The sessions pane's "Stored" of an OpenCode session: the bytes of its message and part
    rows (a sub-agent's session's too) as stored in opencode.db — the sessions share that one
    file, so none of them had a size of its own (every session read "0 B")."""
    fixture, _truth, source, _session = live
    db = sqlite3.connect(f"{(data_folder(fixture) / 'opencode.db').as_uri()}?immutable=1", uri=True)
    size = sum(n for (n,) in db.execute(
        "SELECT length(CAST(data AS BLOB)) FROM message UNION ALL SELECT length(CAST(data AS BLOB)) FROM part"))
    db.close()
    [listed] = source.sessions()
    assert listed.stored_bytes == size > 0


def test_an_unknown_part_type_is_counted_and_reported(tmp_path):
    """A part type this reader does not know (a newer OpenCode's) is a problem of the source."""
    fixture = next(f for f in FIXTURES if f.name == "create-edit")
    folder = tmp_path / "opencode"
    folder.mkdir()
    db = folder / "opencode.db"
    db.write_bytes((data_folder(fixture) / "opencode.db").read_bytes())
    with sqlite3.connect(db) as conn:
        msg, ses = conn.execute("SELECT message_id, session_id FROM part LIMIT 1").fetchone()
        conn.execute("INSERT INTO part VALUES ('prt_zzz', ?, ?, 0, 0, ?)", (msg, ses, json.dumps({"type": "hologram"})))
    conn.close()
    [found] = discover(folder)
    source = found.open()
    assert source.counts()["unknown_records"] == 1
    assert ["hologram" in p.message for p in source.problems()] == [True]


def test_memtui_sources_and_log_list_the_data_folder(capsys, monkeypatch, tmp_path):
    from memtui.cli import main

    for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var))
    fixture = next(f for f in FIXTURES if f.name == "resume")
    truth = truth_of(fixture)
    folder = data_folder(fixture)
    before = fingerprint(fixture / "home")
    assert main(["sources", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.split()[:2] == ["opencode", str(folder)]
    assert main(["log", str(folder), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert [t["title"] for t in session["tasks"]] == [prompt_as_stored(p) for p in truth["prompts"]]
    assert [t["checkpoints"] for t in session["tasks"]] == [1, 2]
    assert fingerprint(fixture / "home") == before


def test_a_workspace_finds_the_sessions_that_ran_in_it_and_no_others(tmp_path):
    """`memtui PROJECT` finds the sessions of the user's opencode.db whose recorded directory is
    PROJECT (a copy of the fixture's database, its session moved to a folder made here)."""
    fixture = next(f for f in FIXTURES if f.name == "resume")
    data = tmp_path / "xdg-data" / "opencode"
    data.mkdir(parents=True)
    (data / "opencode.db").write_bytes((data_folder(fixture) / "opencode.db").read_bytes())
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    with sqlite3.connect(data / "opencode.db") as conn:
        conn.execute("UPDATE session SET directory = ?", (str(project),))
    conn.close()
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg-data")}
    [found] = [s for s in discover(project, env=env) if s.kind == "opencode"]
    source = found.open()
    assert [len(source.tasks(s.id)) for s in source.sessions()] == [2]
    assert source.resume_command(source.sessions()[0].id).cwd == project
    assert [s for s in discover(other, env=env) if s.kind == "opencode"] == []


def test_following_an_opencode_store_sees_a_new_part(tmp_path):
    """`live`: a part OpenCode commits is a change (stat of the database and its log only)."""
    from memtui.core.live import watch_source

    fixture = next(f for f in FIXTURES if f.name == "create-edit")
    folder = tmp_path / "opencode"
    folder.mkdir()
    db = folder / "opencode.db"
    db.write_bytes((data_folder(fixture) / "opencode.db").read_bytes())
    [found] = discover(folder)
    watch = watch_source(found.open())
    assert watch.poll() is False
    with sqlite3.connect(db) as conn:
        msg, ses = conn.execute("SELECT message_id, session_id FROM part LIMIT 1").fetchone()
        conn.execute("INSERT INTO part VALUES ('prt_new', ?, ?, 0, 0, ?)", (msg, ses, json.dumps({"type": "text", "text": "more"})))
        conn.execute("PRAGMA user_version = 7")  # the file grows or its header changes on any commit
    conn.close()
    assert watch.poll() is True


def test_memtui_search_finds_a_sub_agents_prompt_and_its_steps(capsys, monkeypatch, tmp_path):
    """`memtui search` over OpenCode's data folder: the index is built through the read model in
    memtui's cache folder; a sub-agent's prompt and its reply are found, nothing is written
    into OpenCode's folder."""
    from memtui.cli import main

    for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var))
    fixture = next((f for f in FIXTURES if f.name == "subagent"), None)
    if fixture is None:
        pytest.skip("no OpenCode sub-agent fixture")
    folder = data_folder(fixture)
    before = fingerprint(fixture / "home")
    helper = truth_of(fixture)["turns"][0]["subagents"][0]["prompt"]
    assert main(["search", str(folder), "two chores", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert {h["kind"] for h in hits} >= {"task", "step"}
    assert any(helper in h["text"] for h in hits if h["kind"] == "task")
    assert fingerprint(fixture / "home") == before
    assert any((tmp_path / "XDG_CACHE_HOME").rglob("*"))  # the index lives in memtui's cache folder


def test_sessions_whose_parents_loop_are_each_listed(tmp_path):
    """A damaged database whose sessions name each other as parents: each is shown, no task lost."""
    fixture = next((f for f in FIXTURES if f.name == "subagent"), None)
    if fixture is None:
        pytest.skip("no OpenCode sub-agent fixture")
    folder = tmp_path / "opencode"
    folder.mkdir()
    (folder / "opencode.db").write_bytes((data_folder(fixture) / "opencode.db").read_bytes())
    with sqlite3.connect(folder / "opencode.db") as conn:
        [(child, parent)] = conn.execute("SELECT id, parent_id FROM session WHERE parent_id IS NOT NULL").fetchall()
        conn.execute("UPDATE session SET parent_id = ? WHERE id = ?", (child, parent))
    conn.close()
    [found] = discover(folder)
    source = found.open()
    assert sorted(s.id for s in source.sessions()) == sorted([child, parent])
    assert sum(len(source.tasks(s.id)) for s in source.sessions()) == 2


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_memtui_export_writes_each_prompt_and_sub_agent_and_no_byte_of_the_home(fixture, capsys, monkeypatch,
                                                                                tmp_path):
    """`memtui export DATA --session ID`: each prompt as OpenCode stored it and each sub-agent's
    prompt (nested in the task tree) are in the Markdown; OpenCode's folder is unchanged."""
    from memtui.cli import main

    for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var))
    truth = truth_of(fixture)
    folder = data_folder(fixture)
    before = fingerprint(fixture / "home")
    assert main(["log", str(folder), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    out = tmp_path / "out.md"
    assert main(["export", str(folder), "--session", session["id"], "-o", str(out)]) == 0
    text = out.read_text()
    tree = text.split("## Task tree", 1)[1].split("\n## ", 1)[0]
    assert f"Source: opencode at {folder}" in text
    for turn in truth["turns"]:
        assert f"```text\n{prompt_as_stored(turn['prompt'])}\n```" in text
        for sub in turn["subagents"]:
            assert any(line.startswith("  - ") and sub["prompt"] in line and "(sub-agent" in line
                       for line in tree.splitlines())
    assert fingerprint(fixture / "home") == before
