"""Cline task folders where the live runs do not reach: the VS Code extension's globalStorage
folder found for a workspace (Linux, macOS and Windows places), a follow-up prompt, a rewrite of
an existing file (its before unknown, said why), an edit whose replacement is found twice (no
guess), a message kind memtui does not know (shown, counted, reported) and files that are not
JSON — one line each, never a traceback. The task folder is the live fixture's, copied."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.discovery import discover
from memtui.core.memory_source import Capability
from memtui.core.sources.base import ContentUnknown

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live" / "cline-2.18.0" / "create-edit" / "home" / ".cline" / "data"
STORAGE = ("User", "globalStorage", "saoudrizwan.claude-dev")


def extension_home(tmp_path: Path, base: Path, workspace: Path) -> Path:
    """The live task copied into an editor's extension storage under `base`, recorded as run in
    `workspace`."""
    [task] = (LIVE / "tasks").iterdir()
    data = base.joinpath("Code", *STORAGE)
    shutil.copytree(task, data / "tasks" / task.name)
    history = json.loads((LIVE / "state" / "taskHistory.json").read_text())
    history[0]["cwdOnTaskInitialization"] = str(workspace)
    (data / "state").mkdir(parents=True)
    (data / "state" / "taskHistory.json").write_text(json.dumps(history))
    return data


@pytest.mark.parametrize("place", ["linux", "macos", "windows"])
def test_a_workspace_finds_the_extensions_tasks(tmp_path, monkeypatch, place):
    home, workspace = tmp_path / "home", tmp_path / "project"
    workspace.mkdir()
    base = {"linux": home / ".config", "macos": home / "Library" / "Application Support", "windows": tmp_path / "AppData"}[place]
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("APPDATA", str(tmp_path / "AppData"))
    extension_home(tmp_path, base, workspace)
    [found] = [s for s in discover(workspace) if s.kind == "cline"]
    source = found.open()
    [session] = source.sessions()
    assert session.title.startswith("Create greet.py")
    assert not source.can(Capability.RESUME)  # an extension task is resumed in VS Code
    assert "VS Code" in source.instead(Capability.RESUME)
    (tmp_path / "elsewhere").mkdir()
    assert [s for s in discover(tmp_path / "elsewhere") if s.kind == "cline"] == []


def edited_task(tmp_path: Path, edit) -> Path:
    """The live task folder copied, `edit(ui, api)` applied to its messages."""
    [task] = (LIVE / "tasks").iterdir()
    folder = tmp_path / "data" / "tasks" / task.name
    shutil.copytree(task, folder)
    ui = json.loads((folder / "ui_messages.json").read_text())
    api = json.loads((folder / "api_conversation_history.json").read_text())
    edit(ui, api)
    (folder / "ui_messages.json").write_text(json.dumps(ui))
    (folder / "api_conversation_history.json").write_text(json.dumps(api))
    return folder


def open_task(folder: Path):
    [found] = discover(folder)
    assert found.kind == "cline"
    return found.open()


def test_follow_up_rewrite_twice_found_and_unknown_kinds(tmp_path):
    def edit(ui, api):
        tool = next(m for m in ui if m.get("say") == "tool" and "newFileCreated" in m["text"])
        data = json.loads(tool["text"])
        data["tool"] = "editedExistingFile"  # write_to_file over a file that existed: the whole new content
        tool["text"] = json.dumps(data)
        patch = next(m for m in ui if m.get("say") == "tool" and "SEARCH" in m["text"])
        data = json.loads(patch["text"])
        data["content"] = "------- SEARCH\nalpha\n=======\na\n+++++++ REPLACE"  # "a" is in the file more than once
        patch["text"] = json.dumps(data)
        ui.append({"ts": ui[-1]["ts"] + 1000, "type": "say", "say": "user_feedback", "text": "And now <b>bold</b>?"})
        ui.append({"ts": ui[-1]["ts"] + 1000, "type": "say", "say": "brand_new_kind", "text": "something new"})

    source = open_task(edited_task(tmp_path, edit))
    [session] = source.sessions()
    first, follow = source.tasks(session.id)
    assert follow.summary == "And now <b>bold</b>?"
    assert [(s.tool, s.result) for s in source.steps(follow.id)] == [("notification", "something new")]
    rewrite, patched = [e for c in source.checkpoints(first.id) for e in source.checkpoint_entries(c.id)]
    assert (rewrite.kind, rewrite.before_known, rewrite.unknown_reason) == (
        "modified", False, "Cline did not record the file's content before it was rewritten")
    assert (patched.before_known, patched.unknown_reason) == (False, "an edit's replacement is not found once in the file after it")
    with pytest.raises(ContentUnknown):
        source.read_entry(patched.id)
    assert [p.message for p in source.problems()] == ["1 message(s) of unknown kind 'brand_new_kind': shown as notifications"]


def test_files_that_are_not_json_are_reported(tmp_path, capsys):
    folder = edited_task(tmp_path, lambda ui, api: None)
    (folder / "ui_messages.json").write_text("[{not json")
    (folder / "api_conversation_history.json").write_text("{}")
    assert main(["sources", str(folder.parent)]) == 0
    out = capsys.readouterr().out
    assert "cline" in out and "not JSON" in out


def test_chain_lists_the_global_and_workspace_rules(tmp_path):
    from memtui.core.loaded_memory import loaded_chains

    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / "Cline" / "Rules").mkdir(parents=True)  # where the CLI made it in a home without Documents
    (home / "Cline" / "Rules" / "style.md").write_text("Be brief.\n")
    (ws / ".clinerules" / "workflows").mkdir(parents=True)
    (ws / ".clinerules" / "01-code.md").write_text("Tabs.\n")
    (ws / ".clinerules" / "workflows" / "release.md").write_text("A workflow, run on demand.\n")
    (ws / "memory-bank").mkdir()
    (ws / "memory-bank" / "activeContext.md").write_text("# Now\n")
    [chain] = loaded_chains(ws, agents=["cline"], env={"HOME": str(home)})
    assert [(f.path.name, f.scope, f.loaded_bytes) for f in chain.files] == [
        ("style.md", "global", 10), ("01-code.md", "project", 6), ("activeContext.md", "project", 0)]
    (ws / ".clinerules" / "01-code.md").unlink()
    (ws / ".clinerules" / "workflows" / "release.md").unlink()
    (ws / ".clinerules" / "workflows").rmdir()
    (ws / ".clinerules").rmdir()
    (ws / ".clinerules").write_text("One file of rules.\n")
    [chain] = loaded_chains(ws, agents=["cline"], env={"HOME": str(home)})
    assert [f.path.name for f in chain.files if f.loaded_bytes] == ["style.md", ".clinerules"]


def test_the_cli_data_folder_named_by_cline_dir(tmp_path, monkeypatch):
    """`CLINE_DIR` moves the CLI's folder (its tasks then resume with `cline --taskId`)."""
    data = tmp_path / "elsewhere" / "data"
    shutil.copytree(LIVE, data)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLINE_DIR", str(tmp_path / "elsewhere"))
    (tmp_path / "home").mkdir()
    [found] = [s for s in discover(tmp_path / "home") if s.kind == "cline"]
    source = found.open()
    [session] = source.sessions()
    assert source.can(Capability.RESUME)
    assert source.resume_command(session.id).argv == ("cline", "--taskId", str(session.id))


SDK = Path(__file__).resolve().parents[1] / "fixtures" / "live" / "cline-3.0.65" / "create-edit" / "home" / ".cline" / "data"


@pytest.mark.parametrize(("status", "ended", "pid", "shown"), [
    ("completed", True, None, "closed"),
    ("running", False, "mine", "open"),  # this test's own process: alive, started before the session
    ("running", False, "gone", "closed"),
])
def test_a_cli_3_session_says_whether_it_is_still_running(tmp_path, status, ended, pid, shown):
    import os
    from datetime import datetime, timedelta, timezone

    data = shutil.copytree(SDK, tmp_path / ".cline" / "data")
    [meta_path] = [p for p in (data / "sessions").glob("*/*.json") if not p.name.endswith(".messages.json")]
    meta = json.loads(meta_path.read_text())
    meta["status"] = status
    meta["started_at"] = (datetime.now(timezone.utc) + timedelta(seconds=5)).isoformat()
    if not ended:
        meta.pop("ended_at", None)
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    meta["pid"] = os.getpid() if pid == "mine" else dead if pid == "gone" else meta["pid"]
    meta_path.write_text(json.dumps(meta))
    [found] = discover(data)
    [session] = found.open().sessions()
    assert session.status == shown
