"""kill -9 of a process writing a transcript store's undo log (rollbacks recorded, entries
removed), at a random instant; then the checks a user would notice: every undo listed reads
back whole, and after the next write no content that no entry uses and no temp file stays."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from kill_points import child_env, stray_temps
from memtui.core.sources.transcript_undo import BLOB_NAME, UndoLog


WRITER = r"""
import random, sys
from memtui.core.sources.transcript_undo import UndoLog
log = UndoLog("claude-code", sys.argv[1], folder=sys.argv[2])
rng = random.Random(int(sys.argv[3]))
print("ready", flush=True)
for n in range(10_000):
    files = {f"f{i}.txt": (rng.randbytes(rng.choice((10, 50_000))) if rng.random() < 0.8 else None,
                           b"shared %d\n" % rng.randrange(3)) for i in range(rng.randrange(1, 6))}
    undo = log.record(f"task-{n}", files, "rollback")
    log.remove_entries(undo, [p for p in files if rng.random() < 0.5])
"""


def kill_trial(tmp: Path, seed: int) -> None:
    """One writer killed at a random instant, then the checks (AssertionError on a failure)."""
    rng = random.Random(seed)
    workspace, state = tmp / "ws", tmp / "state"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(workspace), str(state), str(seed)], env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"ready\n", proc.stderr.read()
        time.sleep(rng.uniform(0.0, 0.4))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    log = UndoLog("claude-code", workspace, folder=state)
    for info in log.newest(10_000):  # what is listed is whole: each entry reads back
        for entry in log.entries(info.id):
            log.read(entry.id)
    log.record("after", {"x.txt": (None, b"x\n")}, "rollback")  # the next write finishes the job
    named = {name for info in log.newest(10_000) for e in log.entries(info.id) for name in _names(log, e.id)}
    stored = {p.name for p in (log.folder / "blobs").iterdir()}
    assert {n for n in stored if BLOB_NAME.fullmatch(n)} == named, "a content no entry uses was left"
    assert stray_temps(log.folder) == []


def _names(log: UndoLog, entry_id: str) -> list[str]:
    import hashlib

    return [hashlib.sha256(side).hexdigest() for side in log.read(entry_id) if side is not None]
