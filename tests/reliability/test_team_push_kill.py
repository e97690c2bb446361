"""kill -9 during `memtui push`, MEMTUI_TRIALS (default 30) times at moments spread over the
push's writes: the next push finishes it, and the team store then holds exactly what one
uninterrupted push writes — no session torn (a killed session's transaction leaves nothing) or
doubled — and passes the integrity checks in SQL. Needs PostgreSQL (skipped, saying why,
without it).

The kills follow the push's progress on the server, not a clock: trial i waits for k pushed
sessions (k spread from the first to the last), then kills either the moment the push is seen
writing the next session or a few milliseconds later. The figures say where each kill landed.

    pytest tests/reliability/test_team_push_kill.py -s
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

UNIT = Path(__file__).resolve().parents[1] / "unit"
if str(UNIT) not in sys.path:
    sys.path.insert(0, str(UNIT))

import harness as h  # noqa: E402
from conftest import TRIALS  # noqa: E402
from team_machines import build_machines  # noqa: E402
from team_push_support import MID_PUSH, integrity, kill_on_progress, push_process, sessions  # noqa: E402

from memtui.core.team.push import push  # noqa: E402


def kill_moments(trials: int, total: int) -> list[tuple[int, bool, float]]:
    """(sessions in, kill inside the next write, else the delay after them) for each trial:
    half inside a write, after 0 … total-1 sessions; half between, after 1 … total-1 sessions
    and 0-15 ms."""
    moments = []
    for i in range(trials):
        j, half = i // 2, max(1, (trials + 1) // 2)
        if i % 2 == 0:
            moments.append((j * total // half, True, 0.0))
        else:
            moments.append((1 + j * (total - 1) // half, False, 0.005 * (j % 4)))
    return moments


def test_kill_during_push_then_rerun_finishes(tmp_path, pg_cluster):
    laptop = build_machines(tmp_path / "machines")[0]
    url = pg_cluster.new_database()
    proc = push_process(laptop, url)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    expected = sessions(url)
    tally = h.tally("push")
    landed: Counter[str] = Counter()
    problems_seen: list[str] = []
    for trial, (after, in_write, delay) in enumerate(kill_moments(TRIALS, len(expected))):
        url = pg_cluster.new_database()
        where = kill_on_progress(laptop, url, after, in_write=in_write, delay=delay, total=len(expected))
        landed[where] += 1
        tally.mid += where in MID_PUSH
        push(laptop.paths, url, machine=laptop.name, env=laptop.env)
        problems = integrity(url)
        tally.trials += 1
        tally.reruns += 1
        if not problems and sessions(url) == expected:
            tally.reruns_ok += 1
        else:
            tally.torn += 1
            problems_seen.append(f"trial {trial} ({where}): {problems or 'sessions differ from one whole push'}")
    tally.notes.append(", ".join(f"{n} {where}" for where, n in landed.most_common()))
    h.report(f"push: {TRIALS} kills over a push of {len(expected)} sessions: "
             + ", ".join(f"{n} {where}" for where, n in landed.most_common()))
    assert problems_seen == []
    assert tally.reruns_ok == TRIALS
    assert tally.mid >= TRIALS * 2 // 3  # the kills did land mid-way (otherwise this proves nothing)
