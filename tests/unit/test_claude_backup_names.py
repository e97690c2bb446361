"""A Claude Code transcript names its file-history backups (`backupFileName`) and its session
(`sessionId`, the file-history folder's name): memtui reads a backup only when both are plain
names. Any other is never joined to a path: that file's content is unknown (a rollback leaves
it alone, the diff says why) and the source reports the name as a problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.core.rollback import apply_rollback, plan_rollback
from memtui.core.sources.base import ContentUnknown
from memtui.core.agents.claude_code.source import ClaudeCodeSource

from sources_support import left_workspace, fixture_texts

S21 = "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"
TEXTS = fixture_texts()
SECRET = "SECRET=hunter2\n"


@pytest.fixture
def world(tmp_path):
    workspace, env = left_workspace(tmp_path)
    home = Path(env["CLAUDE_CONFIG_DIR"])
    [transcript] = (home / "projects").rglob(f"{S21}.jsonl")
    return workspace, env, home, transcript


def _rewrite(transcript: Path, change, to: Path | None = None) -> Path:
    lines = []
    for line in transcript.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        lines.append(json.dumps(change(rec)))
    target = to or transcript
    target.write_text("\n".join(lines) + "\n")
    return target


def _u2_backup_named(name: str):
    def change(rec):
        snap = rec.get("snapshot") if rec.get("type") == "file-history-snapshot" else None
        if snap and snap.get("messageId") == "u2":
            snap["trackedFileBackups"]["tally/cli.py"]["backupFileName"] = name
        return rec
    return change


@pytest.mark.parametrize("name", ["../../../secret.txt", "..", "sub/12d3b44750ef2257@v2"])
def test_a_backup_name_that_is_not_a_plain_name_is_never_read(world, tmp_path, name):
    workspace, env, home, transcript = world
    (tmp_path / "secret.txt").write_text(SECRET)  # where ../../../ from file-history/<session>/ leads
    (home / "file-history" / S21 / "sub").mkdir()
    (home / "file-history" / S21 / "sub" / "12d3b44750ef2257@v2").write_text(SECRET)
    _rewrite(transcript, _u2_backup_named(name))
    store = ClaudeCodeSource([transcript], home=home)

    [entry] = [e for e in store.checkpoint_entries(f"{S21}:u2:before") if e.path == "tally/cli.py"]
    assert not entry.before_known and "not a plain file name" in entry.unknown_reason
    with pytest.raises(ContentUnknown, match="not a plain file name"):
        store.read_entry(entry.id)
    plan = plan_rollback(store, checkpoint=f"{S21}:u2:before", root=workspace)
    assert plan.file("tally/cli.py").status == "error"
    apply_rollback(store, plan)
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3
    assert any(repr(name) in p.message and "not a plain file name" in p.message for p in store.problems())


SID = "0f1e2d3c-4b5a-4968-8776-655443322110"


def _one_write_session(home: Path, workspace: Path, backup_name: str) -> None:
    """A session whose one prompt overwrote notes.txt with Write, its file-history snapshot
    naming `backup_name` as the backup of notes.txt from before the prompt."""
    notes = str(workspace / "notes.txt")
    base = {"cwd": str(workspace), "sessionId": SID, "version": "2.1.3", "isSidechain": False, "userType": "external"}
    records = [
        {"type": "file-history-snapshot", "messageId": "U1", "isSnapshotUpdate": False,
         "snapshot": {"messageId": "U1", "timestamp": "2026-11-02T09:00:00.000Z",
                      "trackedFileBackups": {notes: {"backupFileName": backup_name, "version": 1,
                                                     "backupTime": "2026-11-02T09:00:00.000Z"}}}},
        {**base, "type": "user", "uuid": "U1", "parentUuid": None, "timestamp": "2026-11-02T09:00:01.000Z",
         "message": {"role": "user", "content": "Rewrite the notes"}},
        {**base, "type": "assistant", "uuid": "A1", "parentUuid": "U1", "timestamp": "2026-11-02T09:00:02.000Z",
         "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "tool_use", "id": "toolu_1", "name": "Write",
                                  "input": {"file_path": notes, "content": "new notes\n"}}]}},
        {**base, "type": "user", "uuid": "R1", "parentUuid": "A1", "timestamp": "2026-11-02T09:00:03.000Z",
         "message": {"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result",
                                                  "content": f"The file {notes} has been updated."}]},
         "toolUseResult": {"type": "update", "filePath": notes, "content": "new notes\n", "structuredPatch": [],
                           "originalFile": None}},
    ]
    project = home / "projects" / str(workspace).replace("/", "-")
    project.mkdir(parents=True, exist_ok=True)
    (project / f"{SID}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (home / "file-history" / SID).mkdir(parents=True, exist_ok=True)


def test_the_cli_rollback_never_writes_a_file_from_outside_the_backups(tmp_path, capsys, monkeypatch):
    from memtui.cli import main

    home, workspace = tmp_path / "claude", tmp_path / "ws"
    workspace.mkdir()
    for key, value in {"HOME": tmp_path / "nohome", "CLAUDE_CONFIG_DIR": home, "CODEX_HOME": tmp_path / "codex"}.items():
        monkeypatch.setenv(key, str(value))
    (tmp_path / "secret.txt").write_text(SECRET)  # file-history/<session>/../../../secret.txt
    (workspace / "notes.txt").write_text("new notes\n")
    _one_write_session(home, workspace, "../../../secret.txt")

    main(["rollback", str(home), "--checkpoint", f"{SID}:U1:before", "--root", str(workspace), "--yes"])

    out = capsys.readouterr()
    assert (workspace / "notes.txt").read_text() == "new notes\n"
    assert "not a plain file name" in out.out + out.err
    assert SECRET not in out.out + out.err


def test_a_session_id_that_is_not_a_plain_name_reads_no_backup(world, tmp_path):
    workspace, env, home, transcript = world
    evil = "../../evil"  # file-history/../../evil: a folder beside the home
    (tmp_path / "evil").mkdir()
    for backup in (home / "file-history" / S21).iterdir():
        (tmp_path / "evil" / backup.name).write_text(SECRET)

    def session(rec):
        if rec.get("sessionId") == S21:
            rec["sessionId"] = evil
        return rec

    named = _rewrite(transcript, session, to=transcript.parent / "notes.jsonl")  # not a session id: the record's is used
    transcript.unlink()
    store = ClaudeCodeSource([named], home=home)

    [entry] = [e for e in store.checkpoint_entries(f"{evil}:u2:before") if e.path == "tally/cli.py"]
    assert not entry.before_known and "is not a plain name" in entry.unknown_reason
    with pytest.raises(ContentUnknown, match="not a plain name"):
        store.read_entry(entry.id)
    apply_rollback(store, plan_rollback(store, checkpoint=f"{evil}:u2:before", root=workspace))
    assert (workspace / "tally" / "cli.py").read_text() == TEXTS.CLI_V3
    assert any(repr(evil) in p.message for p in store.problems())
