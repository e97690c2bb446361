"""Cleanup of agent homes: plan decisions and reasons, archive → browse → restore byte-exact,
refusals, and nothing written to the home by a dry run or by browsing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess

import pytest

from memtui.cli import main
from memtui.core.cleanup import RestoreConflict, apply_cleanup, iter_files, list_archived, load_pins, plan_cleanup, read_file, restore_session, set_pinned, unpacked_view
from memtui.core.homes import take_inventory
from memtui.core.cleanup.archive import SessionChanged, archive_unit
from memtui.core.cleanup.recover import recover
from tests.unit.cleanup_homes import NOW, build_claude_home, build_codex_home, snapshot


@pytest.fixture
def claude(tmp_path):
    home = tmp_path / "claude"
    ids = build_claude_home(home)
    return home, ids


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    for var, name in (("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(var, str(tmp_path / name))
    return tmp_path


def decisions(plan) -> dict[str, tuple[str, str]]:
    return {s.id: (d.action, d.reason) for s, d in plan.sessions}


def test_plan_keeps_live_open_pinned_recent_and_newest_with_reasons(claude, tmp_path):
    home, ids = claude
    set_pinned("claude-code", ids["pinned"], True, tmp_path / "state")
    plan = plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, pins=load_pins(tmp_path / "state"), now=NOW)
    got = decisions(plan)
    assert got[ids["live"]][0] == "keep" and got[ids["live"]][1].startswith("live: a file was modified 2 min ago")
    assert got[ids["open"]] == ("keep", "live: its last turn has not ended (last activity 39 days ago)")
    assert got[ids["pinned"]] == ("keep", "pinned")
    assert got[ids["recent"]][0] == "keep" and "within --keep-days 30" in got[ids["recent"]][1]
    # beta has one session: it is its project's newest.
    assert got[ids["beta_old"]] == ("keep", "the newest session of /work/beta (--keep-last 1)")
    assert got[ids["old1"]] == ("archive", "inactive for 59 days and not the newest of its project")
    assert got[ids["old2"]][0] == "archive"
    # old1's files: transcript first, then sub-agents, tool results, file-history, todos, env, debug.
    old1 = next(s for s in plan.inventory.sessions if s.id == ids["old1"])
    names = {str(f.path.relative_to(home)) for f in old1.files}
    assert old1.files[0].path.name == f"{ids['old1']}.jsonl"
    assert len(names) == 9 and f"todos/{ids['old1']}-agent-{ids['old1']}.json" in names
    assert f"debug/{ids['old1']}.txt" in names and any(n.startswith("session-env/") for n in names)
    assert old1.bytes == sum(os.path.getsize(home / n) for n in names)
    assert next(s for s in plan.inventory.sessions if s.id == ids["beta_old"]).title == "Beta title"
    orphans = {str(o.path): (d.action, d.reason) for o, d in plan.orphans}
    assert set(orphans) == {str(p) for p in ids["orphans"]}
    assert orphans[str(ids["orphans"][0])] == ("archive", "file-history backups of a session whose transcript is gone; untouched for 90 days")
    assert orphans[str(ids["orphans"][2])][0] == "keep"  # modified 2 days ago


def test_keep_last_counts_every_session_of_the_project(claude):
    home, ids = claude
    plan = plan_cleanup(take_inventory(home), keep_days=0, keep_last=3, now=NOW)
    got = decisions(plan)
    # Newest three of alpha by activity: live (activity = its records, 40 days), recent, open.
    assert got[ids["recent"]][0] == "keep"
    assert got[ids["old2"]][0] == "archive" and got[ids["old1"]][0] == "archive"


def test_archive_removes_files_keeps_them_browsable_and_restores_byte_exact(claude, xdg):
    home, ids = claude
    before = snapshot(home)
    plan = plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW)
    root = xdg / "archive"
    result = apply_cleanup(plan, root, level=3)
    assert set(result.done) >= {ids["old1"], ids["old2"]} and not result.skipped
    old1 = next(s for s in plan.inventory.sessions if s.id == ids["old1"])
    assert all(not f.path.exists() for f in old1.files)
    assert not (home / "file-history" / ids["old1"]).exists() and not (home / "projects/-work-alpha" / ids["old1"]).exists()
    assert (home / "projects/-work-alpha" / "memory" / "MEMORY.md").exists() and (home / "tasks/my-team/1.json").exists()
    # archive_bytes is what the archive folder holds: every tar.zst and manifest written.
    assert result.archive_bytes == sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    # Browsable from the archive: listed with title and project, every file's bytes exact.
    listed = {m.id: m for m in list_archived(root, home=home)}
    assert listed[ids["old1"]].title == "task old1" and listed[ids["old1"]].project == "/work/alpha"
    for entry, data in iter_files(root, listed[ids["old1"]]):
        assert hashlib.sha256(data).hexdigest() == before[entry.path][3]
    transcript = str(home / "projects/-work-alpha" / f"{ids['old1']}.jsonl")
    assert read_file(root, listed[ids["old1"]], transcript).startswith(b'{"type": "user"')
    # Restore: every file back with its bytes, mtime and mode.
    restore_session(ids["old1"], root)
    after = snapshot(home)
    for f in old1.files:
        assert after[str(f.path)] == before[str(f.path)], f.path
    assert not any(p.name.startswith(ids["old1"]) for p in (root / "claude-code").iterdir())
    # The orphans went into their own archive unit and come back the same way.
    ghost = ids["orphans"][0]
    assert not ghost.exists()
    restore_session(ghost.name, root)
    assert snapshot(ghost) == {k: v for k, v in before.items() if k.startswith(str(ghost))}


def test_restore_refuses_to_overwrite_a_changed_file_and_writes_nothing(claude, xdg):
    home, ids = claude
    plan = plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW)
    root = xdg / "archive"
    apply_cleanup(plan, root, level=3)
    backup = home / "file-history" / ids["old1"] / "0123456789abcdef@v1"
    backup.parent.mkdir(parents=True)
    backup.write_text("someone else's content\n")
    with pytest.raises(RestoreConflict) as caught:
        restore_session(ids["old1"], root)
    assert str(backup) in str(caught.value) and caught.value.paths == [str(backup)]
    assert not (home / "projects/-work-alpha" / f"{ids['old1']}.jsonl").exists()
    assert backup.read_text() == "someone else's content\n"
    assert main(["restore", "--session", ids["old1"], "--archive-dir", str(root)]) == 2


def test_a_file_changed_during_archiving_leaves_the_session_whole(claude, xdg):
    home, ids = claude
    inventory = take_inventory(home)
    session = next(s for s in inventory.sessions if s.id == ids["old2"])
    plan = plan_cleanup(inventory, keep_days=30, keep_last=1, now=NOW)
    transcript = session.files[0].path
    with open(transcript, "a") as handle:
        handle.write('{"type": "user"}\n')  # the agent resumed the session after the plan
    result = apply_cleanup(plan, xdg / "archive", level=3)
    assert ids["old2"] in dict(result.skipped) and "in use" in dict(result.skipped)[ids["old2"]]
    assert transcript.exists() and not (xdg / "archive/claude-code" / f"{ids['old2']}.json").exists()
    assert not any(p.name.startswith(ids["old2"]) for p in (xdg / "archive/claude-code").iterdir())


def test_interrupted_removal_is_finished_by_recover(claude, xdg):
    home, ids = claude
    inventory = take_inventory(home)
    plan = plan_cleanup(inventory, keep_days=30, keep_last=1, now=NOW)
    session = next(s for s in inventory.sessions if s.id == ids["old1"])
    from memtui.core.cleanup.manifest import Manifest

    manifest = Manifest("claude-code", str(home), session.id, "session", session.project, session.title, None, None, "t", [])

    class Killed(Exception):
        pass

    def die():
        raise Killed

    with pytest.raises(Killed):
        archive_unit(xdg / "archive", manifest, session.files, session.dirs, home=home, level=3, after_commit=die)
    assert all(f.path.exists() for f in session.files)  # committed, not yet removed
    assert recover(xdg / "archive", home).finished == [session.id]
    assert not any(f.path.exists() for f in session.files)
    assert plan  # the re-planned home no longer lists it
    assert ids["old1"] not in {s.id for s in take_inventory(home).sessions}


def test_codex_threads_with_segments_and_index_left_unchanged(tmp_path, xdg):
    home = tmp_path / "codex"
    ids = build_codex_home(home)
    index = (home / "session_index.jsonl").read_bytes()
    plan = plan_cleanup(take_inventory(home), keep_days=30, keep_last=0, now=NOW)
    got = decisions(plan)
    assert got[ids["old"]][0] == "archive" and got[ids["recent"]][0] == "keep"
    assert got[ids["open"]][0] == "keep" and got[ids["open"]][1].startswith("live: its last turn has not ended")
    old = next(s for s in plan.inventory.sessions if s.id == ids["old"])
    assert len(old.files) == 2 and old.title == "Old thread" and old.project == "/work/alpha"
    apply_cleanup(plan, xdg / "archive", level=3)
    assert not any(f.path.exists() for f in old.files)
    assert (home / "session_index.jsonl").read_bytes() == index
    restore_session(ids["old"], xdg / "archive")
    assert all(f.path.exists() for f in old.files)


def test_cli_dry_run_json_has_the_documented_shape_and_writes_nothing(claude, xdg, capsys):
    home, ids = claude
    before = snapshot(home)
    assert main(["cleanup", str(home), "--dry-run", "--json", "--keep-last", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"agent", "home", "sessions", "orphans", "reclaimable_bytes", "archive_bytes", "done"}
    assert report["done"] is False and report["agent"] == "claude-code"
    row = next(r for r in report["sessions"] if r["id"] == ids["old1"])
    assert set(row) == {"id", "project", "title", "files", "bytes", "last_activity", "action", "reason"}
    assert row["files"] == 9 and row["action"] == "archive"
    assert set(report["orphans"][0]) == {"path", "bytes", "action", "reason"}
    assert report["reclaimable_bytes"] == sum(r["bytes"] for r in report["sessions"] + report["orphans"] if r["action"] != "keep")
    assert snapshot(home) == before
    assert not (xdg / "data").exists()


def test_cli_archive_then_restore_then_delete(claude, xdg, capsys):
    home, ids = claude
    before = snapshot(home)
    assert main(["cleanup", str(home), "--archive", "--json", "--keep-last", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["done"] is True and report["archive_bytes"] > 0
    assert not (home / "projects/-work-alpha" / f"{ids['old2']}.jsonl").exists()
    assert main(["restore", "--session", ids["old2"], "--json"]) == 0
    restored = json.loads(capsys.readouterr().out)
    assert restored["files"] == 1 and "cleanupPeriodDays (30)" in restored["note"]  # 50 days old
    path = str(home / "projects/-work-alpha" / f"{ids['old2']}.jsonl")
    assert snapshot(home)[path] == before[path]
    # without a terminal (pytest's stdin) --delete runs as asked, like gc --apply
    assert main(["cleanup", str(home), "--delete", "--json", "--keep-last", "1"]) == 0
    assert not os.path.exists(path)


def test_browsing_an_archived_session_writes_nothing_to_the_home(claude, xdg):
    from memtui.core.agents.claude_code.source import ClaudeCodeSource

    home, ids = claude
    apply_cleanup(plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW), xdg / "archive", level=3)
    before = snapshot(home)
    manifest = next(m for m in list_archived(xdg / "archive") if m.id == ids["old1"])
    view = unpacked_view(xdg / "archive", manifest, xdg / "cache")
    source = ClaudeCodeSource.from_path(view)
    sessions = source.sessions()
    assert [s.title for s in sessions] == ["task old1"]
    assert source.tasks(sessions[0].id)
    assert snapshot(home) == before
    assert unpacked_view(xdg / "archive", manifest, xdg / "cache") == view  # unpacked once


def test_pin_cli_stores_foreign_pins_in_memtuis_state_folder(claude, xdg, capsys):
    home, ids = claude
    before = snapshot(home)
    assert main(["pin", str(home), ids["old1"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pinned"] is True
    assert load_pins(xdg / "state" / "memtui") == {"claude-code": {ids["old1"]}}
    assert snapshot(home) == before
    main(["cleanup", str(home), "--dry-run", "--json", "--keep-last", "1"])
    row = next(r for r in json.loads(capsys.readouterr().out)["sessions"] if r["id"] == ids["old1"])
    assert (row["action"], row["reason"]) == ("keep", "pinned")


def test_session_changed_error_is_one_line(claude):
    assert str(SessionChanged("x changed")).count("\n") == 0


def test_archived_sessions_are_browsable_through_the_source(claude, xdg, capsys):
    from memtui.core.discovery import discover

    home, ids = claude
    apply_cleanup(plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW), xdg / "data" / "memtui" / "archive", level=3)
    before = snapshot(home)
    assert main(["sources", str(home), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)["sources"][0]["counts"]
    assert counts["archived_sessions"] == 3  # old1, old2, pinned (not pinned here); orphans are not sessions
    source = discover(home)[0].open()
    sessions = {str(s.id): s for s in source.sessions()}
    assert sessions[ids["old1"]].status == "archived" and sessions[ids["old1"]].title == "task old1"
    assert sessions[ids["recent"]].status != "archived"
    tasks = source.tasks(ids["old1"])
    assert tasks[0].title == "task old1" and len(tasks) == 2  # the prompt and its sub-agent
    assert sessions[ids["old1"]].task_count == len(tasks)  # counted at archive time, listed unpacked
    steps = source.steps(tasks[0].id)
    assert steps and steps[-1].result.startswith("Done.")
    assert snapshot(home) == before


def test_inventory_summaries_are_cached_outside_the_home_and_reread_when_a_file_changes(claude, tmp_path):
    home, ids = claude
    cache = tmp_path / "memtui-cache"
    before = snapshot(home)
    first = {s.id: s.title for s in take_inventory(home, cache=cache).sessions}
    assert list(cache.iterdir()) and snapshot(home) == before
    transcript = home / "projects/-work-alpha" / f"{ids['old2']}.jsonl"
    with open(transcript, "a") as handle:
        handle.write(json.dumps({"type": "custom-title", "customTitle": "Renamed", "sessionId": ids["old2"]}) + "\n")
    again = {s.id: s.title for s in take_inventory(home, cache=cache).sessions}
    assert again[ids["old2"]] == "Renamed" and first[ids["old2"]] == "task old2"
    assert {k: v for k, v in again.items() if k != ids["old2"]} == {k: v for k, v in first.items() if k != ids["old2"]}


def test_cancel_stops_between_sessions_and_leaves_the_rest_whole(claude, xdg):
    home, ids = claude
    plan = plan_cleanup(take_inventory(home), keep_days=0, keep_last=0, now=NOW)
    going, _ = plan.going()
    seen = []
    result = apply_cleanup(plan, xdg / "archive", level=3, progress=seen.append,
                           cancel=lambda: bool(seen) and seen[-1].units_done >= 1)
    assert result.cancelled and len(result.done) == 1
    rest = [s for s in going if s.id not in result.done]
    assert rest and all(f.path.exists() for s in rest for f in s.files)
    assert [m.id for m in list_archived(xdg / "archive")] == result.done


def test_hostile_titles_are_shown_literally_in_the_text_report(tmp_path, capsys):
    from tests.unit.cleanup_homes import DAY, _write, claude_transcript, uid

    home = tmp_path / "claude"
    sid = uid("hostile")
    when = NOW - 90 * DAY
    _write(home / "projects" / "-x" / f"{sid}.jsonl", claude_transcript(sid, "/x", when, "\x1b[31mred\u202e evil [bold]x[/]"), when)
    assert main(["cleanup", str(home), "--dry-run", "--keep-last", "0"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "␛[31mred� evil [bold]x[/]" in out


def test_an_archived_session_cannot_be_resumed_until_restored(claude, xdg):
    from memtui.core.cleanup import ArchiveError
    from memtui.core.discovery import discover

    home, ids = claude
    apply_cleanup(plan_cleanup(take_inventory(home), keep_days=30, keep_last=1, now=NOW), xdg / "data" / "memtui" / "archive", level=3)
    source = discover(home)[0].open()
    with pytest.raises(ArchiveError, match="restore it first"):
        source.resume_command(ids["old1"])
    assert source.resume_command(ids["recent"]).argv[-1] == ids["recent"]


def read_only_folder(folder) -> str:
    """Make `folder` refuse new files, even to root (chattr +i); the error a write then meets."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return "Permission denied"
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)]).returncode:
        pytest.skip("running as root without chattr +i: nothing is read-only")
    return "Operation not permitted"


def writable_again(folder) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    folder.chmod(0o755)


@pytest.mark.parametrize("blocked", ["a file where the folder should be", "a read-only folder"])
def test_an_archive_that_cannot_be_written_fails_in_one_line_naming_the_folder(claude, xdg, capsys, blocked):
    """A cron job must see a failed archive: exit 2 and one line on stderr naming the folder;
    in JSON each session that was meant to go keeps its action, with the error; the home is whole."""
    home, ids = claude
    before = snapshot(home)
    if blocked.startswith("a file"):
        (xdg / "blocker").write_text("")
        folder = xdg / "blocker" / "archive"  # cannot be made: a file is in the way
        reason = "Not a directory"
    else:
        folder = xdg / "archive"
        (folder / "claude-code").mkdir(parents=True)
        reason = read_only_folder(folder / "claude-code")
    argv = ["cleanup", str(home), "--archive", "--keep-last", "0", "--keep-days", "0", "--archive-dir", str(folder)]
    try:
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and "nothing to archive" not in err
        assert err.splitlines() == [f"memtui: could not archive 5 sessions and the files of 3 gone sessions: "
                                    f"cannot write to the archive folder {folder}: {reason}"]
        assert main(argv + ["--json"]) == 2
        out, err = capsys.readouterr()
    finally:
        if (folder / "claude-code").exists():
            writable_again(folder / "claude-code")
    report = json.loads(out)
    going = [r for r in report["sessions"] + report["orphans"] if "error" in r]
    assert len(going) == 8 and all(r["action"] == "archive" and str(folder) in r["error"] for r in going)
    assert next(r for r in report["sessions"] if r["id"] == ids["old1"]) in going
    assert len(err.splitlines()) == 1
    assert snapshot(home) == before


def test_archiving_a_projects_last_session_takes_its_empty_folder_and_restore_puts_it_back(claude, xdg):
    home, ids = claude
    beta = home / "projects" / "-work-beta"
    beta.chmod(0o710)
    plan = plan_cleanup(take_inventory(home), keep_days=0, keep_last=0, now=NOW)
    result = apply_cleanup(plan, xdg / "archive", level=3)
    assert ids["beta_old"] in result.done
    assert not beta.exists()  # empty: gone with its only session
    assert (home / "projects" / "-work-alpha" / "memory").is_dir()  # alpha still holds its memory
    assert (home / "projects").is_dir() and (home / "todos").is_dir()  # the home's own folders stay
    restore_session(ids["beta_old"], xdg / "archive")
    assert (beta / f"{ids['beta_old']}.jsonl").is_file()
    assert beta.stat().st_mode & 0o777 == 0o710
