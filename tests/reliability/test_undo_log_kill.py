"""kill -9 while a transcript store's undo log records rollbacks and removes entries, at
random instants, MEMTUI_UNDO_KILLS times (default 50): every listed undo reads back whole,
and the next write leaves no unused content and no temp file (tests/unit/undo_log_kill.py).

Slow (about a minute): run with `pytest tests/reliability/test_undo_log_kill.py`.
"""

from __future__ import annotations

import os

from tests.unit.undo_log_kill import kill_trial

TRIALS = int(os.environ.get("MEMTUI_UNDO_KILLS", "50"))


def test_kill_9_at_random_instants(tmp_path):
    for seed in range(TRIALS):
        kill_trial(tmp_path / str(seed), 1000 + seed)
