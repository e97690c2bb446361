"""kill -9 of `memtui restore` between steps of its journal (each file placed, the tar removed, the
manifest removed): every file of the home is in place byte-exact (with mtime and mode) or still
in a verified archive, the re-run restores the rest and finishes, no temp file stays in the home
or the archive. Here one step; every step with several sessions, plus kills of cleanup of Claude
Code and Codex homes: tests/reliability/test_home_write_kill.py."""

from __future__ import annotations

from cleanup_homes import build_bulky_claude_home, snapshot
from home_kill import archived, in_place_or_archived, restore_in_child
from kill_points import stray_temps

from memtui.cli import main
from memtui.core.cleanup import restore_session
from memtui.core.cleanup.archive_read import list_archived


def restore_kill_trial(dest, kill_at: int, sessions: int = 1) -> tuple[bool, str, int]:
    """Archive a bulky Claude Code home's old sessions, restore them in a child killed after
    fsync number `kill_at` (0: never; -1 the last, -2 the one before); assert the checks;
    (killed, what the child printed, the steps of the whole restore)."""
    home, archive = dest / "home", dest / "archive"
    before = build_bulky_claude_home(home, sessions=sessions, kib=16)
    assert main(["cleanup", str(home), "--agent", "claude-code", "--archive", "--archive-dir", str(archive),
                 "--keep-days", "0", "--keep-last", "0"]) == 0
    steps = journal_steps(archive, home)
    kill_at = steps + 1 + kill_at if kill_at < 0 else kill_at  # -1: the last step
    killed, out = restore_in_child(home, archive, dest, f"fsync:{kill_at}")
    assert in_place_or_archived(before, snapshot(home), archived(home, archive)) == [], out
    for session in sorted({m.id for m in list_archived(archive, home=home)}):  # the re-run finishes
        restore_session(session, archive)
    assert list_archived(archive, home=home) == []
    now = snapshot(home)
    assert {p: m for p, m in now.items() if m != ("dir",)} == {p: m for p, m in before.items() if m != ("dir",)}
    assert stray_temps(home, archive) == []
    return killed, out, steps


def journal_steps(archive, home) -> int:
    """The directory fsyncs a restore of everything archived makes: one per file placed, then
    the tar's removal and the manifest's, per archived unit."""
    return sum(len(m.files) + 2 for m in list_archived(archive, home=home))


def test_kill_9_between_the_last_two_steps_of_a_restore(tmp_path, capsys):
    """Killed after the last unit's tar was removed and before its manifest: the re-run finds
    every file back and finishes (it used to fail 'the archive is missing' for good)."""
    killed, out, _steps = restore_kill_trial(tmp_path / "k", -2)
    assert killed and out.split() == ["ready"], out
