"""Shared parts of the reliability harness: running a memtui operation in a child process and
killing it with SIGKILL, the checks a trial must pass, and the figures the run reports.

Every check here is also run against a planted fault (tests/reliability/test_checks_fail.py
and the fast slice in tests/unit/test_reliability_slice.py) so a check that cannot fail is
noticed.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
UNIT = ROOT / "tests" / "unit"  # shared fixtures (gc_fixtures, cleanup_homes)
if str(UNIT) not in sys.path:
    sys.path.append(str(UNIT))

from kill_points import child_env, stray_temps  # noqa: E402  (trials call h.stray_temps)


# ------------------------------------------------------------------------------- figures
@dataclass
class Tally:
    """One row of the report: a kind of trial and what its trials found."""

    name: str
    trials: int = 0
    mid: int = 0  # trials killed while the operation was under way (not before, not after)
    lost: int = 0
    torn: int = 0
    reruns: int = 0
    reruns_ok: int = 0
    stray: int = 0  # temp files still there after the next operation
    notes: list[str] = field(default_factory=list)

    def row(self) -> str:
        rerun = f"{100 * self.reruns_ok / self.reruns:.0f}%" if self.reruns else "—"
        return (f"| {self.name} | {self.trials} ({self.mid} mid-operation) | {self.lost} | {self.torn} | {rerun} "
                f"| {self.stray} |" + (" " + "; ".join(self.notes) if self.notes else ""))


TALLIES: dict[str, Tally] = {}
LINES: list[str] = []  # other figures (writer waits, fuzz counts, side files)


def tally(name: str) -> Tally:
    return TALLIES.setdefault(name, Tally(name))


def report(line: str) -> None:
    LINES.append(line)


def summary() -> str:
    out = []
    if TALLIES:
        out += ["| kill -9 during | trials | lost | torn | re-run finished | stray temp files |",
                "|---|---|---|---|---|---|"]
        out += [t.row() for t in TALLIES.values()]
    out += LINES
    return "\n".join(out)


# ------------------------------------------------------------------------------- children
def python() -> list[str]:
    return [sys.executable]


def env() -> dict[str, str]:
    e = child_env(paths=(HERE, UNIT))
    e.pop("COLUMNS", None)
    return e


def memtui(*args: str) -> list[str]:
    return [sys.executable, "-m", "memtui", *map(str, args)]


def run(cmd: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, env=env(), timeout=timeout)


def run_killed(cmd: list[str], after: float, *, ready_marker: str | None = None,
               timeout: float = 120) -> tuple[int | None, str]:
    """Start `cmd`, SIGKILL it `after` seconds after it printed `ready_marker` on stdout (or
    after start); (exit code if it finished first, else None; what it printed)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env(), text=True)
    lines = Lines(proc)
    if ready_marker is not None:
        lines.wait_for(ready_marker, timeout)
    time.sleep(after)
    code = proc.poll()
    if code is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=timeout)
    return (code if code is not None else None), lines.text()


class Lines:
    """A child's stdout, read line by line on a thread (so nothing buffered is lost)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self._lines: list[str] = []
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._pump, args=(proc,), daemon=True)
        self._thread.start()

    def _pump(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self._cond:
                self._lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self._lines.append("")  # EOF
            self._cond.notify_all()

    def wait_for(self, marker: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self._lines:
                    if marker in line or line == "":
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {marker!r} from the child")
                self._cond.wait(left)

    def text(self) -> str:
        self._thread.join(timeout=30)
        with self._cond:
            return "".join(self._lines)


def whole_lines(out: str) -> list[str]:
    """The lines a killed child printed in full (the kill may cut the last one short)."""
    return out.split("\n")[:-1]


def timed(cmd: list[str]) -> float:
    t0 = time.monotonic()
    done = run(cmd)
    assert done.returncode == 0, done.stderr[-2000:]
    return time.monotonic() - t0


# ------------------------------------------------------------------------------- checks
def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def db_checks(db: Path) -> list[str]:
    """Problems `PRAGMA integrity_check` and `foreign_key_check` report ([] when sound)."""
    conn = sqlite3.connect(db)
    try:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
        problems += [f"foreign key: {r}" for r in conn.execute("PRAGMA foreign_key_check")]
    finally:
        conn.close()
    return problems


def entry_hashes(db: Path) -> dict[int, tuple[str | None, str | None]]:
    """Every checkpoint entry's (before, after) content hash, read through the library."""
    from memtui.core.store import AgentStore

    conn = sqlite3.connect(db)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM checkpoint_entry ORDER BY id")]
    finally:
        conn.close()
    with AgentStore.open(db, readonly=True) as store:
        return {i: tuple(sha(x) for x in store.read_entry(i)) for i in ids}


def task_shapes(db: Path) -> dict[int, tuple[int, int, int, bool]]:
    """Per task: (steps, checkpoints, entries, collected)."""
    conn = sqlite3.connect(db)
    try:
        return {r[0]: (r[1], r[2], r[3], r[4] is not None) for r in conn.execute(
            "SELECT t.id, (SELECT COUNT(*) FROM step s WHERE s.task_id = t.id),"
            " (SELECT COUNT(*) FROM checkpoint c WHERE c.task_id = t.id),"
            " (SELECT COUNT(*) FROM checkpoint_entry e JOIN checkpoint c ON c.id = e.checkpoint_id"
            "  WHERE c.task_id = t.id), t.collected_at FROM task t")}
    finally:
        conn.close()


def whole_or_collected(before: dict, after: dict) -> list[str]:
    """Tasks that are neither as they were nor fully collected (a torn task)."""
    torn = []
    for task, shape in before.items():
        now = after.get(task)
        if now is None:
            torn.append(f"task {task} vanished")
        elif now != shape and not (now[3] and now[:3] == (0, 0, 0)):
            torn.append(f"task {task}: {shape} → {now}")
    return torn


@dataclass(frozen=True)
class Fingerprint:
    """Every file under a folder: bytes hash, size and mtime (ns)."""

    files: dict[str, tuple[str, int, int]]

    @classmethod
    def of(cls, root: Path) -> "Fingerprint":
        out = {}
        for p in sorted(Path(root).rglob("*")):
            if p.is_file() and not p.is_symlink():
                st = p.stat()
                out[p.relative_to(root).as_posix()] = (sha(p.read_bytes()), st.st_size, st.st_mtime_ns)
        return cls(out)

    def changes(self, other: "Fingerprint") -> list[str]:
        """What differs from `other`, a later fingerprint: created, removed, changed files."""
        out = [f"created {k}" for k in other.files.keys() - self.files.keys()]
        out += [f"removed {k}" for k in self.files.keys() - other.files.keys()]
        out += [f"changed {k}" for k in self.files.keys() & other.files.keys() if self.files[k] != other.files[k]]
        return sorted(out)


def kill_points(n: int, span: float, seed: int) -> list[float]:
    """`n` kill delays spread over [0, span]: stratified, so the whole run is covered."""
    rnd = random.Random(seed)
    return [span * (i + rnd.random()) / n for i in range(n)]
