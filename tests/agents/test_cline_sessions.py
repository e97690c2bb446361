"""The tasks the real `cline` CLI wrote (tests/fixtures/live/cline-*/: 2.18's
`~/.cline/data/tasks/<id>/` with ui_messages.json, api_conversation_history.json,
task_metadata.json; 3.0's `~/.cline/data/sessions/<id>/`) read by memtui as a user sees them,
against each scenario's truth — and reading writes nothing into the home. Then two task folders
of Cline's VS Code extension published without a licence (not copied here), read from a checkout
when one is given, against an independent count of their messages."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.discovery import discover

from .live_support import LIVE, fingerprint, fixture_id, truth_of

FIXTURES = sorted(p.parent for p in LIVE.glob("cline-*/*/truth.json"))
# The tool a 2.x UI message names, as the model called it (the truth's names); 3.x steps are named
# as called.
AS_CALLED = {"newFileCreated": "write_to_file", "editedExistingFile": "replace_in_file", "readFile": "read_file",
             "execute_command": "execute_command", "editor": "editor", "read_files": "read_files",
             "run_commands": "run_commands"}


def data_folder(fixture: Path) -> Path:
    return fixture / "home" / ".cline" / "data"


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def live(request, tmp_path, monkeypatch):
    fixture = request.param
    monkeypatch.setenv("HOME", str(tmp_path))
    before = fingerprint(fixture / "home")
    [found] = discover(data_folder(fixture))
    assert found.kind == "cline"
    source = found.open()
    yield fixture, truth_of(fixture), source
    assert fingerprint(fixture / "home") == before, "reading Cline's home wrote into it"


def prompts(source) -> list:
    [session] = source.sessions()
    return list(source.tasks(session.id))


def test_one_task_folder_holds_every_prompt(live):
    _fixture, truth, source = live
    assert len(source.sessions()) == truth["sessions"]
    assert [t.summary for t in prompts(source)] == truth["prompts"]
    assert not source.problems()


def test_tool_uses_commands_and_output_tokens_of_each_prompt(live):
    _fixture, truth, source = live
    for task, turn in zip(prompts(source), truth["turns"]):
        steps = source.steps(task.id)
        assert [AS_CALLED[s.tool] for s in steps if s.tool in AS_CALLED] == turn["tool_calls"]
        assert [c for s in steps if s.tool in ("execute_command", "run_commands")
                for c in (s.args.get("commands") or [s.args.get("command")])] == turn["shell"]
        assert sum(s.tokens_out for s in steps) == turn["output_tokens"]
        assert steps[-1].tool in ("attempt_completion", "reply") and task.status == "completed"


def test_file_changes_carry_the_truths_bytes(live):
    """Each new file and edit: path and kind, and the before/after bytes equal to the truth's (2.x:
    an edit's before is its SEARCH/REPLACE undone on the file Cline sent back); where memtui says
    a side is unknown (a 3.x edit of a file the session did not write), the reason and the diff of
    the edit's old and new text."""
    _fixture, truth, source = live
    for n, task in enumerate(prompts(source)):
        entries = [e for c in source.checkpoints(task.id) for e in source.checkpoint_entries(c.id)]
        expected = [c for c in truth["file_changes"] if c["turn"] == n and c["op"] in ("Write", "Edit")]
        assert [(e.path, e.kind) for e in entries] == [(c["path"], c["kind"]) for c in expected]
        for entry, change in zip(entries, expected):
            if entry.before_known and entry.after_known:
                before, after = source.read_entry(entry.id)
                assert (before, after) == (change["before"] and change["before"].encode(), change["after"].encode())
            else:
                assert entry.unknown_reason and entry.diff
                removed = [line[1:] for line in entry.diff.splitlines() if line.startswith("-") and not line.startswith("---")]
                added = [line[1:] for line in entry.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
                assert set(removed) <= set(change["before"].splitlines()) and set(added) <= set(change["after"].splitlines())


def test_a_sessions_stored_bytes_are_its_files_and_follow_them(live, tmp_path):
    """The sessions pane's "Stored": the files the session is read from (2.x: ui_messages.json
    and api_conversation_history.json; 3.x: `<id>.json` and `<id>.messages.json`), and a write
    to them changes the session's files key (what kept usage and search rows hang on). A 3.x
    session was measured by the 2.x names it does not hold: 0 B, a key that never changed."""
    fixture, _truth, _source = live
    home = shutil.copytree(fixture / "home", tmp_path / "copy", symlinks=True)
    [found] = discover(home / ".cline" / "data")
    source = found.open()
    [session] = source.sessions()
    folder = next(p.parent for p in (home / ".cline" / "data").rglob("*.json")
                  if p.parent.name == str(session.id))
    files = [p for p in folder.iterdir() if p.name in ("ui_messages.json", "api_conversation_history.json",
                                                        f"{folder.name}.json", f"{folder.name}.messages.json")]
    assert len(files) == 2 and session.stored_bytes == sum(p.stat().st_size for p in files) > 0
    last = max(files, key=lambda p: p.name)
    with last.open("a") as out:
        out.write("\n")
    [grown] = source.sessions()
    assert grown.stored_bytes == session.stored_bytes + 1 and grown.files_key != session.files_key


def test_cli_verbs_search_and_resume(live, capsys, tmp_path):
    fixture, truth, source = live
    [session] = source.sessions()
    command = source.resume_command(session.id)
    flag = "--taskId" if truth["version"].startswith("2.") else "--id"
    assert (command.argv, str(command.cwd)) == (("cline", flag, str(session.id)), truth["workspace"])
    data = data_folder(fixture)
    assert main(["log", str(data), "--json"]) == 0
    assert main(["export", str(data), "--session", str(session.id), "-o", str(tmp_path / "out.md")]) == 0
    capsys.readouterr()
    word = max(truth["prompts"][0].split(), key=len).strip(".,")
    assert main(["search", str(data), word]) == 0  # its index in memtui's cache folder, not the home
    assert f"task {session.id}:1" in capsys.readouterr().out
    assert main(["sources", str(data)]) == 0
    assert "cline" in capsys.readouterr().out
    assert main(["cleanup", str(data), "--dry-run"]) == 2  # one index names every task: refused, with why
    err = capsys.readouterr().err
    assert "Cline lists every task in one index" in err and "taskHistory.json" in err and "Gemini" not in err


def test_a_workspace_finds_its_tasks_in_the_cli_home(live, monkeypatch, tmp_path):
    """`memtui sources PROJECT` finds the CLI's tasks of that project (by their recorded folder),
    and a folder they did not run in finds none. The run's folder (/tmp/memtui-live/…) is only on
    the machine that made the fixtures: a copy of the home records a project made here instead."""
    fixture, truth, _source = live
    home = shutil.copytree(fixture / "home", tmp_path / "cline-home", symlinks=True)
    workspace, other = tmp_path / "project", tmp_path / "other"
    workspace.mkdir()
    other.mkdir()
    rewritten = 0
    for recorded in home.rglob("*.json"):
        text = recorded.read_text(encoding="utf-8")
        if truth["workspace"] in text:
            recorded.write_text(text.replace(truth["workspace"], str(workspace)), encoding="utf-8")
            rewritten += 1
    assert rewritten, "the home records no working folder: the fixture changed shape"
    monkeypatch.setenv("HOME", str(home))
    [found] = [s for s in discover(workspace) if s.kind == "cline"]
    with found.open() as source:
        assert [len(source.tasks(s.id)) for s in source.sessions()] == [len(truth["prompts"])]
    assert [s for s in discover(other) if s.kind == "cline"] == []


# --------------------------------------------------------------------------- published, unlicensed
REAL = {  # repository → (commit, task folders inside it)
    "gmfstu/Online-Card-Architecture": ("0c3f68ab987b911c118cbfb4b36efc796c5f8fd4",
                                        ("exported_task_1769064454592", "exported_conversation_1769053680585/1769053680585")),
}


def count_messages(folder: Path) -> dict[str, int]:
    """An independent count of a task folder's ui_messages.json, by the format alone."""
    ui = json.loads((folder / "ui_messages.json").read_text())
    kinds = [m.get("say") if m.get("type") == "say" else m.get("ask") for m in ui]
    tools = [json.loads(m["text"]).get("tool") for m, k in zip(ui, kinds) if k == "tool"]
    return {"requests": kinds.count("api_req_started"), "checkpoints": kinds.count("checkpoint_created"),
            "tools": len(tools), "edits": sum(t in ("newFileCreated", "editedExistingFile") for t in tools),
            "prompts": 1 + kinds.count("user_feedback")}


@pytest.mark.parametrize("repo", sorted(REAL))
def test_a_published_extension_task_counts_each_message_once(repo, tmp_path):
    commit, folders = REAL[repo]
    root = os.environ.get("MEMTUI_REAL_HOMES")
    checkout = Path(root) / repo.replace("/", "+") if root else None
    if checkout is None or not (checkout / folders[0]).is_dir():
        pytest.skip(f"{repo} has no licence, so it is not in the repository: clone it at {commit[:12]} into "
                    f"$MEMTUI_REAL_HOMES/{repo.replace('/', '+')} to run this")
    for inside in folders:
        folder = checkout / inside
        before = fingerprint(folder)
        [found] = discover(folder / "ui_messages.json")
        source = found.open()
        expected = count_messages(folder)
        [session] = source.sessions()
        steps = [s for t in source.tasks(session.id) for s in source.steps(t.id)]
        changes = [e for t in source.tasks(session.id) for c in source.checkpoints(t.id) for e in source.checkpoint_entries(c.id)]
        assert len(source.tasks(session.id)) == expected["prompts"]
        assert sum(s.tool == "checkpoint" for s in steps) == expected["checkpoints"]
        assert sum(s.usage is not None for s in steps) == expected["requests"]
        assert len(changes) == expected["edits"]
        assert sum(s.tool in ("readFile", "newFileCreated", "editedExistingFile", "listFilesTopLevel", "searchFiles")
                   for s in steps) == expected["tools"]
        assert all(s.args["commit"] for s in steps if s.tool == "checkpoint")
        assert not source.problems()
        assert fingerprint(folder) == before
