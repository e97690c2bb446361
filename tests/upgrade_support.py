"""Shared by the upgrade tests: what a store reads (to compare before and after an upgrade) and
a child process that upgrades a store and is killed (-9) at a chosen statement or moment."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import kill_points

from memtui.core.errors import MemtuiError
from memtui.core.gc import gc_figures, plan_gc
from memtui.core.stats import db_stats
from memtui.core.store import AgentStore

ROOT = Path(__file__).resolve().parents[1]


def everything(store: AgentStore) -> dict:
    """What a user can read from a store: sessions, tasks, steps, entries with their bytes (a
    digest, or the one-line error a broken content gives), GC figures and content stats."""
    out: dict = {"sessions": store.sessions(), "orphans": store.tasks(None), "tasks": {}, "entries": {}}
    tasks = [t for s in out["sessions"] for t in store.tasks(s.id)] + list(out["orphans"])
    for t in tasks:
        out["tasks"][t.id] = (t, store.steps(t.id), store.messages(t.id), store.references(t.id))
        for cp in store.checkpoints(t.id):
            for e in store.checkpoint_entries(cp.id):
                try:
                    sides = [None if side is None else hashlib.sha256(side).hexdigest() for side in store.read_entry(e.id)]
                except MemtuiError as exc:
                    sides = [type(exc).__name__]
                out["entries"][e.id] = (e, sides)
    out["plan"] = plan_gc(store).to_json()
    out["figures"] = gc_figures(store)
    out["content"] = db_stats(store).content
    out["counts"] = store.counts()
    return out


# The child: open the store for writing (which upgrades it); with a statement number, SIGKILL
# itself when the upgrade is about to run that statement (counted from `PRAGMA foreign_keys =
# OFF`, the upgrade's first), so every step of it, the COMMIT included, can be the last.
CHILD = r"""
import os, sys
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], "tests")]
from kill_points import kill_at_store_statement
from memtui.core.store import AgentStore

started = [False]

def counts(db, sql):
    started[0] = started[0] or sql.startswith("PRAGMA foreign_keys = OFF")
    return started[0]

seen = kill_at_store_statement(int(sys.argv[3]), counts)
print("ready", flush=True)
AgentStore.open(sys.argv[2], create=False).close()
print(f"done {seen[0]}", flush=True)
"""


def upgrade_in_child(workspace: Path, kill_at: int = 0, kill_after: float | None = None) -> tuple[bool, str, float]:
    """Upgrade `workspace`'s store in a child process; killed at statement `kill_at` (0: never)
    or `kill_after` seconds after it is ready. Returns (killed, its output, seconds from ready
    to its end)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(ROOT), str(workspace), str(kill_at)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    t0 = time.perf_counter()
    if kill_after is not None and first.strip() == "ready":
        kill_points.kill_after(proc, kill_after)
    out, err = proc.communicate(timeout=120)
    return proc.returncode == -signal.SIGKILL, first + out + err, time.perf_counter() - t0
