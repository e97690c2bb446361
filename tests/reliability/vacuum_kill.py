"""kill -9 during `memtui vacuum` (VACUUM, --incremental, --checkpoint) of a store whose GC left a
freelist: the store reads exactly as before (every entry's bytes, every task's shape), both
integrity checks pass, the re-run finishes, and nothing but agent.db and its log stays in .agent/."""

from __future__ import annotations

import shutil
from pathlib import Path

import harness as h
from worlds import gc_workspace


def vacuum_template(folder: Path, tasks: int = 600) -> Path:
    """A workspace whose store has a freelist (its finished tasks collected): the workspace."""
    from memtui.core.gc import apply_gc
    from memtui.core.store import AgentStore

    db = gc_workspace(folder / "ws", tasks=tasks)
    with AgentStore.open(db) as store:
        apply_gc(store)
    return db.parent.parent


def vacuum_trial(template: Path, trial_dir: Path, mode: tuple[str, ...], delay: float, tally: h.Tally) -> list[str]:
    ws = trial_dir / "ws"
    shutil.copytree(template, ws)
    db = ws / ".agent" / "agent.db"
    shapes, hashes = h.task_shapes(db), h.entry_hashes(db)
    code, _ = h.run_killed(h.memtui("vacuum", ws, *mode), delay)
    tally.mid += code is None
    problems = h.db_checks(db)
    if h.task_shapes(db) != shapes:
        problems.append("a task's steps/checkpoints/entries changed")
        tally.torn += 1
    lost = [i for i, v in h.entry_hashes(db).items() if hashes.get(i) != v]
    lost += [i for i in hashes if i not in h.entry_hashes(db)]
    tally.lost += len(lost)
    problems += [f"entry {i} not byte-exact" for i in lost]
    again = h.run(h.memtui("vacuum", ws, *mode))
    tally.reruns += 1
    if again.returncode == 0 and not h.db_checks(db):
        tally.reruns_ok += 1
    else:
        problems.append(f"re-run did not finish: exit {again.returncode}: {again.stderr.strip()[-300:]}")
    extra = sorted(p.name for p in db.parent.iterdir() if p.name not in ("agent.db", "agent.db-wal", "agent.db-shm")
                   and p.is_file())
    tally.stray += len(extra)
    problems += [f"left in .agent/: {name}" for name in extra]
    tally.trials += 1
    return problems
