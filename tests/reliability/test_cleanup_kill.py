"""kill -9 during `memtui cleanup --archive`, at random instants, ≥ 50 times: never a file
missing from both its original path and a verified archive; the next run finishes the job
and leaves no temp file; restoring everything gives back the home byte for byte.

Slow (about two minutes): run with `pytest tests/reliability/test_cleanup_kill.py`.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from home_kill import archived, in_place_or_archived
from kill_points import child_env, stray_temps
from memtui.core.cleanup.archive_read import list_archived
from memtui.core.cleanup.restore import restore_session
from cleanup_homes import build_bulky_claude_home, snapshot

TRIALS = int(os.environ.get("MEMTUI_KILL_TRIALS", "50"))
ROOT = Path(__file__).resolve().parents[2]


def _cleanup(home: Path, archive: Path, env: dict) -> subprocess.Popen:
    code = ("import sys; from memtui.cli import main; sys.exit(main(['cleanup', sys.argv[1], '--archive', '--keep-days', '0',"
            " '--keep-last', '0', '--archive-dir', sys.argv[2]]))")
    return subprocess.Popen([sys.executable, "-c", code, str(home), str(archive)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def check_invariant(before: dict, home: Path, archive: Path) -> int:
    """Every file of `before` is at its path as it was, or in a committed archive that
    verifies; none appeared. Returns how many are in the archive."""
    kept, now = archived(home, archive), snapshot(home)
    problems = in_place_or_archived(before, now, kept)
    assert problems == [], problems[:5]
    return sum(1 for p in before if p in kept and p not in now)


@pytest.mark.slow
def test_kill_9_at_random_points_never_loses_a_file(tmp_path):
    template = tmp_path / "template"
    before_template = build_bulky_claude_home(template)
    env = child_env(tmp_path)
    # Calibrate: how long an uninterrupted run takes here.
    calib = tmp_path / "calib"
    shutil.copytree(template, calib, symlinks=True)
    start = time.monotonic()
    assert _cleanup(calib, tmp_path / "calib-archive", env).wait(timeout=300) == 0
    duration = time.monotonic() - start
    rng = random.Random(2026)
    phases = {"before any archive": 0, "mid-way": 0, "after all": 0}
    for trial in range(TRIALS):
        home, archive = tmp_path / f"home{trial}", tmp_path / f"archive{trial}"
        shutil.copytree(template, home, symlinks=True)
        before = {k.replace(str(template), str(home), 1): v for k, v in before_template.items()}
        child = _cleanup(home, archive, env)
        time.sleep(rng.uniform(0.0, duration * 1.05))
        child.send_signal(signal.SIGKILL)
        child.wait()
        n = check_invariant(before, home, archive)
        phases["before any archive" if n == 0 else "after all" if child.returncode == 0 else "mid-way"] += 1
        # The next run finishes the interrupted archive and leaves no temp file behind.
        assert _cleanup(home, archive, env).wait(timeout=300) == 0
        check_invariant(before, home, archive)
        assert stray_temps(home, archive) == []
        for session_id in {m.id for m in list_archived(archive, home=home)}:
            restore_session(session_id, archive)
        after = snapshot(home)
        for path, meta in before.items():
            if meta != ("dir",):
                assert after.get(path) == meta, f"trial {trial}: {path} not restored byte-exact"
        shutil.rmtree(home)
        shutil.rmtree(archive, ignore_errors=True)
    print(f"\n{TRIALS} kills over {duration:.1f} s runs: {phases}")
    assert phases["mid-way"] >= TRIALS // 4, phases
