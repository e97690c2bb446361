"""What a newcomer met in the CLI: the demo overwriting files, a missing path opening a screen,
destructive verbs that did not ask, GC listings without titles, foreign stores refused
with the wrong reason."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo
from memtui.core.store import AgentStore

from sources_support import agent_homes


@pytest.fixture
def demo(tmp_path):
    return build_demo(tmp_path / "demo", seed=1)


def test_demo_refuses_a_folder_holding_the_users_files(tmp_path, capsys):
    mine = tmp_path / "project"
    mine.mkdir()
    (mine / "README.md").write_text("my readme\n")
    assert main(["demo", str(mine), "--no-open"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did not make" in err and "not replaced" in err
    assert main(["demo", str(mine), "--no-open", "--force"]) == 2  # --force replaces only a demo
    assert "not replaced, even with --force" in capsys.readouterr().err
    assert sorted(p.name for p in mine.iterdir()) == ["README.md"]
    assert (mine / "README.md").read_text() == "my readme\n"


def test_demo_under_a_file_names_the_file_in_one_line(tmp_path, capsys):
    """`memtui demo notes.txt/demo`: the file in the way is named, not "notes.txt: File exists"."""
    plain = tmp_path / "notes.txt"
    plain.write_text("mine\n")
    for given in (plain / "demo", plain / "a" / "demo"):
        assert main(["demo", str(given), "--no-open"]) == 2
        assert capsys.readouterr().err == f"memtui: {plain} is a file, not a folder: no demo can be made in it\n"
    assert plain.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_demo_force_replaces_an_earlier_demo_whole(tmp_path, capsys):
    demo = tmp_path / "demo"
    assert main(["demo", str(demo), "--no-open"]) == 0
    (demo / "scratch.txt").write_text("tried something\n")
    assert main(["demo", str(demo), "--no-open"]) == 2
    assert "earlier memtui demo" in capsys.readouterr().err and (demo / "scratch.txt").exists()
    assert main(["demo", str(demo), "--no-open", "--force"]) == 0
    assert (demo / ".agent" / "agent.db").is_file() and not (demo / "scratch.txt").exists()
    (demo / ".agent" / "memtui-demo").unlink()  # no longer a folder the demo made: a store of the user's
    assert main(["demo", str(demo), "--no-open", "--force"]) == 2
    assert "holds a memtui store an earlier memtui demo did not make" in capsys.readouterr().err
    assert (demo / ".agent" / "agent.db").is_file()


@pytest.mark.parametrize("given", ["home", "above home", "claude home", "holds .codex", "holds .ra-aid"])
def test_demo_force_never_replaces_a_home_or_an_agents_store(tmp_path, monkeypatch, capsys, given):
    """--force replaces a folder and all it holds: pointed at the user's home (or a folder
    holding it, or an agent's home or store) it refuses in one line and removes nothing."""
    home = tmp_path / "users" / "me"
    (home / ".claude" / "projects").mkdir(parents=True)
    (home / "notes.txt").write_text("mine\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    (project / ".ra-aid").mkdir()
    target = {"home": home, "above home": tmp_path / "users", "claude home": home / ".claude",
              "holds .codex": project, "holds .ra-aid": project}[given]
    if given == "holds .ra-aid":
        shutil.rmtree(project / ".codex")
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert main(["demo", str(target), "--no-open", "--force"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not replaced" in err, err
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before
    assert (home / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("force", [False, True])
def test_demo_into_the_folder_the_shell_is_in(tmp_path, force):
    """`cd here && memtui demo .`: the folder named '.' gets the demo (swapped in beside it,
    nothing left in or beside it), and the user is told how the shell sees it."""
    here = tmp_path / "here"
    here.mkdir()
    if force:  # an earlier demo, a file added to it
        build_demo(here, seed=2)
        (here / "notes.txt").write_text("mine\n")
    from kill_points import child_env

    run = subprocess.run([sys.executable, "-m", "memtui", "demo", ".", "--no-open", *(["--force"] if force else [])],
                         cwd=here, env=child_env(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert f"demo workspace: {here}\n" in run.stdout and "run cd . to see it" in run.stdout
    assert (here / ".agent" / "agent.db").is_file() and not (here / "notes.txt").exists()
    assert sorted(os.listdir(tmp_path)) == ["here"] and not [n for n in os.listdir(here) if "memtui-tmp" in n]


def test_demo_without_a_path_says_where_and_how_to_remove_it(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert main(["demo", "--no-open"]) == 0
    out = capsys.readouterr().out
    [made] = list(tmp_path.glob("memtui-demo-*"))
    assert f"demo workspace: {made} (a temporary folder)" in out
    assert f"rm -r {made}" in out


def test_demo_without_a_path_follows_no_link_planted_in_the_temp_folder(monkeypatch, tmp_path):
    """The temp folder is shared with other users: a link named memtui-demo there (anyone may
    make one) does not choose where the demo is built, nor make folders where it points."""
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    elsewhere = tmp_path / "elsewhere"
    (shared / "memtui-demo").symlink_to(elsewhere / "inside" / "demo")
    monkeypatch.setenv("TMPDIR", str(shared))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    root = build_demo(None, seed=1)
    assert root.parent == shared and (root / ".agent" / "agent.db").is_file()
    assert not elsewhere.exists()
    assert os.readlink(shared / "memtui-demo") == str(elsewhere / "inside" / "demo")


def test_opening_a_missing_path_is_one_line_not_a_screen(tmp_path, capsys):
    assert main([str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == f"memtui: {tmp_path / 'missing'} does not exist\n"


def test_a_file_that_is_not_sqlite_passed_as_a_store_is_an_error(tmp_path, capsys):
    notes = tmp_path / "agent.db"
    notes.write_text("not a database")
    assert main(["sources", str(notes)]) == 2
    assert "is not a SQLite database" in capsys.readouterr().err


def test_gc_preview_lists_titles(demo, capsys):
    assert main(["gc", str(demo)]) == 0
    out = capsys.readouterr().out
    assert "Sketch the router API" in out and "Split the parser into modules" in out
    assert main(["gc", str(demo), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {r["task"]: r["title"] for r in doc["reclaimable"]}[1] == "Sketch the router API"


def _on_a_terminal(argv: list[str], answer: bytes) -> tuple[int, str]:
    """Run `memtui ARGV` with a pseudo-terminal as stdin and stderr; type `answer`."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "memtui", *argv], stdin=slave, stdout=subprocess.PIPE,
                            stderr=slave, env=env)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    while b"[y/N]" not in seen and proc.poll() is None and time.monotonic() < deadline:
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
    os.write(master, answer)
    proc.stdout.read()
    code = proc.wait(timeout=60)
    try:
        while chunk := os.read(master, 4096):
            seen += chunk
    except OSError:
        pass
    os.close(master)
    return code, seen.decode(errors="replace")


def test_gc_apply_asks_on_a_terminal_and_collects_nothing_on_no(demo):
    before = AgentStore.open(demo, readonly=True)
    reclaimable_steps = before.counts()["steps"]
    before.close()
    code, shown = _on_a_terminal(["gc", str(demo), "--apply"], b"n\n")
    assert code == 1
    assert "Collect 10 tasks" in shown and "nothing changed" in shown
    with AgentStore.open(demo, readonly=True) as store:
        assert store.counts()["steps"] == reclaimable_steps


def test_gc_apply_without_a_terminal_runs_as_asked(demo, capsys):
    assert main(["gc", str(demo), "--apply", "--json"]) == 0  # pytest's stdin is not a terminal
    assert json.loads(capsys.readouterr().out)["tasks"] == 10


@pytest.mark.parametrize("verb", [["gc"], ["stats"], ["vacuum"]])
def test_a_memtui_only_verb_on_claude_codes_store_says_what_it_cannot_do(tmp_path, capsys, monkeypatch, verb):
    workspace, env = agent_homes(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main([*verb, env["CLAUDE_CONFIG_DIR"]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Claude Code store" in err and "can't" in err and "memtui's own store" in err


def test_curate_on_memtuis_store_says_it_keeps_no_memory_items(demo, capsys):
    assert main(["curate", str(demo / ".agent" / "agent.db"), "--fact", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memtui: the memtui store at") and "can't delete memory items" in err


def test_log_lists_sessions_tasks_and_the_ids_rollback_takes(demo, capsys):
    assert main(["log", str(demo), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    first = doc["sessions"][0]
    assert set(first) == {"id", "title", "status", "tasks"}
    assert set(first["tasks"][0]) == {"id", "title", "status", "steps", "checkpoints"}
    with AgentStore.open(demo, readonly=True) as store:
        assert [s["id"] for s in doc["sessions"] if s["id"] is not None] == [s.id for s in store.sessions()]
        assert sum(len(s["tasks"]) for s in doc["sessions"]) == store.counts()["tasks"]
    assert main(["log", str(demo)]) == 0
    assert "task 2  failed" in capsys.readouterr().out


def test_log_of_a_task_lists_steps_with_their_checkpoints(demo, capsys):
    assert main(["log", str(demo), "--task", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["task"]["title"] == "Implement path parameters"
    assert set(doc["steps"][0]) == {"id", "seq", "tool", "status", "checkpoint"}
    assert [s["seq"] for s in doc["steps"]] == list(range(1, len(doc["steps"]) + 1))
    assert any(s["checkpoint"] is not None for s in doc["steps"])


def test_show_a_checkpoint_names_its_entries_and_diffs_them(demo, capsys):
    assert main(["show", str(demo), "--checkpoint", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["checkpoint"]) == {"id", "task", "step", "label"}
    [entry] = doc["entries"]
    assert set(entry) == {"id", "path", "action", "before_size", "after_size"}
    assert entry["path"] == "src/tinyhttp/router.py" and entry["action"] == "modify"
    assert main(["show", str(demo), "--checkpoint", "2", "--diff", "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["entries"][0]["diff"]
    assert diff.startswith("--- a/src/tinyhttp/router.py\n+++ b/src/tinyhttp/router.py\n@@ ")
    # The entry id shown is the one rollback takes.
    assert main(["rollback", str(demo), "--entry", str(entry["id"]), "--dry-run", "--json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["files"][0]["path"] == "src/tinyhttp/router.py"


def test_show_an_unknown_id_is_one_line(demo, capsys):
    assert main(["show", str(demo), "--task", "999"]) == 2
    assert capsys.readouterr().err == "memtui: no task 999\n"


def test_log_and_show_read_claude_code_transcripts(tmp_path, capsys, monkeypatch):
    workspace, env = agent_homes(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["log", str(workspace), "--json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["sessions"]
    assert len(sessions) == 2
    task = next(t for s in sessions for t in s["tasks"] if t["checkpoints"])
    assert main(["log", str(workspace), "--task", task["id"], "--json"]) == 0
    step = next(s for s in json.loads(capsys.readouterr().out)["steps"] if s["checkpoint"])
    assert main(["show", str(workspace), "--checkpoint", step["checkpoint"], "--diff"]) == 0
    assert "entry " in capsys.readouterr().out


@pytest.mark.parametrize("mode", ["--delete", "--archive"])
def test_cleanup_asks_on_a_terminal_and_changes_nothing_on_no(tmp_path, mode):
    from tests.unit.cleanup_homes import build_claude_home, snapshot

    home = tmp_path / "claude"
    build_claude_home(home)
    before = snapshot(home)
    code, shown = _on_a_terminal(["cleanup", str(home), mode, "--keep-last", "1"], b"n\n")
    assert code == 1 and "nothing changed" in shown
    assert ("for good" if mode == "--delete" else "Archive") in shown and "[y/N]" in shown
    assert snapshot(home) == before


def test_cleanup_yes_on_a_terminal_does_not_ask(tmp_path):
    from tests.unit.cleanup_homes import build_claude_home, snapshot

    home = tmp_path / "claude"
    build_claude_home(home)
    before = snapshot(home)
    code, shown = _on_a_terminal(["cleanup", str(home), "--delete", "--yes", "--keep-last", "1"], b"")
    assert code == 0 and "[y/N]" not in shown
    assert len(snapshot(home)) < len(before)


def test_cleanup_of_a_folder_that_is_no_agent_home_is_an_error_before_any_question(tmp_path):
    (tmp_path / "notes").mkdir()
    code, shown = _on_a_terminal(["cleanup", str(tmp_path / "notes"), "--delete"], b"y\n")
    assert code == 2 and "[y/N]" not in shown and "neither a Claude Code home" in shown


@pytest.mark.parametrize("scale", [None, 40])
def test_the_demo_lies_in_the_past_of_the_day_it_is_built(tmp_path, scale):
    """Built on a day before the fixed story date, the newest session is not shown 'in two days'."""
    from datetime import datetime, timezone

    built = datetime(2025, 3, 4, 8, 30, tzinfo=timezone.utc)
    root = build_demo(tmp_path / "demo", seed=1, scale=scale, before=built)
    with AgentStore.open(root, readonly=True) as store:
        newest = max(max(s.updated_at, s.created_at) for s in store.sessions())
        steps = store.query("SELECT MAX(created_at), MIN(created_at) FROM step")[0]
    assert newest.timestamp() < built.timestamp() and steps[0] < built.timestamp()
    assert built.timestamp() - steps[1] < 10 * 86400  # recent work, not a year ago
    # the dates the memory documents mention (decisions, history) moved with the story
    import re

    mentioned = {d for path in root.rglob("*") if path.is_file() and path.suffix in (".md", ".jsonl")
                 for d in re.findall(r"\b20\d\d-\d\d-\d\d\b", path.read_text(encoding="utf-8"))}
    assert mentioned and max(mentioned) < built.strftime("%Y-%m-%d"), sorted(mentioned)


def test_the_demo_keeps_its_fixed_dates_once_they_are_past(tmp_path):
    from memtui.core.demo import DEMO_START

    root = build_demo(tmp_path / "demo", seed=1)  # today is after the story: the screenshots' dates
    with AgentStore.open(root, readonly=True) as store:
        assert min(s.created_at for s in store.sessions()).date() == DEMO_START.date()


@pytest.mark.parametrize("argv, says", [
    (["search", "{demo}", " "], "search needs words"),
    (["search", "{demo}", "timeout", "--limit", "0"], "--limit must be at least 1"),
    (["search", "{demo}", "timeout", "--limit", "-3"], "--limit must be at least 1"),
    (["decisions", "{demo}", "--add", ""], "--add needs a title"),
    (["vacuum", "{demo}", "--incremental", "-5"], "not a number of pages"),
    (["vacuum", "{demo}", "--incremental", "0"], "not a number of pages"),
    (["lint", "{plain}"], "is not a workspace"),
    (["memory", "{plain}"], "is not a workspace"),
    (["decisions", "{plain}"], "is not a workspace"),
    (["decisions", "{demo}", "--file", "NOTES/decisions.md"], "NOTES/decisions.md is not a file in"),
])
def test_bad_input_is_one_line_and_exit_2_not_a_silent_default(demo, tmp_path, capsys, argv, says):
    plain = tmp_path / "just-a-folder"
    plain.mkdir()
    (plain / "notes.txt").write_text("not memory\n")
    before = (demo / ".agent/init.d/04-decision-log.md").read_bytes()
    try:
        code = main([a.format(demo=demo, plain=plain) for a in argv])
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert says in captured.err and captured.err.strip().count("\n") == 0 and captured.out == ""
    assert (demo / ".agent/init.d/04-decision-log.md").read_bytes() == before


def test_decisions_of_a_workspace_without_a_log_says_there_is_none(tmp_path, capsys):
    (tmp_path / "MEMORY.md").write_text("# Memory\n- the quokka lives here\n")
    assert main(["decisions", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"no decision log in {tmp_path.resolve()}\n" and captured.err == ""


def test_vacuum_incremental_without_pages_returns_all(demo, capsys):
    assert main(["vacuum", str(demo), "--incremental", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "incremental"


def test_counts_read_as_english_one_step_not_1_steps(tmp_path, capsys):
    from memtui.core.display import counted

    assert (counted(1, "step"), counted(0, "checkpoint"), counted(1200, "step")) == ("1 step", "0 checkpoints",
                                                                                   "1,200 steps")
    home = shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "claude_home", tmp_path / "claude")
    assert main(["log", str(home)]) == 0
    out = capsys.readouterr().out
    assert "Tidy my notes  (1 step, 0 checkpoints)" in out and "1 steps" not in out
