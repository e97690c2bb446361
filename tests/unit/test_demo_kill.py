"""kill -9 of `memtui demo PATH --no-open` while it writes (demo_kill): nothing or a whole demo at
PATH, the re-run builds it, nothing left beside it. Every point: tests/reliability."""

from __future__ import annotations

from demo_kill import demo_trial, uninterrupted


def test_kill_9_while_building_the_demo_leaves_none_or_a_whole_one(tmp_path):
    points, whole = uninterrupted(tmp_path)
    assert demo_trial(tmp_path, points // 2, whole) == "none"
