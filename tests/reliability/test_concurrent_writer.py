"""A writer recording every 5 ms keeps going while GC applies, the library browses, VACUUM runs."""

from __future__ import annotations

import harness as h
from writer import Writer
from worlds import gc_workspace

GC_MAX_WAIT_MS = 100  # what the GC throttle promises an agent (busy timeout is 5 s)


def _flag_wait(f, label: str) -> None:
    """Waits are measured and reported, not asserted (timings depend on the machine's load)."""
    if f.max_wait_ms > GC_MAX_WAIT_MS:
        h.report(f"  !! the writer waited {f.max_wait_ms:.0f} ms during {label}, over {GC_MAX_WAIT_MS} ms")


def _browse(db) -> int:
    from memtui.core.store import AgentStore

    n = 0
    with AgentStore.open(db, readonly=True) as store:
        for s in store.sessions():
            for t in store.tasks(s.id):
                n += len(store.steps(t.id))
                for c in store.checkpoints(t.id):
                    for e in store.checkpoint_entries(c.id):
                        store.read_entry(e.id)
                        n += 1
    return n


def test_writer_during_gc_apply(tmp_path):
    from memtui.core.gc import apply_gc
    from memtui.core.store import AgentStore

    db = gc_workspace(tmp_path / "ws", tasks=1500)
    with Writer(tmp_path / "ws") as w:
        with AgentStore.open(db) as store:
            result = apply_gc(store)
    f = w.figures
    h.report(f.line(f"GC apply ({result.tasks} tasks, {result.seconds:.1f} s)"))
    assert result.tasks > 1000
    assert (f.lost, f.phantom, f.errors) == (0, 0, []), (w.unacked, w.out[-500:])
    _flag_wait(f, "GC apply")


def test_writer_while_browsing(tmp_path):
    db = gc_workspace(tmp_path / "ws", tasks=600)
    with Writer(tmp_path / "ws") as w:
        read = sum(_browse(db) for _ in range(3))
    f = w.figures
    h.report(f.line(f"browse ({read} rows and contents read)"))
    assert (f.lost, f.phantom, f.errors) == (0, 0, [])
    _flag_wait(f, "browse")


def test_writer_during_vacuum(tmp_path):
    """VACUUM holds the write lock for its whole run: the writer waits (measured, reported), and
    loses nothing. The stats screen says so before it starts (tests/ui)."""
    import time

    from memtui.core.gc import apply_gc
    from memtui.core.vacuum import vacuum
    from memtui.core.store import AgentStore

    db = gc_workspace(tmp_path / "ws", tasks=3000)
    with AgentStore.open(db) as store:
        apply_gc(store, max_tasks=1500)  # free pages for VACUUM to return
    with Writer(tmp_path / "ws") as w:
        with AgentStore.open(db) as store:
            t0 = time.monotonic()
            result = vacuum(store)
            took = time.monotonic() - t0
    f = w.figures
    h.report(f.line(f"VACUUM ({result.file_bytes_before >> 10} KiB → {result.file_bytes_after >> 10} KiB,"
                    f" {took * 1000:.0f} ms)"))
    assert (f.lost, f.phantom, f.errors) == (0, 0, [])
