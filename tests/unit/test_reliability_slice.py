"""A fast slice of the reliability harness (tests/reliability, run with `pytest tests/reliability`):
one kill -9 trial of each operation, a writer during GC, the planted-fault checks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reliability"))

import harness as h  # noqa: E402
import trials  # noqa: E402
from test_checks_fail import (  # noqa: E402,F401  (the planted-fault checks run here too)
    test_db_checks_see_a_broken_foreign_key_and_a_damaged_page,
    test_old_or_new_sees_a_torn_file_and_a_lost_mode,
    test_stray_temps_and_fingerprints_see_a_planted_file,
    test_whole_or_collected_sees_a_torn_task,
)


def _sound(problems: list[str], tally: h.Tally) -> None:
    assert problems == []
    assert tally.reruns_ok == tally.reruns == tally.trials == 1
    assert tally.stray == 0


def test_kill_during_rollback_then_rerun_finishes(tmp_path):
    tally = h.Tally("rollback")
    _sound(trials.rollback_trial(tmp_path, 0.9, tally, files=60), tally)


def test_kill_during_gc_apply(tmp_path):
    tally = h.Tally("gc")
    template = trials.gc_template(tmp_path / "template", tasks=200)
    _sound(trials.gc_trial(template, tmp_path / "t", 0.8, tally), tally)


@pytest.mark.parametrize("op", ["save", "decision"])
def test_kill_during_memory_writes(tmp_path, op):
    tally = h.Tally(op)
    _sound(trials.memory_trial(tmp_path, op, 0.15, tally), tally)


def test_kill_during_recording(tmp_path):
    tally = h.Tally("recorder")
    _sound(trials.recorder_trial(tmp_path, 0.3, tally), tally)


def test_a_writer_loses_nothing_during_gc(tmp_path):
    from memtui.core.gc import apply_gc
    from memtui.core.store import AgentStore
    from worlds import gc_workspace
    from writer import Writer

    db = gc_workspace(tmp_path / "ws", tasks=200)
    with Writer(tmp_path / "ws") as w:
        with AgentStore.open(db) as store:
            assert apply_gc(store).tasks > 150
    assert w.figures.steps > 0
    assert (w.figures.lost, w.figures.phantom, w.figures.errors) == (0, 0, [])
