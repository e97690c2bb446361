"""kill -9 during `memtui push`, at MEMTUI_TRIALS (default 30) instants spread over a whole push:
the next push finishes it, and the team store then holds exactly what one uninterrupted push
writes — no session torn (a killed session's transaction leaves nothing) or doubled — and passes
the integrity checks in SQL. Needs PostgreSQL (skipped, saying why, without it).

    pytest tests/reliability/test_team_push_kill.py -s
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

UNIT = Path(__file__).resolve().parents[1] / "unit"
if str(UNIT) not in sys.path:
    sys.path.insert(0, str(UNIT))

import harness as h  # noqa: E402
from conftest import TRIALS  # noqa: E402
from team_machines import build_machines  # noqa: E402
from team_push_support import integrity, push_process, sessions  # noqa: E402
from test_team_push import kill_trial  # noqa: E402

from memtui.core.team.push import push  # noqa: E402


def test_kill_during_push_then_rerun_finishes(tmp_path, pg_cluster):
    laptop = build_machines(tmp_path / "machines")[0]
    url = pg_cluster.new_database()
    started = time.monotonic()
    proc = push_process(laptop, url)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    full = time.monotonic() - started
    expected = sessions(url)
    tally = h.tally("push")
    problems_seen: list[str] = []
    for trial in range(TRIALS):
        url = pg_cluster.new_database()
        kill_trial(laptop, url, full * (trial + 0.5) / TRIALS)
        try:
            between = sessions(url)
        except Exception:  # noqa: BLE001 - killed before the store was made
            between = []
        tally.mid += 0 < len(between) and between != expected  # some sessions in, not all
        push(laptop.paths, url, machine=laptop.name, env=laptop.env)
        problems = integrity(url)
        tally.trials += 1
        tally.reruns += 1
        if not problems and sessions(url) == expected:
            tally.reruns_ok += 1
        else:
            tally.torn += 1
            problems_seen.append(f"trial {trial}: {problems or 'sessions differ from one whole push'}")
    h.report(f"push: {TRIALS} kills over a {full:.1f} s push, {tally.mid} mid-way; each finished by the next push")
    assert problems_seen == []
    assert tally.reruns_ok == TRIALS
    assert tally.mid > 0  # the kills did land mid-way (otherwise this proves nothing)
