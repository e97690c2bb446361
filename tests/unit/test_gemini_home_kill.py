"""kill -9 of `memtui cleanup --archive` on a Gemini CLI home (the real CLI's chats, two of them
old) after each directory fsync of the archive's journal (tar placed, manifest placed, each chat
removed): every chat is at its path byte-exact or in a verified archive, the re-run finishes,
restore puts the home back exactly as it was, and no temp file stays behind."""

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


def test_kill_9_at_every_step_of_archiving_a_gemini_home(tmp_path):
    home, folder = tmp_path / "count" / ".gemini", tmp_path / "count" / "archive"
    gemini_home(home)
    killed, out = archive_in_child(home, folder, tmp_path / "count", 0)
    assert not killed and done(out)[2:] == ["0"], out
    steps = int(done(out)[1])
    assert steps >= 4 and len(list_archived(folder, home=home)) == 2
    for kill_at in range(1, steps + 1):
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
