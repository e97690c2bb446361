"""memtui.core.file_lock.held: a second process is kept out while the first holds the lock, and
a holder killed with SIGKILL leaves nothing locked."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.file_lock import LockBusy, held

HOLDER = """
import sys, time
from pathlib import Path
from memtui.core.file_lock import held
with held(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(600)
"""


def start_holder(path: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.parametrize("kind", ["folder", "lock file"])
def test_a_second_process_waits_and_a_killed_holder_leaves_no_lock(tmp_path: Path, kind: str) -> None:
    path = tmp_path if kind == "folder" else tmp_path / "pins.json.lock"
    holder = start_holder(path)
    try:
        began = time.monotonic()
        with pytest.raises(LockBusy):
            with held(path, wait=0.3):
                pass
        assert time.monotonic() - began >= 0.3
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with held(path, wait=0):  # the kernel dropped the dead holder's lock
        pass
    if kind == "lock file":
        assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if kind == "folder" else ["pins.json.lock"])
