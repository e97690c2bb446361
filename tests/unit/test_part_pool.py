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


KILLED_BUILD = """
import sys, threading, time
from pathlib import Path
sys.path[:0] = [{marker!r}, {here!r}]
from memtui.core.sources import part_pool
import pool_sleeper
if {beside_a_thread}:  # the app: its workers come from a fork server
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
items = [(Path(f"/nowhere/{{n}}"), None) for n in range(64)]
for done, _ in enumerate(part_pool.read_parts(pool_sleeper.parse, items, [1 << 30] * len(items))):
    print(done, part_pool.last_workers, flush=True)
"""


KILLED_SEARCH = """
import sys, threading, time
sys.path[:0] = [{marker!r}, {here!r}]
from memtui.core.sources import part_pool
import pool_sleeper
if {beside_a_thread}:  # the app: its workers come from a fork server and open the source again
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
for done, (on, _data) in enumerate(part_pool.forked_map(pool_sleeper.read, "inherited", list(range(64)),
                                                         pool_sleeper.reopen)):
    print(done, part_pool.last_forked, on.replace(" ", "-"), flush=True)
"""


def _running(pids: list[int]) -> list[int]:
    """Those of `pids` still running (a zombie waits for its parent to read its status: ended)."""
    import psutil

    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.Error:
            pass
    return alive


def _processes_naming(marker: str) -> list[int]:
    import psutil

    return [proc.info["pid"] for proc in psutil.process_iter(["pid", "cmdline"])
            if any(marker in part for part in proc.info["cmdline"] or ())]


def _killed_mid_way(script: str, marker: str) -> list[str]:
    """Run `script` (a process whose workers name `marker` in their command line), kill -9 it
    once it printed its first result line (returned, split) and more are under way, and see its
    workers (one blocked sending a result the dead process will never read) and the fork server
    end within seconds."""
    import os
    import signal
    import subprocess
    import time

    run = subprocess.Popen([sys.executable, "-c", script, marker], stdout=subprocess.PIPE, text=True)
    try:
        first = run.stdout.readline().split()  # a result came back: the workers are at work
        assert first and int(first[1]) >= 2, first
        started = [pid for pid in _processes_naming(marker) if pid != run.pid]
        assert len(started) >= 2  # the workers (and, for the app, the fork server)
        time.sleep(0.5)  # more results under way, one of them too large for the pipe
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 10
        while _running(started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(started), "workers left running after the process that started them was killed"
        return first
    finally:
        if run.poll() is None:
            run.kill()


@pytest.mark.skipif(part_pool.cores() < 2, reason="one core: a build never starts workers")
@pytest.mark.parametrize("beside_a_thread", [False, True], ids=["verb", "app"])
def test_the_workers_of_a_build_killed_mid_way_end_with_it(tmp_path: Path, beside_a_thread: bool) -> None:
    """kill -9 of a process whose build parses in workers: its workers and the fork server end."""
    marker = str(tmp_path / "pool-marker")  # in the command line of the build and of what it starts
    _killed_mid_way(KILLED_BUILD.format(marker=marker, here=str(Path(__file__).parent), beside_a_thread=beside_a_thread),
                    marker)


@pytest.mark.skipif(part_pool.cores() < 2 or sys.platform != "linux", reason="forked workers: Linux with two cores")
@pytest.mark.parametrize("beside_a_thread", [False, True], ids=["verb", "app"])
def test_the_workers_of_a_first_search_killed_mid_way_end_with_it(tmp_path: Path, beside_a_thread: bool) -> None:
    """kill -9 of a process whose first search reads sessions in workers (forked from a verb;
    in the app, started from a fork server, each opening the source again): its workers and the
    fork server end."""
    marker = str(tmp_path / "search-marker")
    first = _killed_mid_way(KILLED_SEARCH.format(marker=marker, here=str(Path(__file__).parent),
                                                 beside_a_thread=beside_a_thread), marker)
    assert first[2] == ("opened-in-the-worker" if beside_a_thread else "inherited")


@pytest.mark.skipif(part_pool.cores() < 2 or sys.platform != "linux", reason="forked workers: Linux with two cores")
def test_workers_started_beside_a_thread_take_the_environment_of_now(tmp_path: Path, monkeypatch) -> None:
    """The fork server outlives one search: the workers of the next (after the cache folder was
    set again: each test, or a user's `export`) open what the environment names now, not what
    it named when the server started. A worker that cannot open it ends, and the items are read
    here."""
    import pool_sleeper

    stop = threading.Event()
    beside = threading.Thread(target=stop.wait, args=(60,), daemon=True)
    beside.start()
    try:
        for n in range(2):
            monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{n}"))
            seen = set(part_pool.forked_map(pool_sleeper.read_fast, "here", list(range(40)), pool_sleeper.reopen_where))
            assert part_pool.last_forked >= 2 and seen == {str(tmp_path / f"cache-{n}")}
        seen = set(part_pool.forked_map(pool_sleeper.read_fast, "here", list(range(40)), pool_sleeper.cannot_reopen))
        assert seen == {"here"}  # every item, read in this process
    finally:
        stop.set()


@pytest.mark.skipif(part_pool.cores() < 2 or sys.platform != "linux", reason="forked workers: Linux with two cores")
def test_a_first_search_read_in_forked_workers_finds_what_one_read_here_finds(tmp_path: Path, monkeypatch, capsys) -> None:
    """`memtui search` on a home it has not indexed reads the sessions' steps in workers forked
    from it (the source inherited, its index file opened again there): every hit, for common and
    rare words, is the one the same search finds read in the one process."""
    import json

    from memtui.cli import main

    home = many_sessions("claude-2.1.38-spotter-small", tmp_path / "home", 8)
    for name in ("HOME", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / f"no-{name.lower()}"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    found, forked = {}, {}
    for way, least in (("here", 10**9), ("forked", 1)):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{way}"))
        monkeypatch.setattr(part_pool, "FORK_MIN_ITEMS", least)
        found[way] = []
        for word in ("the", "test", "spotter"):  # the first builds the search index
            assert main(["search", str(home), word, "--json", "--all"]) == 0
            found[way].append(json.loads(capsys.readouterr().out))
            forked.setdefault(way, part_pool.last_forked)
    assert forked == {"here": 0, "forked": min(part_pool.cores(), part_pool.MAX_WORKERS)}
    assert found["forked"] == found["here"] and all(found["here"])


@pytest.mark.parametrize("name", ["claude-2.1.38-spotter-small", "codex-0.66.0-agtrace"])
def test_a_reopened_source_reads_what_the_source_it_was_taken_from_reads(tmp_path: Path, name: str) -> None:
    """MemorySource.reopener: what a worker started afresh opens is the same agent's home, bound
    to the same --root, reading the same index file — every session, task and step the same. A
    source that keeps no index file (--read-only) gives none: its first search reads here."""
    import pickle

    from memtui.core.atomic import forbid_writes

    home = real_home(name, tmp_path)
    root = tmp_path / "copy-of-the-project"
    root.mkdir()
    with _open(home) as source:
        source.with_root(root)
        source.sessions()  # the index read (and kept)
        reopen = source.reopener()
        assert reopen is not None
        again = pickle.loads(pickle.dumps(reopen))()  # as a worker gets it
        try:
            assert again.kind == source.kind and again.workspace == source.workspace == root
            assert everything(again) == everything(_live(source))
            assert again.files_read == 0  # served from the index file the source keeps
        finally:
            again.close()
    forbid_writes("reading without the index")
    try:
        with _open(home) as source:
            source.sessions()
            assert source.reopener() is None
    finally:
        forbid_writes(None)
