"""kill -9 of `memtui demo PATH --no-open` while it writes (demo_kill): PATH as before (nothing, or
the earlier demo --force replaces) or a whole demo, the re-run builds it, nothing left beside it.
Every point: tests/reliability."""

from __future__ import annotations

from demo_kill import demo_trial, uninterrupted


def test_kill_9_while_building_the_demo_leaves_none_or_a_whole_one(tmp_path):
    points, whole = uninterrupted(tmp_path)
    assert demo_trial(tmp_path, points // 2, whole) == "none"


def test_kill_9_of_demo_force_leaves_the_old_folder_or_the_whole_demo(tmp_path):
    from demo_kill import FORCE_WORLD as FORCE

    points, whole = uninterrupted(tmp_path, FORCE)
    assert demo_trial(tmp_path, points // 2, whole, FORCE) == "old"  # mid-build: the old demo as it was
    # The last calls remove the old folder from under its temp name (its 2 files, 2 subfolders and
    # itself); killed as the first of them runs, the swap is done: the whole demo. (A replace that
    # removed the old folder in place and then renamed the new in left part of it here.)
    assert demo_trial(tmp_path, points - 4, whole, FORCE) == "whole"


def test_kill_9_of_demo_without_a_path_leaves_no_empty_or_half_folder(tmp_path):
    from demo_kill import TEMPORARY, temporary_trial

    points, whole = uninterrupted(tmp_path, TEMPORARY)
    assert temporary_trial(tmp_path, points // 2, whole) == "none"
    assert temporary_trial(tmp_path, points, whole) == "whole"


def test_kill_9_between_the_two_renames_of_the_old_folder_aside_is_finished_by_the_re_run(tmp_path):
    """Without RENAME_EXCHANGE the old folder is renamed aside, then the new one in: killed
    between the two (6 calls from the end: the second rename, before the fsync and the old
    folder's 5 removals) PATH is gone for a moment; the re-run builds it."""
    from demo_kill import ASIDE_WORLD as ASIDE

    points, whole = uninterrupted(tmp_path, ASIDE)
    assert demo_trial(tmp_path, points - 6, whole, ASIDE) == "none"
