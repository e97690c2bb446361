"""A fast slice of the reliability harness (tests/reliability, run with `pytest tests/reliability`):
one kill -9 trial of each operation (VACUUM too), a writer during GC, the planted-fault checks."""

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


def test_a_sample_of_wrong_typed_foreign_fields(tmp_path):
    import fuzz_records

    for kind in ("jsonl-sessions",):
        f = fuzz_records.fuzz_jsonl_store(kind, tmp_path, sample=40, seed=7)
        assert (f.crashes, f.wrong) == (0, 0), f.examples
    f = fuzz_records.fuzz_ra_aid(tmp_path, sample=25, seed=7)
    assert (f.crashes, f.wrong) == (0, 0), f.examples


def test_a_sample_of_damaged_blobs_and_databases(tmp_path):
    import fuzz_store

    blobs = fuzz_store.fuzz_blobs(tmp_path / "b", 30, seed=3)
    assert blobs.errors > 0 and (blobs.crashes, blobs.wrong) == ([], [])
    files = fuzz_store.fuzz_db_files(tmp_path / "d", 12, seed=3)
    assert (files.crashes, files.wrong) == ([], [])


def test_a_sample_of_garbage_memory_documents(tmp_path):
    import fuzz_memory
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(fuzz_memory.DOCUMENTS), fuzz_memory.document_bytes, min_size=1))
    def run(contents):
        assert fuzz_memory.exercise(tmp_path / "ws", contents) == []

    run()


def test_read_only_use_creates_no_side_files(tmp_path):
    from readonly import changes, cli_reads, consolidated_demo, library_reads

    root = consolidated_demo(tmp_path / "ws")
    before = h.Fingerprint.of(root)
    assert library_reads(root) > 50
    assert cli_reads(root, (("gc", "{ws}"), ("stats", "{ws}", "--json"), ("rollback", "{ws}", "--task", "1", "--dry-run"))) == []
    assert changes(before, root) == []


def test_kill_during_vacuum(tmp_path):
    from vacuum_kill import vacuum_template, vacuum_trial

    tally = h.Tally("vacuum")
    _sound(vacuum_trial(vacuum_template(tmp_path / "template", tasks=200), tmp_path / "t", (), 0.7, tally), tally)
