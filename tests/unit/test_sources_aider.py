"""Aider's history where the live runs do not reach: several starts in one file (a new session
each, a restored one continuing), a prompt of several lines, an edit aider could not apply, a
commit the repository no longer holds, a history outside any repository, text before the first
start — each shown or reported on one line, never a traceback. And the start-up chain: the
files `read:` in `.aider.conf.yml` names."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.discovery import discover
from memtui.core.loaded_memory import loaded_chains

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={**ENV, "PATH": "/usr/bin:/bin"}).stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    git(repo, "commit", "-q", "-m", "start")
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "commit", "-q", "-am", "Set x to 2\n\nCo-authored-by: aider (openai/stub) <aider@aider.chat>")
    return repo


def history(repo: Path, sha: str) -> str:
    return f"""
# aider chat started at 2026-11-30 09:00:00

> Aider v0.86.2  
> Model: openai/stub with diff edit format  

#### Set x to 2  
#### and nothing else.  

Setting x.
a.py
```
<<<<<<< SEARCH
x = 1
=======
x = 2
>>>>>>> REPLACE
```

> Tokens: 1.2k sent, 30 received. Cost: $0.0042 message, $0.0042 session.  
> Applied edit to a.py  
> Commit {sha} Set x to 2  

#### /run make  
> Running make  

# aider chat started at 2026-11-30 10:00:00

> Aider v0.86.2  

# aider chat started at 2026-11-30 11:00:00

> Aider v0.86.2  
> Model: openai/stub with diff edit format  
> Restored previous conversation history.  

#### Try again  

b.py
```
<<<<<<< SEARCH
nothing
=======
something
>>>>>>> REPLACE
```

> The LLM did not conform to the edit format.  
> Commit 0123abc Gone since  

# aider chat started at 2026-11-30 12:00:00

#### A new session  
"""


def open_repo(repo: Path):
    [found] = discover(repo)
    assert found.kind == "aider"
    return found.open()


def test_starts_prompts_and_steps(repo):
    (repo / ".aider.chat.history.md").write_text(history(repo, git(repo, "rev-parse", "--short", "HEAD")))
    source = open_repo(repo)
    sessions = sorted(source.sessions(), key=lambda s: s.created_at)
    # The start at 10:00 had no prompt; the 11:00 one restored the 09:00 conversation.
    assert [[t.summary for t in source.tasks(s.id)] for s in sessions] == [
        ["Set x to 2\nand nothing else.", "/run make", "Try again"], ["A new session"]]
    first, run, again = source.tasks(sessions[0].id)
    steps = source.steps(first.id)
    assert [s.tool for s in steps] == ["reply", "edit", "commit"]
    assert (steps[0].tokens_in, steps[0].tokens_out, steps[0].cost) == (1200, 30, 0.0042)
    [checkpoint] = source.checkpoints(first.id)
    [entry] = source.checkpoint_entries(checkpoint.id)
    assert (entry.path, entry.kind, source.read_entry(entry.id)) == ("a.py", "modified", (b"x = 1\n", b"x = 2\n"))
    assert [(s.tool, s.args) for s in source.steps(run.id)] == [("shell", {"command": "make"})]
    assert again.status == "failed"
    assert [s.tool for s in source.steps(again.id)] == ["reply", "notification", "commit"]
    assert source.checkpoints(again.id) == []
    assert [p.message for p in source.problems()] == [
        "commit 0123abc is not in the repository (undone and pruned, or another clone): its files are not shown"]


def test_a_history_outside_a_repository_and_text_before_a_start(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / ".aider.chat.history.md").write_text("stray line\n" + history(folder, "abc1234"))
    assert main(["sources", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "aider" in out and "not in a git repository here: the commits aider made are not shown" in out
    assert "text before the first '# aider chat started at': not shown" in out
    assert main(["rollback", str(folder / ".aider.chat.history.md"), "--task", "x", "--dry-run"]) == 2
    assert "is not a git repository here" in capsys.readouterr().err


def test_a_markdown_file_of_that_name_that_aider_did_not_write_is_no_store(tmp_path):
    (tmp_path / ".aider.chat.history.md").write_text("# my notes\n")
    assert discover(tmp_path) == []


def test_chain_lists_the_read_files_of_the_config_that_wins(repo, tmp_path):
    (repo / "CONVENTIONS.md").write_text("# Conventions\nUse tabs.\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("style\n")
    (tmp_path / "home" / ".aider.conf.yml").write_text("read: CONVENTIONS.md\n")
    env = {"HOME": str(tmp_path / "home")}

    def chain():
        [found] = loaded_chains(repo, agents=["aider"], env=env)
        return [(f.path.relative_to(repo).as_posix(), f.loaded_bytes) for f in found.files], found

    assert chain()[0] == [("CONVENTIONS.md", 24)]  # the home's config names it
    (repo / ".aider.conf.yml").write_text("read:\n  - docs/style.md   # house style\n  - missing.md\n")
    files, found = chain()
    assert files == [("docs/style.md", 6), ("CONVENTIONS.md", 0)]  # the repository's config wins
    assert "replaces the one in" in found.files[1].reason
    assert [p.rule for p in found.problems if p.rule == "missing-file"] == ["missing-file"]
    (repo / ".aider.conf.yml").write_text("model: gpt-4o\n")
    (tmp_path / "home" / ".aider.conf.yml").unlink()
    files, found = chain()
    assert files == [("CONVENTIONS.md", 0)]
    assert found.files[0].reason.startswith("not loaded: Aider reads it only when")


def started(process: subprocess.Popen) -> None:
    """Wait until the process's command line is readable: Popen returns as the child execs, and
    for a moment after, /proc/PID/cmdline is still empty (a real aider runs for minutes)."""
    deadline = time.monotonic() + 10
    while Path("/proc").is_dir() and not Path(f"/proc/{process.pid}/cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_the_last_session_is_open_while_aider_runs_in_the_repository(repo):
    """Aider records no end: a running `aider` in the repository makes its last conversation open
    (and resuming it says so); without one every session is closed."""
    (repo / ".aider.chat.history.md").write_text(history(repo, git(repo, "rev-parse", "--short", "HEAD")))
    source = open_repo(repo)
    assert {s.status for s in source.sessions()} == {"closed"}
    running = subprocess.Popen(["aider", "60"], executable=shutil.which("sleep"), cwd=repo)
    try:
        started(running)
        source.reload()
        newest, older = sorted(source.sessions(), key=lambda s: s.created_at, reverse=True)
        assert (newest.status, older.status) == ("open", "closed")
        assert source.resume_command(newest.id).open
    finally:
        running.kill()
        running.wait()
    source.reload()
    assert {s.status for s in source.sessions()} == {"closed"}
