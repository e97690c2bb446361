"""kill -9 of `memtui cleanup --archive` on a Gemini CLI home (the real CLI's chats, two of them
old) after a directory fsync of the archive's journal (a chat's tar placed, its manifest not yet
written; a chat removed): every chat is at its path byte-exact or in a verified archive, the
re-run finishes, restore puts the home back exactly as it was, and no temp file stays behind.
Here one point of each kind; after every one of them: tests/reliability/test_home_write_kill.py."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from cleanup_homes import snapshot
from home_kill import archived, in_place_or_archived, run_child
from kill_points import stray_temps

from memtui.core.cleanup import restore_session
from memtui.core.cleanup.archive_read import list_archived

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
CHATS = sorted(LIVE.glob("gemini-cli-*/*/home/.gemini/tmp/*/chats/session-*"))
pytestmark = pytest.mark.skipif(len(CHATS) < 2, reason="no Gemini CLI live fixtures")

# cleanup --archive of the home, SIGKILLed just after the N-th directory fsync (0: only counted).
ARCHIVE_CHILD = r"""
import os, signal, sys
import memtui.core.cleanup.apply as apply
import memtui.core.cleanup.archive as archive
from memtui.cli import main
home, folder, kill_at, seen = sys.argv[1], sys.argv[2], int(sys.argv[3]), [0]
real = archive.fsync_dir
def counted(path):
    real(path)
    seen[0] += 1
    if kill_at == 0:  # counting: which step of the journal this is (the function that fsyncs)
        print("step", seen[0], sys._getframe(1).f_code.co_name, flush=True)
    if seen[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
archive.fsync_dir = apply.fsync_dir = counted
code = main(["cleanup", home, "--agent", "gemini-cli", "--archive", "--yes", "--archive-dir", folder,
             "--keep-days", "0", "--keep-last", "0"])
print("done", seen[0], code, flush=True)
"""


def gemini_home(home: Path) -> dict:
    """Two old chats of the live fixtures, in one project folder of a Gemini home."""
    chats = home / "tmp" / "repo" / "chats"
    chats.mkdir(parents=True)
    (home / "tmp" / "repo" / ".project_root").write_text("/nowhere/repo")
    (home / "projects.json").write_text('{"projects": {"/nowhere/repo": "repo"}}')
    old = time.time() - 90 * 86400
    for chat in CHATS[:2]:
        shutil.copy2(chat, chats / chat.name)
        os.utime(chats / chat.name, (old, old))
    return snapshot(home)


def archive_in_child(home: Path, folder: Path, state: Path, kill_at: int) -> tuple[bool, str]:
    return run_child([sys.executable, "-c", ARCHIVE_CHILD, str(home), str(folder), str(kill_at)], state)


def done(out: str) -> list[str]:
    """The child's last words ("done", fsyncs seen, exit code), or [] when it died first."""
    return next((line.split() for line in out.splitlines() if line.startswith("done ")), [])


def steps_of_a_run(tmp_path: Path) -> dict[int, str]:
    """Archive the home once, not killed: {point: its kind (the function that fsyncs)}."""
    home, folder = tmp_path / "count" / ".gemini", tmp_path / "count" / "archive"
    gemini_home(home)
    killed, out = archive_in_child(home, folder, tmp_path / "count", 0)
    assert not killed and done(out)[2:] == ["0"], out
    steps = {int(words[1]): words[2] for words in map(str.split, out.splitlines()) if words[:1] == ["step"]}
    assert len(steps) == int(done(out)[1]) >= 4 and len(list_archived(folder, home=home)) == 2
    assert set(steps.values()) == {"archive_unit", "finish_removal"}, steps  # tar placed, chat removed
    return steps


def kill_trial(tmp_path: Path, kill_at: int) -> None:
    """Kill the archive just after its `kill_at`-th directory fsync; check; re-run; restore; check."""
    trial = tmp_path / f"k{kill_at}"
    home, folder = trial / ".gemini", trial / "archive"
    before = gemini_home(home)
    killed, out = archive_in_child(home, folder, trial, kill_at)
    assert killed and not done(out), out
    assert in_place_or_archived(before, snapshot(home), archived(home, folder)) == [], (kill_at, out)
    again, out = archive_in_child(home, folder, trial, 0)  # the re-run finishes
    assert not again and done(out)[2:] == ["0"], out
    assert not list(home.glob("tmp/*/chats/session-*"))
    for session in sorted({m.id for m in list_archived(folder, home=home)}):
        restore_session(session, folder)
    now = snapshot(home)
    assert {p: m for p, m in now.items() if m != ("dir",)} == {p: m for p, m in before.items() if m != ("dir",)}
    assert stray_temps(home, folder) == []


def test_kill_9_at_each_kind_of_step_of_archiving_a_gemini_home(tmp_path):
    """One point of each kind, the one nearest the middle of the run (with two chats: the first
    chat removed, the second one's tar placed): a chat archived and one not, an archive without
    its manifest."""
    steps = steps_of_a_run(tmp_path)
    middle = (len(steps) + 1) / 2
    for kind in sorted(set(steps.values())):
        kill_trial(tmp_path, min((n for n, k in steps.items() if k == kind), key=lambda n: abs(n - middle)))
