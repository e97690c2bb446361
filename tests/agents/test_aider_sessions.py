"""The history the real Aider 0.86 wrote (tests/fixtures/live/aider-*/: `.aider.chat.history.md`,
`.aider.input.history` and the repository's commits as `workspace.bundle`) read by memtui as a
user sees it, against each scenario's truth: sessions, prompts, the files of each commit and
their bytes, a prompt's rollback and its undo — and reading writes nothing, neither into the
repository (its .git included) nor into the home."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.discovery import discover
from memtui.core.rollback import apply_rollback, plan_rollback

from .live_support import LIVE, fingerprint, fixture_id, truth_of

FIXTURES = sorted(p.parent for p in LIVE.glob("aider-*/*/truth.json"))
pytestmark = [pytest.mark.skipif(not FIXTURES, reason="no Aider live fixtures"),
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]


def checkout(fixture: Path, where: Path) -> Path:
    """The run's repository as Aider left it: its commits (the bundle) and its history files."""
    repo = where / "repo"
    subprocess.run(["git", "clone", "-q", str(fixture / "workspace.bundle"), str(repo)], check=True)
    for name in (".aider.chat.history.md", ".aider.input.history"):
        shutil.copy2(fixture / "workspace" / name, repo / name)
    return repo


@pytest.fixture(params=FIXTURES, ids=fixture_id)
def live(request, tmp_path, monkeypatch):
    fixture = request.param
    for var, folder in (("HOME", "home"), ("CLAUDE_CONFIG_DIR", "claude"), ("CODEX_HOME", "codex")):
        (tmp_path / folder).mkdir()
        monkeypatch.setenv(var, str(tmp_path / folder))
    repo = checkout(fixture, tmp_path)
    [found] = discover(repo)
    assert (found.kind, found.path) == ("aider", repo)
    return fixture, truth_of(fixture), repo, found.open()


def changes_of(source, task) -> list[tuple[str, str, bytes | None, bytes | None]]:
    return sorted((e.path, e.kind, *source.read_entry(e.id))
                  for c in source.checkpoints(task.id) for e in source.checkpoint_entries(c.id))


def test_one_session_holds_every_prompt_in_order(live):
    """A `--restore-chat-history` start continues the session it restored."""
    _fixture, truth, _repo, source = live
    sessions = source.sessions()
    assert len(sessions) == truth["sessions"]
    assert [t.summary for t in source.tasks(sessions[0].id)] == truth["prompts"]
    assert not source.problems()


def test_each_prompts_commit_holds_the_truths_files_and_bytes(live):
    _fixture, truth, _repo, source = live
    [session] = source.sessions()
    for n, task in enumerate(source.tasks(session.id)):
        expected = sorted((c["path"], c["kind"], c["before"] and c["before"].encode(), c["after"] and c["after"].encode())
                          for c in truth["file_changes"] if c["turn"] == n)
        assert changes_of(source, task) == expected
        assert [s.tool for s in source.steps(task.id) if s.tool == "commit"] == ["commit"]


def test_replies_carry_the_edits_and_aiders_token_counts(live):
    """Each prompt's reply holds the SEARCH/REPLACE blocks whole (a `>>>>>>> REPLACE` line is no
    notice of aider's), with the tokens aider printed after it."""
    fixture, _truth, _repo, source = live
    history = (fixture / "workspace" / ".aider.chat.history.md").read_text()
    received = [int(n) for n in re.findall(r"^> Tokens: .* (\d+) received\.", history, re.M)]
    [session] = source.sessions()
    replies = [[s for s in source.steps(t.id) if s.tool == "reply"] for t in source.tasks(session.id)]
    assert [[r.tokens_out for r in rs] for rs in replies] == [[n] for n in received]
    assert all(r.result.count("<<<<<<< SEARCH") == r.result.count(">>>>>>> REPLACE") > 0 for rs in replies for r in rs)
    assert all(r.model == "openai/stub" for rs in replies for r in rs)


def test_rolling_back_each_prompt_restores_the_truths_before_and_the_undos_put_it_back(live):
    _fixture, truth, repo, source = live
    [session] = source.sessions()
    for n, task in reversed(list(enumerate(source.tasks(session.id)))):
        result = apply_rollback(source, plan_rollback(source, task=task.id))
        assert all(f.status == "done" for f in result.files)
        for change in (c for c in truth["file_changes"] if c["turn"] == n):
            on_disk = repo / change["path"]
            assert (on_disk.read_text() if on_disk.exists() else None) == change["before"]
    assert {p: (repo / p).read_text() for p in truth["files_before"]} == truth["files_before"]
    for undo in source.rollback_checkpoints():  # newest first: each undo finds the files its rollback left
        assert all(f.status == "done" for f in apply_rollback(source, plan_rollback(source, undo=undo.id)).files)
    assert {p: (repo / p).read_text() for p in truth["files_after"]} == truth["files_after"]


def test_a_file_changed_since_the_commit_is_a_conflict_left_alone(live):
    _fixture, truth, repo, source = live
    [session] = source.sessions()
    last = source.tasks(session.id)[-1]
    touched = next(c["path"] for c in truth["file_changes"] if c["turn"] == len(truth["prompts"]) - 1 and c["before"])
    (repo / touched).write_text("edited by hand\n")
    plan = plan_rollback(source, task=last.id)
    assert [f.status for f in plan.files if f.path == touched] == ["conflict"]
    apply_rollback(source, plan)
    assert (repo / touched).read_text() == "edited by hand\n"


def test_reading_everything_writes_nothing(live, tmp_path, capsys):
    """Every read a user can make — sessions, steps, each file's bytes, the CLI's log, show,
    search and export — leaves the repository (.git included) and the home byte for byte."""
    _fixture, _truth, repo, source = live
    before = fingerprint(repo), fingerprint(tmp_path / "home")
    for session in source.sessions():
        for task in source.tasks(session.id):
            list(source.steps(task.id))
            changes_of(source, task)
        assert main(["export", str(repo), "--session", str(session.id), "-o", str(tmp_path / "out.md")]) == 0
    assert main(["log", str(repo), "--json"]) == 0
    assert main(["search", str(repo), "notes"]) == 0
    assert main(["sources", str(repo)]) == 0
    assert "aider" in capsys.readouterr().out
    assert (fingerprint(repo), fingerprint(tmp_path / "home")) == before


def test_resume_and_cleanup(live, capsys):
    """Resume is aider's own command in the repository; cleanup is refused with the reason."""
    _fixture, _truth, repo, source = live
    [session] = source.sessions()
    command = source.resume_command(session.id)
    assert (command.argv, command.cwd) == (("aider", "--restore-chat-history"), repo)
    assert main(["cleanup", str(repo), "--dry-run"]) == 2
    assert "one chat history per repository" in capsys.readouterr().err
