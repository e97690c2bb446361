"""kill -9 while the search index is written: during its first build, after each batch of
records, and during a refresh that adds the tasks recorded since (a hook after each batch is
handed to the index: the real refresh runs up to there). Then the next search finds every
record, and only search.db is left in .agent/.memtui (no journal, no temp file). The index of an
agent's own home (kept in memtui's cache folder) is killed at statements spread over its first
build."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import harness as h
from memory_workspace import make_workspace

from memtui.core.memory import search_workspace
from memtui.core.store import AgentStore

CHILD = textwrap.dedent("""
    import os, signal, sys
    import memtui.core.memory.search as search
    import memtui.core.memory.search_records as records
    import memtui.core.memory.search_sessions as search_sessions
    from memtui.core.store import AgentStore
    root, kill_after = sys.argv[1], int(sys.argv[2])
    records.BATCH = 5
    real, seen = search_sessions.store_batches, [0]  # what the store's reader calls
    def counted(store, tasks):
        for batch in real(store, tasks):
            yield batch
            seen[0] += 1
            if seen[0] == kill_after:
                os.kill(os.getpid(), signal.SIGKILL)
    search_sessions.store_batches = counted
    with AgentStore.open(root, readonly=True) as store:
        search.search_workspace(root, "marmot", store)
    print("batches", seen[0], flush=True)
""")


def _record(root: Path, start: int, n: int) -> None:
    with AgentStore.open(root) as store:
        session = store.start_session(f"tasks from {start}")
        for number in range(start, start + n):
            task = store.start_task(session, f"task {number}")
            store.record_step(task, "bash", {"command": f"echo step {number}"}, f"marmot{number}")


def _index(root: Path, kill_after: int) -> tuple[bool, str]:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root), str(kill_after)], capture_output=True, text=True,
                          env=h.env(), timeout=120)
    return proc.returncode == -9, proc.stdout + proc.stderr


def _check(root: Path, total: int) -> None:
    with AgentStore.open(root, readonly=True) as store:
        assert len(search_workspace(root, "marmot", store, limit=10 * total)) == total
        assert [x.task for x in search_workspace(root, f"marmot{total - 1}", store)] == [str(total)]
    assert sorted(os.listdir(root / ".agent" / ".memtui")) == ["search.db"]


@pytest.mark.parametrize("phase", ["first build", "refresh"])
def test_kill_after_each_batch_of_the_index(tmp_path, phase):
    tally = h.tally(f"search index {phase} (after each batch)")
    probe = make_workspace(tmp_path / "probe")
    _record(probe, 0, 60)
    if phase == "refresh":
        assert not _index(probe, 0)[0]
        _record(probe, 60, 40)
    batches = int(_index(probe, 0)[1].split()[-1])
    assert batches > 3
    for k in range(1, batches + 1):
        root = make_workspace(tmp_path / f"k{k}")
        _record(root, 0, 60)
        total = 60
        if phase == "refresh":
            assert not _index(root, 0)[0]
            _record(root, 60, 40)
            total = 100
        killed, out = _index(root, k)
        assert killed, out
        _check(root, total)  # the next search finishes the index
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += 1


def test_kill_at_statements_spread_over_a_homes_first_index(tmp_path, monkeypatch):
    """A Claude Code home's index in memtui's cache folder, killed at 20 statements spread over
    its first build: each time the next search finds every hit and leaves the index file only."""
    import json

    from real_support import claude_results_holding, many_sessions
    from test_search_cache import _killed_search, cache_folder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tally = h.tally("search index of an agent's home (statements)")
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path, 4)
    expected = claude_results_holding(home, "elixirforum")
    code, err = _killed_search(home, 0)
    statements = int(err.split()[-1])
    for k in range(1, statements, max(1, statements // 20)):
        for index in cache_folder().iterdir():
            index.unlink()
        code, err = _killed_search(home, k)
        assert code == -9, err
        rerun = subprocess.run(h.memtui("search", home, "elixirforum", "--json"), capture_output=True, text=True,
                               env=h.env() | {"XDG_CACHE_HOME": str(tmp_path / "cache")}, timeout=300)
        assert rerun.returncode == 0 and len(json.loads(rerun.stdout)) == expected, (k, rerun.stderr)
        assert [p.suffix for p in cache_folder().iterdir()] == [".db"], k
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += 1
