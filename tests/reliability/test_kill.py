"""kill -9 at spread-out moments during GC apply, rollback, memory writes and the recorder."""

from __future__ import annotations

import pytest

import harness as h
import trials
from conftest import TRIALS


def _assert_sound(tally: h.Tally, failures: list[str]) -> None:
    assert not failures, "\n".join(failures[:20])
    assert tally.reruns_ok == tally.reruns


def test_kill_during_gc_apply(tmp_path):
    template = trials.gc_template(tmp_path / "template", tasks=1200)
    probe = tmp_path / "probe"
    import shutil

    shutil.copytree(template.parent.parent, probe)
    span = h.timed(h.memtui("gc", probe, "--apply"))
    tally = h.tally("gc --apply")
    failures = []
    for i, delay in enumerate(h.kill_points(TRIALS, span, seed=1)):
        failures += [f"trial {i} ({delay:.2f} s): {p}" for p in trials.gc_trial(template, tmp_path / f"t{i}", delay, tally)]
    _assert_sound(tally, failures)


def test_kill_during_rollback(tmp_path):
    world = trials.rollback_workspace(tmp_path / "probe")
    span = h.timed(h.memtui("rollback", world.root, "--task", world.task))
    tally = h.tally("rollback --task (400 files)")
    failures = []
    for i, delay in enumerate(h.kill_points(TRIALS, span, seed=2)):
        failures += [f"trial {i} ({delay:.2f} s): {p}" for p in trials.rollback_trial(tmp_path / f"t{i}", delay, tally)]
    _assert_sound(tally, failures)


@pytest.mark.parametrize("op", ["save", "decision", "restore"])
def test_kill_during_memory_writes(tmp_path, op):
    tally = h.tally(f"memory {op}")
    failures = []
    for i, delay in enumerate(h.kill_points(TRIALS, 0.6, seed=3)):
        failures += [f"trial {i} ({delay:.2f} s): {p}" for p in trials.memory_trial(tmp_path / f"t{i}", op, delay, tally)]
    _assert_sound(tally, failures)


def test_kill_during_recording(tmp_path):
    tally = h.tally("recorder")
    failures = []
    for i, delay in enumerate(h.kill_points(TRIALS, 1.0, seed=4)):
        failures += [f"trial {i} ({delay:.2f} s): {p}" for p in trials.recorder_trial(tmp_path / f"t{i}", delay, tally)]
    _assert_sound(tally, failures)


def test_kill_during_home_cleanup_archive(tmp_path):
    import os

    probe = tmp_path / "probe"
    trials.claude_home(probe / "claude")
    os.environ["XDG_STATE_HOME"] = str(probe / "state")
    span = h.timed(h.memtui("cleanup", probe / "claude", "--agent", "claude-code", "--archive", "--archive-dir",
                            probe / "archive", "--keep-days", "30", "--keep-last", "0"))
    tally = h.tally("home cleanup --archive (40 sessions)")
    failures = []
    for i, delay in enumerate(h.kill_points(max(2, TRIALS // 2), span, seed=5)):  # the slowest trial
        failures += [f"trial {i} ({delay:.2f} s): {p}" for p in trials.cleanup_trial(tmp_path / f"t{i}", delay, tally)]
    _assert_sound(tally, failures)
