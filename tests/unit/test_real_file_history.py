"""Claude Code's own file-history backups, as a real home holds them (tests/fixtures/real,
claude-2.1.2-pai, PROVENANCE.md): every prompt's checkpoint shows the backup bytes as its
before-side, rolling it back restores exactly those bytes, a file that moved on since is a
conflict, undo puts the after-state back, and nothing is written into the home. Large tool
outputs persisted under tool-results/ are the step's result, and count in the session's size,
the cleanup inventory and a byte-exact archive and restore.

The after-state is rebuilt from the transcript's own Write/Edit results, never from memtui.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memtui.core.agents.claude_code.source import ClaudeCodeSource
from memtui.core.cleanup import apply_cleanup, plan_cleanup, restore_session
from memtui.core.homes import take_inventory
from memtui.core.rollback import apply_rollback, plan_rollback

from real_support import real_home, records
from sources_support import discovered, tree_state

NAME = "claude-2.1.2-pai"
SID = "1fb4fef8-87d5-4b15-8641-ea48ea49f381"
RECORDED = "/Users/neilhart/Documents/BONKbot/github/token-analysis-autopilot"
SAVED = "toolu_01YRsn3vbWBucd9SFKkTSYCE"


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def transcript(home: Path) -> Path:
    return next(home.glob(f"projects/*/{SID}.jsonl"))


def after_state(path: Path) -> dict[str, bytes]:
    """Each edited file as the session left it: Write's content, Edit's originalFile with its
    oldString replaced (once, or everywhere with replaceAll), in transcript order."""
    files: dict[str, bytes] = {}
    for rec in records(path):
        result = rec.get("toolUseResult")
        if rec.get("type") != "user" or not isinstance(result, dict) or not result.get("filePath"):
            continue
        name = result["filePath"]
        if "content" in result and result.get("type") == "create" or "oldString" not in result:
            files[name] = result["content"].encode()
            continue
        before = files[name].decode() if name in files else result["originalFile"]
        count = -1 if result.get("replaceAll") else 1
        files[name] = before.replace(result["oldString"], result["newString"], count).encode()
    return files


def backups_by_prompt(path: Path) -> dict[str, dict[str, str | None]]:
    """prompt uuid → {recorded path: backup file name (None: the file did not exist)}."""
    out: dict[str, dict[str, str | None]] = {}
    for rec in records(path):
        if rec.get("type") == "file-history-snapshot":
            snap = rec["snapshot"]
            target = out.setdefault(snap["messageId"], {})
            for key, info in snap["trackedFileBackups"].items():
                target.setdefault(key, info.get("backupFileName"))
    return out


@pytest.fixture
def world(tmp_path):
    """The home (its transcript's cwd pointed at a scratch workspace), the workspace with every
    edited file in its after-state, and the Claude Code source discovery finds for it."""
    home = real_home(NAME, tmp_path / "homes")
    workspace = tmp_path / "autopilot"
    workspace.mkdir()
    path = transcript(home)
    path.write_bytes(path.read_bytes().replace(RECORDED.encode(), str(workspace).encode()))
    after = after_state(path)
    for name, data in after.items():
        (Path(name)).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_bytes(data)
    env = {"CLAUDE_CONFIG_DIR": str(home), "HOME": str(tmp_path / "nohome"), "CODEX_HOME": str(tmp_path / "nocodex")}
    return home, workspace, after, discovered(workspace, env, "claude-code").open()


def prompt_checkpoints(store) -> list[str]:
    return [s.checkpoint_id for t in store.tasks(SID) for s in store.steps(t.id) if s.tool == "checkpoint"]


def test_every_prompt_checkpoint_shows_the_backup_bytes_before_and_the_after_state(world):
    home, workspace, after, store = world
    backups = backups_by_prompt(transcript(home))
    checked = 0
    for checkpoint in prompt_checkpoints(store):
        prompt = checkpoint.split(":")[1]
        for entry in store.checkpoint_entries(checkpoint):
            before, now = store.read_entry(entry.id)
            recorded = backups.get(prompt, {}).get(entry.path)
            if entry.path in backups.get(prompt, {}):
                expected = None if recorded is None else (home / "file-history" / SID / recorded).read_bytes()
                assert sha(before) == sha(expected), (checkpoint, entry.path)
                checked += 1
            assert now == after[str(workspace / entry.path)]
    assert checked >= 6  # every tracked file of every prompt that had one


def test_rolling_back_a_prompt_restores_the_backup_bytes_and_undo_puts_the_after_state_back(world):
    home, workspace, after, store = world
    before_home = tree_state(home)
    backups = backups_by_prompt(transcript(home))
    checkpoint = next(c for c in prompt_checkpoints(store) if any(backups.get(c.split(":")[1], {}).values()))
    tracked = backups[checkpoint.split(":")[1]]
    plan = plan_rollback(store, checkpoint=checkpoint, root=store.workspace)
    result = apply_rollback(store, plan)
    assert result.ok
    for name, backup in tracked.items():
        target = workspace / name
        if backup is None:
            assert not target.exists()
        else:
            assert sha(target.read_bytes()) == sha((home / "file-history" / SID / backup).read_bytes())
    undo = apply_rollback(store, plan_rollback(store, checkpoint=result.undo_checkpoint, root=store.workspace))
    assert undo.ok
    assert {name: (workspace / Path(name).relative_to(workspace)).read_bytes() for name in after} == after
    assert tree_state(home) == before_home  # not a byte written into the home


def test_a_file_that_moved_on_is_a_conflict_left_alone(world):
    home, workspace, after, store = world
    backups = backups_by_prompt(transcript(home))
    checkpoint = next(c for c in prompt_checkpoints(store) if any(backups.get(c.split(":")[1], {}).values()))
    name = next(n for n, b in backups[checkpoint.split(":")[1]].items() if b)
    (workspace / name).write_text("changed since\n")
    plan = plan_rollback(store, checkpoint=checkpoint, root=store.workspace)
    assert plan.file(name).status == "conflict"
    apply_rollback(store, plan)
    assert (workspace / name).read_text() == "changed since\n"


def test_a_persisted_tool_output_is_the_steps_result_and_part_of_the_session(tmp_path, monkeypatch):
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var))
    home = real_home(NAME, tmp_path / "homes")
    saved = next(home.glob(f"projects/*/{SID}/tool-results/{SAVED}.txt"))
    store = ClaudeCodeSource.from_path(home)
    [step] = [s for t in store.tasks(SID) for s in store.steps(t.id) if s.id == f"{SID}:{SAVED}"]
    assert step.result == saved.read_text(encoding="utf-8")
    [session] = store.sessions()
    assert session.stored_bytes == transcript(home).stat().st_size + saved.stat().st_size
    inventory = take_inventory(home)
    [record] = [s for s in inventory.sessions if s.id == SID]
    assert saved in {f.path for f in record.files}
    before = tree_state(home)
    plan = plan_cleanup(inventory, keep_days=0, keep_last=0, now=__import__("datetime").datetime(2030, 1, 1, tzinfo=__import__("datetime").timezone.utc))
    result = apply_cleanup(plan, tmp_path / "archive", level=3)
    assert SID in result.done and not saved.exists()
    restore_session(SID, tmp_path / "archive")
    assert tree_state(home) == before  # every file back, byte for byte
