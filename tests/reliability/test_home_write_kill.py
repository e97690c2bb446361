"""kill -9 of memtui's confirmed writes into an agent's home: `memtui restore` at every step of
its journal and at moments; `memtui cleanup --archive` of a Codex home and `cleanup --delete` of
a Claude Code home at moments spread over their runs. Every file is in place (bytes, mtime,
mode) or verified in the archive (or, for --delete, one the plan let go); the re-run finishes;
no temp file stays in the home or the archive. (Claude Code --archive: test_cleanup_kill.py.)
`cleanup --archive` of a Gemini CLI home after every directory fsync of its journal."""

from __future__ import annotations

import shutil
import time

import harness as h
import pytest
from cleanup_homes import build_bulky_claude_home, build_codex_home, snapshot
from conftest import TRIALS
from home_kill import archived, cleanup_cmd, in_place_or_archived, run_child
from kill_points import stray_temps
from test_home_kill import restore_kill_trial

from memtui.core.cleanup.archive_read import list_archived


def test_kill_at_every_step_of_restores(tmp_path, capsys):
    steps = restore_kill_trial(tmp_path / "all", 0, sessions=2)[2]
    tally = h.tally(f"restore (each of {steps} journal steps)")
    for n in range(1, steps + 1):
        killed, _out, _ = restore_kill_trial(tmp_path / f"k{n}", n, sessions=2)  # asserts the checks
        tally.trials += 1
        tally.mid += killed
        tally.reruns += 1
        tally.reruns_ok += 1


def _cleanup_trials(tmp_path, name: str, template, mode: str, agent: str, seed: int) -> None:
    """Timed kills of `memtui cleanup MODE` on copies of the `template` home."""
    probe = tmp_path / "probe"
    shutil.copytree(template, probe / "home", symlinks=True)
    t0 = time.monotonic()
    killed, out = run_child(cleanup_cmd(probe / "home", probe / "archive", mode, agent), probe)
    span = time.monotonic() - t0
    assert not killed, out
    clean = snapshot(probe / "home")
    let_go = {p.replace(str(template), "", 1) for p, m in snapshot(template).items() if m != ("dir",)}
    let_go -= {p.replace(str(probe / "home"), "", 1) for p in clean}
    tally = h.tally(name)
    for i, delay in enumerate(h.kill_points(max(10, TRIALS), span, seed=seed)):
        dest = tmp_path / f"t{i}"
        home, archive = dest / "home", dest / "archive"
        shutil.copytree(template, home, symlinks=True)
        before = snapshot(home)
        gone_ok = {str(home) + p for p in let_go} if mode == "--delete" else set()
        killed, out = run_child(cleanup_cmd(home, archive, mode, agent), dest, after=delay)
        problems = in_place_or_archived(before, snapshot(home), archived(home, archive), deleted_ok=gone_ok)
        again_killed, again = run_child(cleanup_cmd(home, archive, mode, agent), dest)
        now = snapshot(home)
        finished = not again_killed and {p.replace(str(home), "", 1) for p, m in now.items() if m != ("dir",)} == {
            p.replace(str(probe / "home"), "", 1) for p, m in clean.items() if m != ("dir",)}
        problems += in_place_or_archived(before, now, archived(home, archive), deleted_ok=gone_ok)
        stray = stray_temps(home, archive)
        tally.trials += 1
        tally.mid += killed and bool(set(before) - set(now))
        tally.reruns += 1
        tally.reruns_ok += finished
        tally.stray += len(stray)
        assert problems == [] and finished and stray == [], (i, delay, problems[:5], again[-500:], stray)
        if mode == "--archive":
            assert {m.id for m in list_archived(archive, home=home)}


def test_kill_during_codex_home_cleanup_archive(tmp_path):
    template = tmp_path / "template"
    build_codex_home(template)
    _cleanup_trials(tmp_path, "codex home cleanup --archive", template, "--archive", "codex", seed=31)


def test_kill_during_claude_home_cleanup_delete(tmp_path):
    template = tmp_path / "template"
    build_bulky_claude_home(template, sessions=12, kib=64)
    _cleanup_trials(tmp_path, "claude home cleanup --delete", template, "--delete", "claude-code", seed=32)


def test_kill_at_every_step_of_archiving_a_gemini_home(tmp_path):
    from test_gemini_home_kill import CHATS, kill_trial, steps_of_a_run

    if len(CHATS) < 2:
        pytest.skip("no Gemini CLI live fixtures")
    steps = steps_of_a_run(tmp_path)
    tally = h.tally(f"cleanup --archive, Gemini CLI (each of {len(steps)} journal steps)")
    for n in sorted(steps):
        kill_trial(tmp_path, n)  # asserts the checks
        tally.trials += 1
        tally.mid += 1
        tally.reruns += 1
        tally.reruns_ok += 1
