"""kill -9 of file-writing commands just before one of their file-system calls (syscall_kill):
export (md, html, json), decisions --add, a memory document's history restore, pin of a Claude
Code session and rollback of a Claude Code task. Each file is as before or as after, the agent's
home is untouched, the re-run finishes as an uninterrupted run would, no temp file stays. Here
one point of one command; every point of each, and the checks against planted faults:
tests/reliability/test_syscall_kill_all.py."""

from __future__ import annotations

from syscall_kill import count_points, trial
from syscall_worlds import WORLDS


def test_kill_9_between_keeping_the_old_version_and_replacing_the_document(tmp_path):
    """memory-history --restore killed after it kept the current text and before it replaced the
    document: the re-run restores the same version (the kept copy of the current text does not
    shift the numbers) and leaves no temp file."""
    world = WORLDS["memory-history --restore"]
    points, after = count_points(tmp_path, world)
    assert trial(tmp_path, world, points - 3, after) == []
