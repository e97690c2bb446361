"""kill -9 of `memtui log HOME --json` while the index of the agent's home is written: after
each part kept during a build from nothing (20 sessions: 20 trials, plus the rename) and during
an update in place of every file, and after each part parsed on from its cursor when every
transcript grew; each time the next run prints what a run without any index
prints, and no temporary file is left in the cache folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))

from index_kill import cut_home, grow_back, grown_kill_trial, kill_trial, run_log  # noqa: E402
from real_support import many_sessions  # noqa: E402

SESSIONS_COPIES = 7  # 3 sessions a copy: 21 transcripts


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Path, str]:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path_factory.mktemp("kill"), SESSIONS_COPIES)
    clean = run_log(home, tmp_path_factory.mktemp("clean"))
    assert clean.returncode == 0
    return home, clean.stdout


@pytest.mark.parametrize("kill_after", range(0, 21))
def test_kill_9_during_a_build_from_nothing(home, tmp_path: Path, kill_after: int) -> None:
    assert kill_trial(home[0], tmp_path / "cache", home[1], kill_after)


@pytest.mark.parametrize("kill_after", range(1, 21, 4))
def test_kill_9_during_an_update_in_place(home, tmp_path: Path, kill_after: int) -> None:
    assert kill_trial(home[0], tmp_path / "cache", home[1], kill_after, update=True)


@pytest.fixture(scope="module")
def grown_home(tmp_path_factory) -> tuple[Path, dict[Path, bytes], str]:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path_factory.mktemp("grown"), SESSIONS_COPIES)
    whole = cut_home(home)
    grow_back(whole)
    clean = run_log(home, tmp_path_factory.mktemp("clean"))
    assert clean.returncode == 0
    return home, whole, clean.stdout


@pytest.mark.parametrize("kill_after", range(1, 22, 2))
def test_kill_9_while_grown_transcripts_are_parsed_on_from_their_cursors(grown_home, tmp_path: Path, kill_after: int) -> None:
    home, whole, expected = grown_home
    assert grown_kill_trial(home, whole, tmp_path / "cache", expected, kill_after)
