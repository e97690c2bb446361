"""A cold index build of a large home parses its files in worker processes
(memtui.core.sources.part_pool): what a user reads of the home is what a build in one process
gives, whether the workers are forked from a verb or started beside the app's other threads;
a small home is parsed in the process (no worker is started for it)."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path

import pytest
from real_support import many_sessions, real_home
from test_kept_index import _live, _open, everything, without_index

from memtui.core.sources import part_pool


class _Captured(io.StringIO):
    """What Textual puts in sys.stderr while the app runs: its fileno is -1."""

    def fileno(self) -> int:
        return -1


def _sizes(home: Path) -> list[int]:
    return [p.stat().st_size for p in home.glob("projects/*/*.jsonl")]


def test_a_small_home_is_parsed_in_the_process(tmp_path: Path) -> None:
    home = real_home("claude-2.1.39-spotter", tmp_path)
    assert sum(_sizes(home)) < part_pool.POOL_BYTES
    with _open(home) as source:
        assert len(source.sessions()) > 1 and _live(source).files_read > 1
    assert part_pool.last_workers == 0


@pytest.mark.skipif(part_pool.cores() < 2, reason="one core: a build never starts workers")
@pytest.mark.parametrize("beside_a_thread", [False, True], ids=["verb", "app"])
def test_a_pooled_build_reads_as_a_build_in_one_process(tmp_path: Path, monkeypatch, beside_a_thread: bool) -> None:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path / "a", 3)
    for name in ("claude-2.1.39-spotter", "claude-2.0.28-agtrace", "claude-2.1.38-orphan-subagents"):
        for project in real_home(name, tmp_path / name).glob("projects/*"):
            project.rename(home / "projects" / f"{name}-{project.name}")
    expected = without_index(home)
    monkeypatch.setattr(part_pool, "POOL_BYTES", 0)  # this home's few MiB are parsed in workers
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)  # the app's threads, as far as a fork goes
    if beside_a_thread:
        other.start()
        monkeypatch.setattr(sys, "stderr", _Captured())  # the app's sys.stderr, as Textual captures it
    try:
        with _open(home) as cold:
            assert everything(cold) == expected
            assert _live(cold).files_read == len(expected["sessions"])
        assert part_pool.last_workers == min(part_pool.cores(), part_pool.MAX_WORKERS)
        with _open(home) as warm:  # the parts the workers pickled, read back from the index file
            assert everything(warm) == expected
            assert _live(warm).files_read == 0
    finally:
        stop.set()
