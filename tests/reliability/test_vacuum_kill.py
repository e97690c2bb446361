"""kill -9 at moments spread over `memtui vacuum` (full, --incremental, --checkpoint): see
vacuum_kill.py for what each trial checks."""

from __future__ import annotations

import shutil

import pytest

import harness as h
from conftest import TRIALS
from vacuum_kill import vacuum_template, vacuum_trial

MODES = {"full": (), "incremental": ("--incremental",), "checkpoint": ("--checkpoint",)}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_kill_during_vacuum(tmp_path, mode):
    template = vacuum_template(tmp_path / "template", tasks=1200)
    shutil.copytree(template, tmp_path / "probe")
    span = h.timed(h.memtui("vacuum", tmp_path / "probe", *MODES[mode]))
    tally = h.tally(f"vacuum {mode}")
    failures = []
    for i, delay in enumerate(h.kill_points(TRIALS, span, seed=41)):
        failures += [f"trial {i} ({delay:.2f} s): {p}"
                     for p in vacuum_trial(template, tmp_path / f"t{i}", MODES[mode], delay, tally)]
    assert not failures, "\n".join(failures[:20])
    assert tally.reruns_ok == tally.reruns
