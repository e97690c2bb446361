"""kill -9 of a process creating a new store (`AgentStore.open` of a workspace without one), at
a chosen SQL statement, just after the finished file is linked into place, or at a moment; then
the checks a user would notice (tests/unit/test_store_create_kill.py and the long loop in
tests/reliability/test_store_create_kill.py)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from kill_points import child_env, kill_after, stray_temps

from memtui.core.store import AgentStore
from memtui.core.store.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]

# The child creates the store; `statement:N` SIGKILLs itself as the N-th statement on the new
# file is about to run (a hook in SQLite's trace callback: the real code runs up to there),
# `linked` just after os.link put the finished file in place; `statement:0` only counts.
CHILD = r"""
import os, signal, sys
from kill_points import kill_at_store_statement
from memtui.core.store import AgentStore, schema
where = sys.argv[2]
seen = [0]
if where.startswith("statement:"):  # only the statements that build the new file count
    seen = kill_at_store_statement(int(where.split(":")[1]), lambda db, sql: ".memtui-tmp" in db.name)
elif where == "linked":
    link = os.link
    def linked(*args, **kwargs):
        link(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
    schema.os.link = linked
print("ready", flush=True)
AgentStore.open(sys.argv[1]).close()
print(f"done {seen[0]}", flush=True)
"""


def create_in_child(workspace: Path, where: str, after: float | None = None) -> tuple[bool, str]:
    """Create a store in `workspace` in a child killed as `where` says (or `after` seconds after
    it is ready); (killed, what it printed)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(workspace), where], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=child_env())
    first = proc.stdout.readline()
    if after is not None and first == "ready\n":
        kill_after(proc, after)
    out, err = proc.communicate(timeout=120)
    return proc.returncode == -signal.SIGKILL, first + out + err


def check_after_kill(workspace: Path) -> str:
    """No store, or a whole one; the next open makes or uses it and leaves no temp file. Returns
    what the kill left: "none" or "store"."""
    db = workspace / ".agent" / "agent.db"
    left = "store" if db.exists() else "none"
    if left == "store":  # linked only once whole: a sound, current, empty store
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert con.execute("SELECT COUNT(*) FROM session").fetchone()[0] == 0
        finally:
            con.close()
    with AgentStore.open(workspace) as store:  # the next writer goes on
        store.start_task(store.start_session("after the crash"), "next")
    with AgentStore.open(workspace, readonly=True) as store:
        assert [s.title for s in store.sessions()] == ["after the crash"]
    assert stray_temps(workspace) == []
    return left

