"""kill -9 of `memtui demo PATH --no-open` while it writes (demo_kill): nothing or a whole demo at
PATH, the re-run builds it, nothing left beside it. Every point: tests/reliability."""

from __future__ import annotations

from demo_kill import demo_trial, uninterrupted


def test_kill_9_while_building_the_demo_leaves_none_or_a_whole_one(tmp_path):
    points, whole = uninterrupted(tmp_path)
    assert demo_trial(tmp_path, points // 2, whole) == "none"


def test_kill_9_of_demo_force_leaves_the_old_folder_or_the_whole_demo(tmp_path):
    from demo_kill import force_trial, force_uninterrupted

    points, whole = force_uninterrupted(tmp_path)
    assert force_trial(tmp_path, points // 2, whole) == "old"  # mid-build: the user's files as they were
    assert force_trial(tmp_path, points, whole) == "new"  # removing the old files, swapped out whole
