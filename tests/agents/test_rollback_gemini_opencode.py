"""Rolling back what the real Gemini CLI 0.61 and OpenCode 1.18 changed (their live fixtures,
copied into a scratch folder first), in a scratch copy of the workspace as the run left it: every
prompt rolled back restores the truth's files-before; newer work on a file is a conflict left
alone; an undo puts back the exact bytes; a path outside the project refuses the whole
rollback; the undo is kept in memtui's state folder and the agent's home is never written."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from memtui.core.memory_source import Capability
from memtui.core.rollback import plan_rollback
from memtui.core.rollback_apply import apply_rollback

from .live_support import LIVE, fingerprint, fixture_id, truth_of
from .rollback_checks import an_undo_puts_back_the_exact_bytes, files, newer_work_is_a_conflict_left_alone, opened
from .run import make_repo

FIXTURES = sorted(p.parent for p in [*LIVE.glob("gemini-cli-*/*/truth.json"), *LIVE.glob("opencode-*/*/truth.json")]
                  if json.loads(p.read_text())["file_changes"])
pytestmark = pytest.mark.skipif(not FIXTURES, reason="no Gemini CLI or OpenCode live fixtures")
STORE = {"gemini-cli": Path(".gemini"), "opencode": Path(".local/share/opencode")}


def agent(fixture: Path) -> str:
    return fixture.parent.name.rsplit("-", 1)[0]


def scratch(fixture: Path, tmp: Path) -> tuple[Path, Path]:
    """(the agent's store copied under tmp, a workspace holding the truth's files-after)."""
    store = shutil.copytree(fixture / "home" / STORE[agent(fixture)], tmp / "home" / STORE[agent(fixture)],
                            symlinks=True)
    if agent(fixture) == "opencode":
        project_objects(fixture, store, tmp)
    workspace = tmp / "workspace"
    for rel, text in truth_of(fixture)["files_after"].items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    return store, workspace


def project_objects(fixture: Path, store: Path, tmp: Path) -> None:
    """OpenCode's snapshot repositories name the project's own git objects in
    `objects/info/alternates`: what the project held before the run is only there. The fixture
    keeps OpenCode's store, not the run's project repository (at the recorded /tmp/memtui-live/…
    path, which only the machine that made the fixtures has). It is built again here as the
    runner built it — the truth's files-before, one commit, fixed dates: the same objects — and
    the scratch copy's alternates name it, as OpenCode's name the project's repository."""
    repo, git_home = tmp / "project", tmp / "git-home"
    git_home.mkdir()
    make_repo(repo, truth_of(fixture)["files_before"], git_home)
    named = list(store.glob("snapshot/*/*/objects/info/alternates"))
    assert named, "OpenCode's snapshot store names no project objects: the fixture changed shape"
    for alternates in named:
        alternates.write_text(f"{repo / '.git' / 'objects'}\n")


def tasks(source) -> list:
    """The session's tasks in order: each prompt, then the sub-agents it handed work to."""
    [session] = source.sessions()
    return list(source.tasks(session.id))


BASELINE: dict[Path, dict] = {}


def edited_by_the_test(store: Path) -> None:
    """The test changed the store itself (a recorded path, a folder): that is the new baseline."""
    BASELINE[store] = fingerprint(store)


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def world(request, tmp_path):
    fixture = request.param
    store, workspace = scratch(fixture, tmp_path)
    BASELINE[store] = fingerprint(store)
    yield fixture, store, workspace
    assert fingerprint(store) == BASELINE.pop(store), "a rollback wrote into the agent's home"


def test_rolling_back_every_prompt_restores_the_files_before(world):
    fixture, store, workspace = world
    source = opened(store, workspace)
    assert Capability.ROLLBACK in source.capabilities
    for task in reversed(tasks(source)):
        result = apply_rollback(source, plan_rollback(source, task=task.id))
        assert result.ok, result.to_json()
    expected = {rel: text.encode() for rel, text in truth_of(fixture)["files_before"].items()}
    assert files(workspace) == expected


def test_newer_work_is_a_conflict_left_alone(world):
    _fixture, store, workspace = world
    newer_work_is_a_conflict_left_alone(store, workspace, lambda source: tasks(source)[-1])


def test_an_undo_puts_back_the_exact_bytes(world):
    _fixture, store, workspace = world

    def listed(source, task, undo) -> None:
        assert undo in [c.id for c in source.checkpoints(task.id) if c.label == "rollback"]

    an_undo_puts_back_the_exact_bytes(store, workspace, lambda source: tasks(source)[-1], then=listed)


def test_a_path_outside_the_project_refuses_the_whole_rollback(world, tmp_path):
    fixture, store, workspace = world
    recorded = truth_of(fixture)["workspace"]
    change = truth_of(fixture)["file_changes"][-1]["path"]
    outside = str(tmp_path / "elsewhere" / change)
    if agent(fixture) == "gemini-cli":
        for chat in store.glob("tmp/*/chats/**/*.json*"):  # sub-agents' chats too
            chat.write_text(chat.read_text().replace(f"{recorded}/{change}", outside))
    else:
        with sqlite3.connect(store / "opencode.db") as conn:
            conn.execute("UPDATE part SET data = replace(data, ?, ?)", (f"{recorded}/{change}", outside))
        conn.close()
    edited_by_the_test(store)
    os.makedirs(tmp_path / "elsewhere")
    before = files(workspace)
    source = opened(store, workspace)
    last = next(t for t in reversed(tasks(source))
                if any(e.path == outside for c in source.checkpoints(t.id) for e in source.checkpoint_entries(c.id)))
    plan = plan_rollback(source, task=last.id)
    assert plan.refused and any("outside" in n for n in plan.notes)
    result = apply_rollback(source, plan)
    assert {f.status for f in result.files} == {"refused"}
    assert files(workspace) == before and not any((tmp_path / "elsewhere").iterdir())


def test_rollback_is_offered_only_with_a_folder_to_restore_under(world, tmp_path):
    fixture, store, _workspace = world
    gone = str(tmp_path / "moved-away")
    if agent(fixture) == "gemini-cli":
        for root in store.glob("tmp/*/.project_root"):
            root.write_text(gone)
    else:
        with sqlite3.connect(store / "opencode.db") as conn:
            conn.execute("UPDATE session SET directory = ?", (gone,))
        conn.close()
    edited_by_the_test(store)
    source = opened(store, None)
    assert Capability.ROLLBACK not in source.capabilities
    assert "--root" in source.instead(Capability.ROLLBACK)


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if agent(f) == "opencode" and any(
    c["op"] == "Edit" for c in truth_of(f)["file_changes"])], ids=fixture_id)
def test_an_opencode_edit_whose_before_is_gone_is_never_guessed(fixture, tmp_path):
    """Without its snapshot store OpenCode's edit has no before: the diff shows what is known,
    and a rollback names the file instead of writing it (a write's added file still goes)."""
    store, workspace = scratch(fixture, tmp_path)
    shutil.rmtree(store / "snapshot")
    source = opened(store, workspace)
    before = files(workspace)
    plan = plan_rollback(source, task=tasks(source)[0].id)
    unknown = [f for f in plan.files if f.status == "error"]
    assert unknown and all("does not hold" in f.reason for f in unknown)
    apply_rollback(source, plan)
    for f in unknown:
        assert files(workspace)[f.path] == before[f.path]


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if any(t["subagents"] for t in truth_of(f)["turns"])],
                         ids=fixture_id)
def test_a_prompts_rollback_takes_its_sub_agents_changes_along(fixture, tmp_path):
    """The prompt that handed work to a sub-agent rolls back what the sub-agent changed too
    (the handoff), and says so."""
    store, workspace = scratch(fixture, tmp_path)
    source = opened(store, workspace)
    [session] = source.sessions()
    prompt = next(t for t in source.tasks(session.id)
                  if any(r.kind == "handoff" and str(r.from_task) == str(t.id) for r in source.references(t.id)))
    assert [c for c in source.checkpoints(prompt.id)] == []  # the prompt itself wrote nothing
    plan = plan_rollback(source, task=prompt.id)
    assert any("sub-agent" in n for n in plan.notes)
    assert apply_rollback(source, plan).ok
    expected = {rel: text.encode() for rel, text in truth_of(fixture)["files_before"].items()}
    assert files(workspace) == expected


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if agent(f) == "opencode" and any(
    c["op"] == "Edit" for c in truth_of(f)["file_changes"])], ids=fixture_id)
def test_an_opencode_project_id_leading_out_of_its_snapshot_folder_is_never_followed(fixture, tmp_path):
    """A recorded project id is the name of its snapshot folder: one that is not a plain name
    (`../../elsewhere`) is never joined to a path, so no repository outside OpenCode's snapshot
    folder is read: the edits' befores are unknown and left alone, as with no snapshots."""
    store, workspace = scratch(fixture, tmp_path)
    [project] = [p for p in (store / "snapshot").iterdir() if p.is_dir()]
    elsewhere = store.parent / "elsewhere"  # snapshot/../../elsewhere
    project.rename(elsewhere)
    with sqlite3.connect(store / "opencode.db") as conn:
        conn.execute("UPDATE session SET project_id = ?", ("../../elsewhere",))
        conn.execute("UPDATE project SET id = ?", ("../../elsewhere",))
    conn.close()
    source = opened(store, workspace)
    before = files(workspace)
    plan = plan_rollback(source, task=tasks(source)[0].id)
    unknown = [f for f in plan.files if f.status == "error"]
    assert unknown and all("does not hold" in f.reason for f in unknown)
    apply_rollback(source, plan)
    for f in unknown:
        assert files(workspace)[f.path] == before[f.path]
