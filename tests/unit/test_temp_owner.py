"""A pid-named temp file or folder goes when its process is gone, never by age: a live memtui
keeps its temp folder however old (an archived-session view open for hours, a big demo being
built); a pid reused by a process started after the entry was made does not keep it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.atomic import remove_stale_temp_dirs, remove_stale_temps
from kill_points import child_env

HOURS = 5 * 3600.0


def aged(path: Path, seconds: float) -> Path:
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def planted(folder: Path, pid: int, age: float = HOURS) -> tuple[Path, Path]:
    """A temp folder (with a file in it) and a temp file named by `pid`, last modified `age` ago."""
    tree = folder / f".view.{pid}-1a2b3c4d.memtui-tmpdir"
    (tree / "deep").mkdir(parents=True)
    (tree / "deep" / "session.jsonl").write_bytes(b"{}\n")
    aged(tree / "deep", age)
    aged(tree, age)
    file = folder / f".MEMORY.md.{pid}-1a2b3c4d.memtui-tmp"
    file.write_bytes(b"a write under way")
    aged(file, age)
    return tree, file


def sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])


def test_a_live_process_keeps_its_hours_old_temps_and_they_go_once_it_is_gone(tmp_path):
    child = sleeper()
    try:
        tree, file = planted(tmp_path, child.pid)
        assert remove_stale_temp_dirs(tmp_path) == [] and remove_stale_temps(tmp_path) == []
        assert (tree / "deep" / "session.jsonl").read_bytes() == b"{}\n" and file.exists()
    finally:
        child.kill()
        child.wait()
    assert remove_stale_temp_dirs(tmp_path) == [tree] and remove_stale_temps(tmp_path) == [file]
    assert sorted(os.listdir(tmp_path)) == []


def test_a_killed_process_not_yet_reaped_holds_nothing(tmp_path):
    child = sleeper()
    try:
        tree, file = planted(tmp_path, child.pid, age=0)  # young: only the pid tells it is gone
        child.kill()
        deadline = time.monotonic() + 30
        while Path(f"/proc/{child.pid}").exists() and "Z" not in _state(child.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert remove_stale_temp_dirs(tmp_path) == [tree] and remove_stale_temps(tmp_path) == [file]
    finally:
        child.wait()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


REUSED = r"""
import json, os, subprocess, sys, time
from pathlib import Path
from memtui.core.atomic import remove_stale_temp_dirs, remove_stale_temps
folder = Path(sys.argv[1])
# Alone in a new pid namespace: the next process started gets the next pid.
pid = int(Path("/proc/sys/kernel/ns_last_pid").read_text()) + 1
before = [folder / f".view.{pid}-1a2b3c4d.memtui-tmpdir", folder / f".x.{pid}-1a2b3c4d.memtui-tmp"]
before[0].mkdir()
before[1].write_bytes(b"left by a process killed before this pid was given again")
time.sleep(2.5)  # START_SLACK and the boot second the start is read to
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
try:
    assert child.pid == pid, (child.pid, pid)
    after = [folder / f".view.{pid}-5e6f7a8b.memtui-tmpdir", folder / f".x.{pid}-5e6f7a8b.memtui-tmp"]
    after[0].mkdir()
    after[1].write_bytes(b"the live process's own")
    removed = remove_stale_temp_dirs(folder) + remove_stale_temps(folder)
    print(json.dumps({"removed": sorted(p.name for p in removed), "left": sorted(os.listdir(folder))}))
finally:
    child.kill()
    child.wait()
"""


def test_a_reused_pid_does_not_keep_what_the_dead_process_left(tmp_path):
    unshare = shutil.which("unshare")
    probe = unshare and subprocess.run([unshare, "-Urpf", "--mount-proc", "true"], capture_output=True)
    if not probe or probe.returncode != 0:
        pytest.skip("no unprivileged pid namespace here (unshare -Urpf): a pid cannot be made to be reused")
    run = subprocess.run([unshare, "-Urpf", "--mount-proc", sys.executable, "-c", REUSED, str(tmp_path)],
                         capture_output=True, text=True, timeout=120, env=child_env())
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout.splitlines()[-1])
    pid = seen["left"][0].split(".")[-2].split("-")[0]
    assert seen["removed"] == [f".view.{pid}-1a2b3c4d.memtui-tmpdir", f".x.{pid}-1a2b3c4d.memtui-tmp"]
    assert seen["left"] == [f".view.{pid}-5e6f7a8b.memtui-tmpdir", f".x.{pid}-5e6f7a8b.memtui-tmp"]
