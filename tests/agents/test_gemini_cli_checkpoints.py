"""Gemini CLI's own checkpoints (tests/fixtures/live/gemini-cli-*/checkpoints, made by the real CLI
in its terminal UI by `python -m tests.agents.gemini_checkpoints`): each write_file / replace the
user approved has a checkpoint file naming a commit of the shadow git repository
(`history/<project>/.git`, kept in the fixture as `.git.tar`), the project as it was just before
the call. memtui reads each change's before from that commit (loose objects, or packed ones through
a read-only `git cat-file`), and rolls prompts back with it — in a scratch copy of the store and a
scratch workspace holding the truth's files-after: each prompt rolled back restores the truth's
files at its start; newer work is a conflict left alone; an undo puts back the exact bytes; the
agent's home, shadow repository included, is never written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from memtui.core.memory_source import Capability
from memtui.core.rollback import plan_rollback
from memtui.core.rollback_apply import apply_rollback

from .live_support import LIVE, fingerprint, fixture_id, truth_of
from .rollback_checks import an_undo_puts_back_the_exact_bytes, files, newer_work_is_a_conflict_left_alone, opened

FIXTURES = sorted(p.parent for p in LIVE.glob("gemini-cli-*/checkpoints/truth.json"))
pytestmark = pytest.mark.skipif(not FIXTURES, reason="no Gemini CLI checkpoint fixture (python -m tests.agents.gemini_checkpoints)")
GIT_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "HOME": os.devnull, "LC_ALL": "C"}


def scratch(fixture: Path, tmp: Path, *, shadow: bool = True) -> tuple[Path, Path]:
    """(the Gemini home copied under tmp with its shadow repository unpacked — or without it —,
    a workspace holding the truth's files-after)."""
    store = shutil.copytree(fixture / "home" / ".gemini", tmp / "home" / ".gemini")
    for packed in store.glob("history/*/.git.tar"):
        if shadow:
            with tarfile.open(packed) as tar:
                tar.extractall(packed.parent, filter="data")
        packed.unlink()
    workspace = tmp / "workspace"
    for rel, text in truth_of(fixture)["files_after"].items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    return store, workspace


def shadow_git(store: Path) -> Path:
    [git_dir] = store.glob("history/*/.git")
    return git_dir


def checkpoint_files(store: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(store.glob("tmp/*/checkpoints/*.json"))]


def forget_the_chats_contents(store: Path) -> None:
    """The chat as an older Gemini CLI (or a cut-down record) leaves it: no display of the edit
    (originalContent / newContent / fileDiff) and no result of the reads, so the chat alone knows
    no edited file's whole contents before the edit."""
    for chat in store.glob("tmp/*/chats/*.jsonl"):
        lines = []
        for line in chat.read_text().splitlines():
            record = json.loads(line)
            for call in record.get("toolCalls") or []:
                call.pop("resultDisplay", None)
                if call.get("name") == "read_file":
                    call.pop("result", None)
            lines.append(json.dumps(record))
        chat.write_text("\n".join(lines) + "\n")


def prompts(source) -> list:
    [session] = source.sessions()
    return list(source.tasks(session.id))


def at_turn(fixture: Path, n: int) -> dict[str, bytes]:
    return {rel: text.encode() for rel, text in truth_of(fixture)["files_at_turn"][n].items()}


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def world(request, tmp_path):
    """A scratch store whose chat records no contents (the checkpoints alone know the befores),
    and its workspace; the store is unchanged at the end."""
    fixture = request.param
    store, workspace = scratch(fixture, tmp_path)
    forget_the_chats_contents(store)
    before = fingerprint(store)
    yield fixture, store, workspace
    assert fingerprint(store) == before, "memtui wrote into the Gemini home (its shadow repository included)"


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_the_fixture_holds_a_checkpoint_per_approved_edit(fixture, tmp_path):
    """What the real CLI wrote, checked with git itself (not memtui): one checkpoint per
    write_file / replace, in order, each naming a commit that holds the file as the truth says
    it was before that call (absent for a file the call created)."""
    store, _workspace = scratch(fixture, tmp_path)
    git_dir = shadow_git(store)
    root = (git_dir.parent / ".project_root").read_text().strip()
    changes = truth_of(fixture)["file_changes"]
    found = checkpoint_files(store)
    assert [c["toolCall"]["name"] for c in found] == [t for c in changes for t in c["tools"]]
    for checkpoint, change in zip(found, changes):
        assert checkpoint["toolCall"]["args"]["file_path"] == f"{root}/{change['path']}"
        shown = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{checkpoint['commitHash']}:{change['path']}"],
                               capture_output=True, env=GIT_ENV)
        if change["before"] is None:
            assert shown.returncode != 0 and b"does not exist" in shown.stderr
        else:
            assert shown.returncode == 0 and shown.stdout == change["before"].encode()


def test_each_change_reads_its_before_from_gemini_cli_s_checkpoint(world):
    fixture, store, workspace = world
    source = opened(store, workspace)
    assert source.index().counts.get("checkpointed_changes") == len(truth_of(fixture)["file_changes"])
    commits = [c["commitHash"] for c in checkpoint_files(store)]
    entries = [(t, e) for t in prompts(source) for c in source.checkpoints(t.id) for e in source.checkpoint_entries(c.id)]
    assert len(entries) == len(truth_of(fixture)["file_changes"])
    for (task, entry), change, commit in zip(entries, truth_of(fixture)["file_changes"], commits):
        assert (entry.path, entry.kind) == (change["path"], change["kind"])
        assert entry.before_known and entry.after_known
        before, after = source.read_entry(entry.id)
        assert before == (None if change["before"] is None else change["before"].encode())
        assert after == change["after"].encode()
        _turn, step = source.index().changes[str(entry.checkpoint_id)]
        assert step.snapshot == commit


def test_without_the_shadow_repository_those_befores_are_unknown(fixture_without_shadow):
    """The same cut-down chat with no shadow repository: an edit whose before only the
    checkpoint held is unknown, and its rollback is refused rather than guessed."""
    fixture, store, workspace = fixture_without_shadow
    source = opened(store, workspace)
    assert not source.index().counts.get("checkpointed_changes") and not source.index().problems
    unknown = [e for t in prompts(source) for c in source.checkpoints(t.id) for e in source.checkpoint_entries(c.id)
               if not e.before_known]
    assert unknown
    before = files(workspace)
    plan = plan_rollback(source, task=prompts(source)[0].id)
    assert any(f.status == "error" for f in plan.files)
    apply_rollback(source, plan)
    for entry in unknown:
        if entry.path in before:
            assert files(workspace)[entry.path] == before[entry.path]


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def fixture_without_shadow(request, tmp_path):
    store, workspace = scratch(request.param, tmp_path, shadow=False)
    forget_the_chats_contents(store)
    yield request.param, store, workspace


def test_rolling_back_each_prompt_restores_its_files_before(world):
    """The last prompt, then the one before: the workspace is each time the truth's files at
    the start of that prompt (a file the prompt created is removed)."""
    fixture, store, workspace = world
    source = opened(store, workspace)
    assert Capability.ROLLBACK in source.capabilities
    tasks = prompts(source)
    assert len(tasks) == len(truth_of(fixture)["prompts"]) >= 2
    for n in reversed(range(len(tasks))):
        result = apply_rollback(source, plan_rollback(source, task=tasks[n].id))
        assert result.ok, result.to_json()
        assert files(workspace) == at_turn(fixture, n)
    assert files(workspace) == {rel: text.encode() for rel, text in truth_of(fixture)["files_before"].items()}


def test_rolling_back_the_first_prompt_alone_finds_the_second_s_work_a_conflict(world):
    """Rolling back the first prompt while the second's edits are still on disk: the files the
    second prompt changed again are newer work, left alone; the rest go back."""
    fixture, store, workspace = world
    source = opened(store, workspace)
    first = prompts(source)[0]
    result = apply_rollback(source, plan_rollback(source, task=first.id))
    later = {c["path"] for c in truth_of(fixture)["file_changes"] if c["turn"] > 0}
    statuses = {f.path: f.status for f in result.files}
    assert {p for p, s in statuses.items() if s == "conflict"} == later & set(statuses)
    for path in later:
        assert files(workspace)[path] == truth_of(fixture)["files_after"][path].encode()


def test_newer_work_is_a_conflict_left_alone(world):
    _fixture, store, workspace = world
    newer_work_is_a_conflict_left_alone(store, workspace, lambda source: prompts(source)[-1])


def test_an_undo_puts_back_the_exact_bytes(world):
    _fixture, store, workspace = world
    an_undo_puts_back_the_exact_bytes(store, workspace, lambda source: prompts(source)[-1])


def test_packed_objects_are_read_too(fixture_packed):
    """After `git gc` (Gemini CLI's git may pack the shadow repository) the objects are in a
    pack: memtui reads them through git without writing, and the rollback is the same."""
    fixture, store, workspace = fixture_packed
    assert not list(shadow_git(store).glob("objects/??/*")), "git gc left loose objects: nothing packed to read"
    source = opened(store, workspace)
    assert source.index().counts.get("checkpointed_changes") == len(truth_of(fixture)["file_changes"])
    for task in reversed(prompts(source)):
        assert apply_rollback(source, plan_rollback(source, task=task.id)).ok
    assert files(workspace) == at_turn(fixture, 0)


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def fixture_packed(request, tmp_path):
    store, workspace = scratch(request.param, tmp_path)
    forget_the_chats_contents(store)
    subprocess.run(["git", "--git-dir", str(shadow_git(store)), "gc", "-q", "--prune=now"], check=True, env=GIT_ENV)
    before = fingerprint(store)
    yield request.param, store, workspace
    assert fingerprint(store) == before, "reading the packed shadow repository wrote into it"


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_a_shadow_repository_of_another_project_under_the_same_name_is_not_read(fixture, tmp_path):
    """The shadow repository's `.project_root` names another folder: it is not this project's
    history, so nothing is read from it."""
    store, workspace = scratch(fixture, tmp_path)
    (shadow_git(store).parent / ".project_root").write_text("/somewhere/else\n")
    source = opened(store, workspace)
    assert not source.index().counts.get("checkpointed_changes")
    assert {e.before_known for t in prompts(source) for c in source.checkpoints(t.id)
            for e in source.checkpoint_entries(c.id)} == {True}  # the chat's own record, whole here


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_a_file_the_snapshot_does_not_hold_is_never_taken_for_created(fixture, tmp_path):
    """The shadow repository takes the project's .gitignore: a file it ignored is absent from
    every snapshot, though it existed. When the chat says the call overwrote such a file (here:
    the chat's record of the first write_file made to say it overwrote "ignored before"), the
    chat's record stands — a rollback writes that back rather than removing the file."""
    store, workspace = scratch(fixture, tmp_path)
    first = truth_of(fixture)["file_changes"][0]
    assert first["kind"] == "added" and first["tools"] == ["write_file"]
    for chat in store.glob("tmp/*/chats/*.jsonl"):
        lines = []
        for line in chat.read_text().splitlines():
            record = json.loads(line)
            for call in record.get("toolCalls") or []:
                if call["name"] == "write_file" and call["args"]["content"] == first["after"]:
                    call["resultDisplay"].update(originalContent="ignored before\n", isNewFile=False)
                    for part in call["result"]:
                        part["functionResponse"]["response"]["output"] = "Successfully overwrote file."
            lines.append(json.dumps(record))
        chat.write_text("\n".join(lines) + "\n")
    source = opened(store, workspace)
    assert source.index().counts.get("checkpointed_changes") == len(truth_of(fixture)["file_changes"]) - 1
    task = prompts(source)[0]
    [entry] = [e for c in source.checkpoints(task.id) for e in source.checkpoint_entries(c.id) if e.path == first["path"]]
    assert entry.kind == "modified" and source.read_entry(entry.id)[0] == b"ignored before\n"
