"""What a developer meeting memtui for the first time met in the CLI: a search that ignored the
agent.db it was given, or read "no matches" for a folder that is no workspace; a pin of a
session that does not exist."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from memtui.cli import main
from memtui.core.demo import build_demo

from real_support import claude_results_holding, real_home, user_home
from sources_support import copy_fixture


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("first_use") / "demo", seed=1)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_reads_an_agent_db_given_outside_its_workspace(demo, tmp_path, capsys):
    moved = tmp_path / "elsewhere" / "copy.db"
    moved.parent.mkdir()
    shutil.copyfile(demo / ".agent" / "agent.db", moved)
    code, out, _ = _run(capsys, "search", str(demo), "router", "--kind", "step", "--json")
    expected = json.loads(out)
    assert code == 0 and expected
    code, out, err = _run(capsys, "search", str(moved), "router", "--kind", "step", "--json")
    assert code == 0, err
    assert json.loads(out) == expected


def test_search_of_a_claude_code_home_searches_its_sessions(tmp_path, capsys):
    """(It used to say it can't: most users point memtui at ~/.claude.) Counted against the
    raw transcripts (real_support.claude_results_holding)."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, out, err = _run(capsys, "search", str(home), "elixirforum")
    assert code == 0 and err == ""
    expected = claude_results_holding(home, "elixirforum")
    assert expected and len(out.splitlines()) == expected and all(" step " in line for line in out.splitlines())


def test_search_of_a_folder_that_is_no_workspace_is_an_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, err = _run(capsys, "search", str(tmp_path / "empty"), "anything")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not a workspace" in err


def test_search_of_a_folder_with_memory_documents_only_still_searches_them(tmp_path, capsys):
    (tmp_path / "MEMORY.md").write_text("# Memory\n- the quokka lives here\n")
    code, out, err = _run(capsys, "search", str(tmp_path), "quokka")
    assert code == 0, err
    assert "MEMORY.md:2" in out


def _pins(tmp_path) -> dict:
    from memtui.core.cleanup import load_pins

    return load_pins()


def test_pinning_a_session_the_home_does_not_have_is_refused(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, out, err = _run(capsys, "pin", str(home), "no-such-session")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no-such-session" in err and "memtui log" in err
    assert _pins(tmp_path) == {}


def test_the_short_id_cleanup_prints_pins_the_whole_session(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    for path in home.rglob("*"):  # copied just now: as old as the records, not live
        os.utime(path, (1_770_000_000, 1_770_000_000))
    full = "55604662-cf2a-4331-851a-ec234028f8ca"
    code, out, err = _run(capsys, "cleanup", str(home), "--dry-run", "--keep-last", "0", "--keep-days", "0")
    assert code == 0, err
    assert full[:13] in out  # the id as cleanup lists it
    code, out, err = _run(capsys, "pin", str(home), full[:13], "--json")
    assert code == 0, err
    assert json.loads(out)["session"] == full
    assert _pins(tmp_path) == {"claude-code": {full}}
    code, out, err = _run(capsys, "cleanup", str(home), "--dry-run", "--keep-last", "0", "--keep-days", "0", "--json")
    [row] = [s for s in json.loads(out)["sessions"] if s["id"] == full]
    assert row["action"] == "keep" and "pinned" in row["reason"]
    code, out, err = _run(capsys, "pin", str(home), full[:8], "--unpin")
    assert code == 0, err
    assert _pins(tmp_path) == {}


def test_a_prefix_naming_two_sessions_is_refused(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    project = home / "projects" / "-home-marco-projects-spotter"
    shutil.copyfile(project / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl",
                    project / "55604662-0000-4331-851a-ec234028f8ca.jsonl")
    code, out, err = _run(capsys, "pin", str(home), "55604662")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "starts 2 claude-code sessions" in err and "55604662-cf2a-4331-851a-ec234028f8ca" in err
    code, out, err = _run(capsys, "pin", str(home), "")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert _pins(tmp_path) == {}


def test_cleanup_names_a_session_begun_with_a_slash_command_by_that_command(tmp_path, capsys):
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, out, err = _run(capsys, "cleanup", str(home), "--dry-run", "--json")
    assert code == 0, err
    titles = {s["id"]: s["title"] for s in json.loads(out)["sessions"]}
    # its first prompt: <command-name>/handgemacht:create-beads</command-name><command-args>websearch …
    assert titles["491e126e-1e71-469c-ade2-fcc8af567c74"].startswith("/handgemacht:create-beads websearch to learn")
    code, out, err = _run(capsys, "log", str(home))
    assert "session 491e126e-1e71-469c-ade2-fcc8af567c74  unknown  /handgemacht:create-beads websearch" in out


def test_counts_in_summaries_agree_in_number(tmp_path, capsys):
    home = real_home("claude-2.1.38-orphan-subagents", tmp_path)
    for path in home.rglob("*"):
        os.utime(path, (1_770_000_000, 1_770_000_000))
    code, out, err = _run(capsys, "cleanup", str(home), "--dry-run")
    assert code == 0, err
    assert "0 of 0 sessions and 1 orphan would go" in out


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_counts_one_step_as_one_step(tmp_path, capsys, fmt):
    store = copy_fixture("jsonl_store", tmp_path / "jsonl")
    code, out, err = _run(capsys, "export", str(store), "--session", "cli:1717000000", "--format", fmt)
    assert code == 0, err
    assert "(completed, 1 step)" in out and "1 steps" not in out


def test_show_never_prints_none_for_a_missing_step_or_session(tmp_path, capsys):
    root = build_demo(tmp_path / "demo", seed=1)
    assert main(["rollback", str(root), "--entry", "4", "--force", "--yes"]) == 0  # records a rollback checkpoint
    capsys.readouterr()
    code, out, err = _run(capsys, "show", str(root), "--task", "3")
    assert code == 0, err
    assert "None" not in out and "1 files" not in out
    assert "checkpoint 4  step 15  1 file\n" in out
    rollback_line = next(line for line in out.splitlines() if "(rollback)" in line)
    assert "no step" in rollback_line
    code, out, err = _run(capsys, "show", str(root), "--task", "14")  # an orphan: its session was deleted
    assert "None" not in out and "session deleted" in out
    code, out, err = _run(capsys, "show", str(root), "--checkpoint", rollback_line.split()[1])
    assert code == 0 and "None" not in out and "no step" in out


def test_stats_never_rounds_a_small_nonzero_share_to_nothing(tmp_path, capsys):
    from memtui.core.display import percent
    from memtui.core.store import AgentStore

    assert [percent(x) for x in (0, 0.628, 0.001, 0.00013, 0.0000004)] == ["0.0%", "62.8%", "0.1%", "0.013%", "<0.0001%"]
    with AgentStore.open(tmp_path) as store:
        session = store.start_session("big and repetitive")
        task = store.start_task(session, "write a large file")
        step = store.record_step(task, "write_file", {"path": "big.txt"}, {"ok": True})
        store.record_checkpoint(task, step, {"big.txt": (b"", b"abcdefgh" * 2_000_000)})
    code, out, err = _run(capsys, "stats", str(tmp_path))
    assert code == 0, err
    stored = next(line for line in out.splitlines() if "stored (" in line)
    assert "(0.0%)" not in stored and "%)" in stored, stored


@pytest.mark.parametrize("date", ["2026-13-45", "yesterday", "2026-2-3"])
def test_a_decision_with_an_impossible_date_is_refused(tmp_path, capsys, date):
    root = build_demo(tmp_path / "demo", seed=1)
    log = root / ".agent" / "init.d" / "04-decision-log.md"
    before = log.read_bytes()
    code, out, err = _run(capsys, "decisions", str(root), "--add", "Use zstd", "--why", "smaller", "--date", date)
    assert code == 2 and err.count("\n") == 1 and "YYYY-MM-DD" in err, err
    assert log.read_bytes() == before
    code, out, err = _run(capsys, "decisions", str(root), "--add", "Use zstd", "--why", "smaller", "--date", "2026-02-03")
    assert code == 0 and "2026-02-03 Use zstd" in out


def test_a_stale_progress_file_written_the_same_minute_shows_seconds(tmp_path):
    from datetime import datetime, timezone

    from memtui.core.memory.discover import discover_documents
    from memtui.core.memory.lint import lint_workspace

    (tmp_path / ".agent" / "plan").mkdir(parents=True)
    progress = tmp_path / ".agent" / "plan" / "PROGRESS.md"
    progress.write_text("# Progress\n")
    os.utime(progress, (datetime(2026, 11, 30, 23, 59, 5, tzinfo=timezone.utc).timestamp(),) * 2)
    checkpoint = datetime(2026, 11, 30, 23, 59, 40, tzinfo=timezone.utc)
    [finding] = [f for f in lint_workspace(tmp_path, documents=discover_documents(tmp_path), newest_checkpoint_at=checkpoint)
                 if f.rule == "possibly-stale"]
    assert "last written 2026-11-30 23:59:05 UTC, before the newest checkpoint (2026-11-30 23:59:40 UTC)" in finding.message


def test_demo_into_a_link_to_an_empty_folder_fills_the_folder_it_names(tmp_path, capsys):
    """The demo is built beside the folder and renamed into place: given a link, the folder it
    names gets the demo (it built everything, then failed 'Not a directory' renaming over the
    link, and left nothing in place)."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "here").symlink_to(tmp_path / "empty", target_is_directory=True)
    code, _out, err = _run(capsys, "demo", str(tmp_path / "here"), "--no-open")
    assert (code, err) == (0, "")
    assert (tmp_path / "here").is_symlink()
    assert (tmp_path / "empty" / ".agent" / "agent.db").is_file() and (tmp_path / "empty" / "MEMORY.md").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "here"]


def test_a_negative_demo_scale_is_refused_before_anything_is_written(tmp_path, capsys):
    code, out, err = _run(capsys, "demo", str(tmp_path / "demo"), "--scale", "-5", "--no-open")
    assert code == 2 and err.count("\n") == 1 and "--scale" in err
    assert not (tmp_path / "demo").exists()


def test_curate_on_a_jsonl_store_does_not_send_the_user_to_a_jsonl_store(tmp_path, capsys):
    store = copy_fixture("jsonl_store", tmp_path / "jsonl")
    code, out, err = _run(capsys, "curate", str(store), "--fact", "1")
    assert code == 2 and err.count("\n") == 1
    assert "JSONL sessions store" in err and "JSONL session stores" not in err and "RA.Aid" in err, err


def test_stats_refuses_another_programs_database_as_every_other_verb_does(tmp_path, capsys):
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (a)")
    before = other.read_bytes()
    for verb in (["stats"], ["stats", "--json"], ["log"], ["gc"]):
        code, out, err = _run(capsys, verb[0], str(other), *verb[1:])
        assert code == 2 and out == "" and err.count("\n") == 1, (verb, out, err)
        assert "not a memtui store" in err, (verb, err)
    assert other.read_bytes() == before


def test_sources_of_a_file_that_is_no_store_is_an_error_as_the_readme_says(tmp_path, capsys):
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (a)")
    code, out, err = _run(capsys, "sources", str(other), "--json")
    assert code == 2 and out == "" and err.count("\n") == 1 and "not a memtui store" in err
    broken = tmp_path / "ws" / ".agent"
    broken.mkdir(parents=True)
    (broken / "agent.db").write_bytes(b"garbage" * 100)
    code, out, err = _run(capsys, "sources", str(tmp_path / "ws"), "--json")  # a folder: listed with its problem
    assert code == 0 and json.loads(out)["sources"][0]["problems"]


@pytest.mark.parametrize("home_name", ["claude-2.1.38-spotter-small", "codex-0.66.0-agtrace"])
def test_decisions_add_never_writes_into_an_agent_home(tmp_path, capsys, home_name):
    home = real_home(home_name, tmp_path)
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    code, out, err = _run(capsys, "decisions", str(home), "--add", "Use zstd", "--why", "smaller")
    assert code == 2 and err.count("\n") == 1 and "home" in err, err
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before


def test_resume_names_both_what_is_missing_the_binary_and_the_folder(tmp_path):
    """A published transcript from another machine: no `claude` here, and its recorded folder
    (/home/marco/projects/spotter) does not exist either — the copied command would fail twice."""
    from memtui.core.resume import plan_resume
    from memtui.core.discovery import discover

    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    (tmp_path / "empty").mkdir()
    [entry] = [s for s in discover(home) if s.kind == "claude-code"]
    try:
        plan = plan_resume(entry.open(), "55604662-cf2a-4331-851a-ec234028f8ca", path=str(tmp_path / "empty"))
    finally:
        entry.close()
    assert "claude is not on PATH" in plan.problem
    assert "/home/marco/projects/spotter is not on this machine" in plan.problem


def test_a_diff_of_an_absolute_path_names_it_as_git_does():
    from memtui.core.diff.rows import unified_diff

    diff = unified_diff(b"a\n", b"b\n", "/home/USER/project/README.md")
    assert diff.startswith("--- a/home/USER/project/README.md\n+++ b/home/USER/project/README.md\n"), diff
    assert unified_diff(b"a\n", b"b\n", "src/x.py").startswith("--- a/src/x.py\n+++ b/src/x.py\n")


def test_a_query_of_punctuation_beginning_with_a_dash_says_how_to_give_it(demo, capsys):
    """'->' is read by argparse as an unknown option; the one-line error says to put it after --,
    and after -- it is searched (the demo's steps hold Python arrows)."""
    with pytest.raises(SystemExit) as refused:
        main(["search", str(demo), "->"])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and "'->' was read as an option" in err and "after --" in err
    code, out, err = _run(capsys, "search", str(demo), "--json", "--", "->")
    hits = json.loads(out)
    assert code == 0 and hits and all("->" in json.dumps(h, ensure_ascii=False) for h in hits), err


def test_the_home_folder_lists_every_session_of_the_agents_kept_there(tmp_path, monkeypatch, capsys):
    home = user_home(tmp_path, monkeypatch)
    monkeypatch.chdir(home)  # `cd ~ && memtui sources`: no session worked in ~ itself
    code, out, err = _run(capsys, "sources", "--json")
    assert code == 0, err
    found = {s["kind"]: s for s in json.loads(out)["sources"]}
    # Every session the tools wrote there, counted from their files: a transcript per session
    # in each project folder (sub-agents' sit in the session's own folder), a rollout per session.
    claude_sessions = len(list((home / ".claude" / "projects").glob("*/*.jsonl")))
    codex_sessions = len(list((home / ".codex" / "sessions").rglob("rollout-*.jsonl")))
    assert claude_sessions > 1 and codex_sessions > 0
    assert found["claude-code"]["path"] == str(home / ".claude")
    assert found["claude-code"]["counts"]["sessions"] == claude_sessions
    assert found["codex"]["path"] == str(home / ".codex")
    assert found["codex"]["counts"]["sessions"] == codex_sessions
    code, out, _ = _run(capsys, "log", str(home))
    assert code == 0 and "Implement spotter-gqc" in out


def test_restore_takes_the_id_as_cleanup_prints_it(tmp_path, capsys):
    """`memtui cleanup` prints each session's id shortened; that id restores the session."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    old = 1_770_000_000  # 2026-02-02: inactive, as the transcripts' own times say
    transcripts = sorted(home.rglob("*.jsonl"))
    before = {p: p.read_bytes() for p in transcripts}
    for p in transcripts:
        os.utime(p, (old, old))
    short = "d6e0bada-1959"
    listing = _run(capsys, "cleanup", str(home), "--dry-run", "--keep-last", "0", "--keep-days", "0")[1]
    assert f" {short} " in listing and "d6e0bada-1959-4eec" not in listing, listing  # as cleanup names it
    code, out, err = _run(capsys, "cleanup", str(home), "--archive", "--keep-last", "0", "--keep-days", "0", "--yes")
    assert code == 0, err
    back = home / "projects" / "-home-marco-projects-spotter" / "d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl"
    assert not back.exists()
    code, out, err = _run(capsys, "restore", "--session", short)
    assert code == 0, err
    assert out.startswith("restored d6e0bada-1959-4eec-a9d2-0bfade768d8f (claude-code): 1 file")
    assert back.read_bytes() == before[back]
    code, _, err = _run(capsys, "restore", "--session", "d6e0bada")  # restored already: no longer archived
    assert code == 2 and "no archived session d6e0bada" in err


def test_a_claude_code_home_lists_its_rules_and_each_projects_auto_memory(tmp_path, capsys):
    """`memtui memory ~/.claude`: besides CLAUDE.md, the user's rules and the auto memory
    Claude Code keeps per project (projects/<project>/memory/) — searchable, linted."""
    home = real_home("claude-2.1.39-spotter", tmp_path)
    (home / "history.jsonl").write_text("")  # what a used home holds beside projects/
    (home / "CLAUDE.md").write_text("# Mine\n")
    (home / "rules").mkdir()
    (home / "rules" / "style.md").write_text("- British spelling\n")
    memory = home / "projects" / "-home-USER-projects-spotter-worktrees-spotter-gqc" / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# Spotter\n\n- mix test needs the otel collector running\n")
    (memory / "debugging.md").write_text("topic file\n")
    code, out, err = _run(capsys, "memory", str(home), "--json")
    assert code == 0, err
    files = {d["file"]: d["kind"] for d in json.loads(out)}
    rel = "projects/-home-USER-projects-spotter-worktrees-spotter-gqc/memory"
    assert files == {"CLAUDE.md": "instructions", "rules/style.md": "instructions",
                     f"{rel}/MEMORY.md": "memory", f"{rel}/debugging.md": "memory"}
    code, out, err = _run(capsys, "search", str(home), "collector")
    assert code == 0 and f"{rel}/MEMORY.md:3:" in out, (out, err)
    rows = [line for line in _run(capsys, "memory", str(home))[1].splitlines() if line.startswith("  ")]
    assert len({line.index(" B ") for line in rows}) == 1, rows  # sizes in one column, long paths too
    assert any(line.startswith("  rules/style.md") and " 1 line  " in line for line in rows), rows


def test_a_folder_named_projects_in_a_workspace_is_not_taken_for_auto_memory(tmp_path, capsys):
    workspace = tmp_path / "monorepo"
    notes = workspace / "projects" / "api" / "memory"
    notes.mkdir(parents=True)
    (notes / "notes.md").write_text("not an agent's memory\n")
    (workspace / "MEMORY.md").write_text("# Memory\n")
    code, out, _ = _run(capsys, "memory", str(workspace), "--json")
    assert code == 0 and [d["file"] for d in json.loads(out)] == ["MEMORY.md"]


@pytest.mark.parametrize("verb", [["rollback", "--checkpoint", "x"], ["open"]])
def test_a_root_that_is_no_folder_is_named(verb, tmp_path, capsys, monkeypatch):
    """`--root` mistyped: one line naming it, not 'open this store with --root DIR'."""
    home = real_home("claude-2.0.28-agtrace", tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    code, out, err = _run(capsys, verb[0], str(home), *verb[1:], "--root", str(tmp_path / "no-such-copy"))
    assert code == 2 and out == ""
    assert err.strip() == f"memtui: --root {tmp_path / 'no-such-copy'}: no such folder", err


def test_log_and_export_take_a_sessions_id_start_as_pin_and_restore_do(tmp_path, capsys):
    """The id start `memtui cleanup` prints ('258c7280-ae70') names the session for log and
    export too; a start two sessions share is refused, naming them."""
    home = real_home("claude-2.1.39-spotter", tmp_path)
    full = "258c7280-ae70-4798-800f-63464d01a85d"
    code, out, err = _run(capsys, "log", str(home), "--session", "258c7280-ae70", "--json")
    assert code == 0, err
    assert [s["id"] for s in json.loads(out)["sessions"]] == [full]
    code, out, err = _run(capsys, "export", str(home), "--session", "258c7280", "--format", "json", "-o",
                          str(tmp_path / "s.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "s.json").read_text())["scope"] == {"session": full}
    both = real_home("codex-0.104-localpush", tmp_path)  # 019c8a59-… and 019c8a4c-…
    code, _, err = _run(capsys, "log", str(both), "--session", "019c8a")
    assert code == 2 and "'019c8a' starts 2 sessions" in err, err


def test_cleanup_archive_with_nothing_to_go_says_so(tmp_path, capsys):
    """`--archive` when every session is kept (here: just written, so live) said 'deleted 0
    sessions and the files of 0 gone one(s)'."""
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    code, out, err = _run(capsys, "cleanup", str(home), "--archive", "--yes")
    assert code == 0, err
    assert out.strip() == f"nothing to archive: every session of {home} is kept (--dry-run says why)"
    for p in home.rglob("*.jsonl"):
        os.utime(p, (1_770_000_000, 1_770_000_000))
    sessions = len(list(home.glob("projects/*/*.jsonl")))  # a transcript per session
    assert sessions > 2
    code, out, err = _run(capsys, "cleanup", str(home), "--archive", "--keep-last", "1", "--keep-days", "0", "--yes")
    assert code == 0, err
    assert out.startswith(f"archived {sessions - 1} sessions: "), out  # all but the last one kept


def test_the_home_folder_lists_the_agents_user_level_memory(tmp_path, monkeypatch, capsys):
    """`cd ~ && memtui memory`: ~/.claude's CLAUDE.md and each project's auto memory, and
    ~/.codex/AGENTS.md — the user-level memory the agents kept there."""
    home = user_home(tmp_path, monkeypatch)
    (home / ".claude" / "CLAUDE.md").write_text("# Mine\n")
    memory = home / ".claude" / "projects" / "-home-USER-projects-spotter-worktrees-spotter-gqc" / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("- the otel collector must run for mix test\n")
    (home / ".codex" / "AGENTS.md").write_text("Always run tests.\n")
    monkeypatch.chdir(home)
    code, out, err = _run(capsys, "memory", "--json")
    assert code == 0, err
    assert sorted(d["file"] for d in json.loads(out)) == [
        ".claude/CLAUDE.md", ".claude/projects/-home-USER-projects-spotter-worktrees-spotter-gqc/memory/MEMORY.md",
        ".codex/AGENTS.md"]


@pytest.mark.parametrize("folder", ["projects", "sessions"])
def test_a_project_with_a_projects_or_sessions_folder_is_no_agent_home(folder, tmp_path, capsys):
    """A project that happens to have a `projects/` or `sessions/` folder (no transcripts in it)
    is searched and takes decisions as a project: it was taken for a Claude Code / Codex home,
    and search answered 'no store' while decisions --add refused it."""
    project = tmp_path / "webapp"
    (project / folder).mkdir(parents=True)
    (project / folder / "README.md").write_text("user sessions live here\n")
    (project / "MEMORY.md").write_text("- the quokka cache needs redis\n")
    code, out, err = _run(capsys, "search", str(project), "quokka")
    assert code == 0, err
    assert "MEMORY.md" in out and "quokka" in out
    code, out, err = _run(capsys, "decisions", str(project), "--add", "Use redis", "--chosen", "redis")
    assert code == 0, err
    assert "Use redis" in (project / "DECISIONS.md").read_text()
