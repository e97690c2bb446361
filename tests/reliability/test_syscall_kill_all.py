"""kill -9 just before every file-system call of file-writing commands (tests/unit/syscall_kill.py
and syscall_worlds.py): export md/html/json, decisions --add, memory-history --restore, pin of a
Claude Code session, rollback of a Claude Code task (its home watched: untouched), archived sessions
unpacked for browsing, the app's settings, the demo (into a new folder, and --force over an
earlier one); and every SQL statement of curate on RA.Aid's database."""

from __future__ import annotations

import pytest

import harness as h
from syscall_kill import count_points, trial
from syscall_worlds import WORLDS


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_kill_before_every_file_system_call(tmp_path, name):
    world = WORLDS[name]
    points, after = count_points(tmp_path, world)
    tally = h.tally(f"{name} (each of {points} calls)")
    failures = []
    for n in range(1, points + 1):
        problems = trial(tmp_path, world, n, after)
        failures += [f"point {n}: {p}" for p in problems]
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += not any("re-run" in p for p in problems)
        tally.stray += sum("stray temp" in p for p in problems)
        tally.torn += sum("torn" in p for p in problems)
    assert failures == [], "\n".join(failures[:20])


def test_the_checks_see_a_torn_file_and_a_written_home(tmp_path):
    """The planted faults: a document cut in half, a file written into the watched home."""
    world = WORLDS["rollback (a Claude Code task)"]
    points, after = count_points(tmp_path, world)
    torn = dict(after, **{"spotter/keep.txt": "0" * 64})
    assert any("keep.txt" in p for p in trial(tmp_path, world, points // 2, torn))
    build = world.build

    def writes_home(root):
        argv = build(root)
        (root / "claude" / "settings.json").write_text("{}")
        return argv

    from dataclasses import replace

    planted = replace(world, build=writes_home, again=lambda root, argv: (root / "claude" / "x").write_text("") or None)
    assert any("must not touch" in p for p in trial(tmp_path, planted, points // 2, after))


@pytest.mark.parametrize("case", ["new folder", "--force", "--force, old folder aside", "no PATH"])
def test_kill_before_every_file_system_call_of_the_demo(tmp_path, case):
    from demo_kill import ASIDE_WORLD, FORCE_WORLD, TEMPORARY, WORLD, demo_trial, temporary_trial, uninterrupted

    world = {"new folder": WORLD, "--force": FORCE_WORLD, "--force, old folder aside": ASIDE_WORLD,
             "no PATH": TEMPORARY}[case]
    points, whole = uninterrupted(tmp_path, world)
    tally = h.tally(f"{world.name} (each of {points} calls)")
    left = {"none": 0, "old": 0, "whole": 0}
    for n in range(1, points + 1):
        trial = temporary_trial(tmp_path, n, whole) if world is TEMPORARY else demo_trial(tmp_path, n, whole, world)
        left[trial] += 1  # asserts the checks
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += 1
    tally.notes.append(f"left {left}")
    assert left["whole"] and (left["old"] or world in (WORLD, TEMPORARY))  # kills landed on both sides of the swap


def test_kill_at_every_statement_of_a_curate(tmp_path):
    from curate_kill import curate_trial

    statements = int(curate_trial(tmp_path, 0))
    assert statements > 0  # the statement count works: else no kill would be tried
    tally = h.tally(f"curate RA.Aid (each of {statements} statements)")
    left = {"old": 0, "new": 0}
    for n in range(1, statements + 1):
        left[curate_trial(tmp_path, n)] += 1  # asserts the checks
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += 1
    tally.notes.append(f"left {left}")
