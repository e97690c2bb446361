"""kill -9 while the index of an agent's home is built from nothing (after the first part, in
the middle, at the rename), while it is updated in place, and while grown transcripts are
parsed on from their cursors: the next run prints what a run without an index prints, no
temporary file is left. Many more kill points:
tests/reliability/test_index_kill.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from index_kill import cut_home, grow_back, grown_kill_trial, kill_trial, run_log
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


@pytest.fixture(scope="module")
def grown_home(tmp_path_factory) -> tuple[Path, dict[Path, bytes], str]:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path_factory.mktemp("grown"), 3)
    whole = cut_home(home)
    grow_back(whole)
    clean = run_log(home, tmp_path_factory.mktemp("clean"))
    assert clean.returncode == 0 and '"sessions"' in clean.stdout
    return home, whole, clean.stdout


@pytest.mark.parametrize("kill_after", [1, 4])
def test_kill_9_while_grown_transcripts_are_parsed_on_from_their_cursors(grown_home, tmp_path: Path, kill_after: int) -> None:
    home, whole, expected = grown_home
    assert grown_kill_trial(home, whole, tmp_path / "cache", expected, kill_after)
