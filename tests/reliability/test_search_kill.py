"""kill -9 while the search index is written: during its first build, after each batch of
records, and during a refresh that adds the tasks recorded since (a hook after each batch is
handed to the index: the real refresh runs up to there). Then the next search finds every
record, and only search.db is left in .agent/.memtui (no journal, no temp file)."""

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
    from memtui.core.store import AgentStore
    root, kill_after = sys.argv[1], int(sys.argv[2])
    records.BATCH = 5
    real, seen = search.store_batches, [0]
    def counted(store, tasks):
        for batch in real(store, tasks):
            yield batch
            seen[0] += 1
            if seen[0] == kill_after:
                os.kill(os.getpid(), signal.SIGKILL)
    search.store_batches = counted
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
