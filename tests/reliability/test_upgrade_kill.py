"""kill -9 during the schema upgrade, from schema 3 (every step of it) and from the last older
schema: at every statement it runs, and at moments spread over its run (the COMMIT's own writes
included). Each trial must find the old schema or the new one with exactly the same reads, no
temp file beside the store, and the next writer must finish the upgrade."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import harness as h
from conftest import TRIALS
from upgrade_support import upgrade_in_child

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from test_store_upgrade import OLDER, _kill_and_check, _upgrade_world  # noqa: E402

from memtui.core.store.schema import SCHEMA_VERSION  # noqa: E402


@pytest.mark.parametrize("old", sorted(OLDER))
def test_kill_at_every_statement_of_the_upgrade(tmp_path, old):
    template, want = _upgrade_world(tmp_path, old)
    total = int(_kill_and_check(template, tmp_path / "full", want)[0])
    tally = h.tally(f"schema upgrade {old} → {SCHEMA_VERSION} (each statement)")
    for n in range(1, total + 1):
        outcome, version = _kill_and_check(template, tmp_path / f"s{n}", want, kill_at=n)
        tally.trials += 1
        tally.mid += outcome == "killed"
        tally.reruns += 1
        tally.reruns_ok += 1  # _kill_and_check asserted the reads and the finished upgrade


@pytest.mark.parametrize("old", sorted(OLDER))
def test_kill_at_moments_during_the_upgrade(tmp_path, old):
    template, want = _upgrade_world(tmp_path, old)
    shutil.copytree(template, tmp_path / "probe")
    span = upgrade_in_child(tmp_path / "probe")[2]  # from the child's "ready" to its exit
    tally = h.tally(f"schema upgrade {old} → {SCHEMA_VERSION} (timed)")
    versions = set()
    for i, delay in enumerate(h.kill_points(max(TRIALS, 50), span, seed=15)):
        outcome, version = _kill_and_check(template, tmp_path / f"t{i}", want, kill_after=delay)
        versions.add(version)
        tally.trials += 1
        tally.mid += outcome == "killed"
        tally.reruns += 1
        tally.reruns_ok += 1
    tally.notes.append(f"left: {sorted(versions)}")
