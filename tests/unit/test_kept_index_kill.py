"""kill -9 while the index of an agent's home is built from nothing (after the first part, in
the middle, at the rename) and while it is updated in place: the next run prints what a run
without an index prints, no temporary file is left. Many more kill points:
tests/reliability/test_index_kill.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from index_kill import kill_trial, run_log
from real_support import many_sessions


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Path, str]:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path_factory.mktemp("kill"), 4)
    clean = run_log(home, tmp_path_factory.mktemp("clean"))
    assert clean.returncode == 0 and '"sessions"' in clean.stdout
    return home, clean.stdout


@pytest.mark.parametrize("kill_after", [1, 6, 0], ids=["first part", "middle", "rename"])
def test_kill_9_during_a_build_from_nothing(home, tmp_path: Path, kill_after: int) -> None:
    assert kill_trial(home[0], tmp_path / "cache", home[1], kill_after)


def test_kill_9_during_an_update_in_place(home, tmp_path: Path) -> None:
    assert kill_trial(home[0], tmp_path / "cache", home[1], 5, update=True)
