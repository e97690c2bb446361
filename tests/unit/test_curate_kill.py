"""kill -9 of `memtui curate` on RA.Aid's database (curate_kill): as its COMMIT is about to run,
after every DELETE, both items or neither are gone, the rest is as it was, the re-run finishes. Every statement:
tests/reliability/test_syscall_kill_all.py."""

from __future__ import annotations

from curate_kill import curate_trial


def test_kill_9_around_the_commit_of_a_curate(tmp_path):
    statements = int(curate_trial(tmp_path, 0))
    # The last statement is the COMMIT: killed as it is about to run, nothing was deleted.
    assert curate_trial(tmp_path, statements) == "old"
