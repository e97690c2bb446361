"""kill -9 at every statement that builds a new store, and at moments spread over the creation
(MEMTUI_TRIALS of them): no agent.db or a whole one, the next open goes on, no temp file or
SQLite log of the temp database stays (tests/unit/test_store_create_kill.py is the fast slice)."""

from __future__ import annotations

import time

import harness as h
from conftest import TRIALS
from store_create_kill import check_after_kill, create_in_child


def test_kill_at_every_statement_of_the_creation(tmp_path):
    statements = int(create_in_child(tmp_path / "full", "statement:0")[1].split()[-1])
    assert statements > 0  # the statement count works: else no kill would be tried
    tally = h.tally("store creation (each statement, then linked)")
    for n in range(1, statements + 1):
        killed, out = create_in_child(tmp_path / f"s{n}", f"statement:{n}")
        assert killed, out
        assert check_after_kill(tmp_path / f"s{n}") == "none"
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += 1
    assert create_in_child(tmp_path / "linked", "linked")[0]
    assert check_after_kill(tmp_path / "linked") == "store"


def test_kill_at_moments_during_the_creation(tmp_path):
    t0 = time.monotonic()
    create_in_child(tmp_path / "probe", "statement:0")
    span = time.monotonic() - t0
    tally = h.tally("store creation (timed)")
    left = {"none": 0, "store": 0}
    for i, delay in enumerate(h.kill_points(max(TRIALS, 40), span, seed=21)):
        killed, _ = create_in_child(tmp_path / f"t{i}", "statement:0", after=delay)
        left[check_after_kill(tmp_path / f"t{i}")] += 1
        tally.trials += 1
        tally.mid += killed
        tally.reruns += 1
        tally.reruns_ok += 1
    tally.notes.append(f"left {left}")
    assert tally.mid > 0  # some kill landed while the store was being created
