"""kill -9 of `memtui curate` (deleting RA.Aid key facts/snippets, a write into another agent's
store the user confirmed) as its N-th SQL statement on RA.Aid's database is about to run (a hook
in SQLite's trace callback; the real statements run up to there). Then: both items or neither
are gone (one transaction), everything else reads as before, the database is sound, the re-run
deletes them, and only pk.db is left once it is done (used by tests/unit/test_curate_kill.py
and tests/reliability/test_syscall_kill_all.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from kill_points import child_env
from memtui.core.sqlite_readonly import connect_readonly

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "ra_aid_project"
ARGS = ["--fact", "1", "--snippet", "1", "--yes"]

CHILD = r"""
import sys
import memtui.core.agents.ra_aid.curate as ra_aid
from kill_points import kill_at_statement
kill_at, seen = int(sys.argv[2]), [0]
real = ra_aid.connect_readwrite
def traced(path):
    conn = real(path)
    kill_at_statement(conn, kill_at, seen)
    return conn
ra_aid.connect_readwrite = traced
from memtui.cli import main
code = main(["curate", sys.argv[1], *sys.argv[3:]])
print("statements", seen[0], flush=True)
sys.exit(code)
"""


def curate_in_child(project: Path, kill_at: int) -> tuple[bool, str]:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(project), str(kill_at), *ARGS], cwd=ROOT, text=True,
                          capture_output=True, env=child_env(), timeout=120)
    return proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr


def rows(db: Path) -> dict[str, list]:
    """What memtui reads from RA.Aid's database (through its own read-only connection, which
    leaves no side file), after the integrity check."""
    con = connect_readonly(db)
    con.row_factory = None
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY id").fetchall()
                for t in ("key_fact", "key_snippet", "research_note", "human_input", "trajectory")}
    finally:
        con.close()


def curate_trial(tmp: Path, kill_at: int) -> str:
    """Kill at statement `kill_at` (0: never, returns the statement count); check; re-run; check.
    What the kill left: "old" or "new"."""
    project = shutil.copytree(FIXTURE, tmp / f"p{kill_at}")
    db = project / ".ra-aid" / "pk.db"
    old = rows(db)
    new = {**old, "key_fact": [r for r in old["key_fact"] if r[0] != 1],
           "key_snippet": [r for r in old["key_snippet"] if r[0] != 1]}
    assert new != old
    killed, out = curate_in_child(project, kill_at)
    if kill_at == 0:
        assert not killed and rows(db) == new, out
        assert sorted(os.listdir(db.parent)) == ["pk.db"]
        return out.split()[-1]
    assert killed, out
    now = rows(db)
    assert now in (old, new), "a torn curate: some items deleted, not all"
    left = "old" if now == old else "new"
    again, out = curate_in_child(project, 0)
    assert not again and rows(db) == new, out
    assert sorted(os.listdir(db.parent)) == ["pk.db"]  # SQLite's log of the killed run went with the re-run
    return left
