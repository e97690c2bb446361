"""kill -9 of a memtui command at its N-th file-system call: the child wraps the os functions
that change files (and `open` for writing) so that it SIGKILLs itself just before the N-th of
them runs — nothing of memtui is replaced, the real calls run up to there. Counting them in a run
that is not killed gives every point a test can stop at; then, for each point:

- every file under the watched folders holds its bytes from before the command or from after an
  uninterrupted run (or is absent where it was absent in one of them): never a torn file;
- no file appears in a folder the command has no business writing to (an agent's home);
- the same command run again finishes (exit 0, or `done` says the job is done) and leaves the
  state of an uninterrupted run, and no memtui temp file stays in any watched folder.

SQLite's own writes happen in C below these calls (the store's kill tests trace its statements
instead: test_store_create_kill, test_store_upgrade, tests/reliability/trials)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kill_points import child_env, stray_temps


CHILD = r"""
import builtins, io, json, os, signal, sys
kill_at, argv = int(sys.argv[1]), json.loads(sys.argv[2])
seen = [0]
WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

def point():
    seen[0] += 1
    if seen[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)

def hook(module, name, counts=lambda *a, **k: True):
    real = getattr(module, name)
    def hooked(*args, **kwargs):
        if counts(*args, **kwargs):
            point()
        return real(*args, **kwargs)
    setattr(module, name, hooked)

for name in ("write", "fsync", "fdatasync", "replace", "rename", "link", "symlink", "unlink", "remove", "rmdir",
             "mkdir", "makedirs", "chmod", "fchmod", "utime", "truncate", "ftruncate"):
    if hasattr(os, name):
        hook(os, name)
hook(os, "open", lambda path, flags, *a, **k: bool(flags & WRITING))
def writes(file, mode="r", *a, **k):
    return any(c in mode for c in "wxa+")
hook(builtins, "open", writes)
hook(io, "open", writes)
print("ready", flush=True)
if isinstance(argv, dict):  # a few lines of library calls instead of a command
    exec(argv["code"], {"__name__": "__main__"})
    code = 0
else:
    from memtui.cli import main
    code = main(argv)
print("points", seen[0], flush=True)
sys.exit(code)
"""


@dataclass
class World:
    """A command and where it may write. `build(root)` makes the world under `root` and returns
    the argv of `memtui` (its paths inside root), or {"code": "..."}: Python to run instead."""

    name: str
    build: Callable[[Path], list[str]]
    writes: tuple[str, ...]  # folders under root the command may change
    watched: tuple[str, ...] = ()  # folders under root it must leave exactly as they were
    again: Callable[[Path, list[str]], list[str] | None] = lambda root, argv: argv  # the re-run (None: none needed)
    ignore: Callable[[str], bool] = lambda rel: False  # files named differently run to run (compared as present)
    normalize: Callable[[bytes], bytes] = lambda data: data  # drops what differs run to run (a time written)
    env: dict[str, str] = field(default_factory=dict)


def env(root: Path, world: World) -> dict[str, str]:
    return {**child_env(root), **world.env}


def run_at(root: Path, world: World, argv: list[str], kill_at: int) -> tuple[bool, int, str]:
    """(killed, the points counted when not killed, output)."""
    proc = subprocess.run([sys.executable, "-c", CHILD, str(kill_at), json.dumps(argv)], cwd=root, env=env(root, world),
                          capture_output=True, text=True, timeout=300)
    killed = proc.returncode == -signal.SIGKILL
    words = proc.stdout.split()
    points = int(words[-1]) if not killed and len(words) >= 2 and words[-2] == "points" else -1
    if not killed and proc.returncode != 0:
        raise AssertionError(f"{world.name}: exit {proc.returncode}: {proc.stdout[-800:]} {proc.stderr[-800:]}")
    return killed, points, proc.stdout + proc.stderr


def files(root: Path, folders: tuple[str, ...], normalize: Callable[[bytes], bytes] = lambda data: data
          ) -> dict[str, str]:
    """{path relative to root: sha256 of its normalized bytes} of the files under `folders`
    (hidden ones included)."""
    out = {}
    for folder in folders:
        for d, _dirs, names in os.walk(root / folder):
            for n in names:
                p = Path(d) / n
                if p.is_file() and not p.is_symlink():
                    out[p.relative_to(root).as_posix()] = hashlib.sha256(normalize(p.read_bytes())).hexdigest()
    return out


def fingerprint(root: Path, folders: tuple[str, ...]) -> dict[str, tuple]:
    """Bytes, size, mode and mtime of every file under `folders`: what "untouched" means."""
    out = {}
    for folder in folders:
        for d, _dirs, names in os.walk(root / folder):
            for n in names:
                p = Path(d) / n
                st = p.lstat()
                out[p.relative_to(root).as_posix()] = (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file()
                                                       else None, st.st_size, st.st_mode, st.st_mtime_ns)
    return out


def fresh(tmp: Path) -> Path:
    """The one folder every run of a test is built in (absolute paths in what a command writes,
    such as the export's workspace line or the undo folder's key, are then the same)."""
    root = tmp / "w"
    if root.exists():
        shutil.rmtree(root)
    return root


def count_points(tmp: Path, world: World) -> tuple[int, dict[str, str]]:
    """Run the command once, not killed: (its points, the files it leaves)."""
    root = fresh(tmp)
    argv = world.build(root)
    killed, points, out = run_at(root, world, argv, 0)
    assert not killed and points > 0, out
    return points, files(root, world.writes, world.normalize)


def _folders(names) -> set[str]:
    return {k.rsplit("/", 1)[0] for k in names}


def trial(tmp: Path, world: World, kill_at: int, after: dict[str, str]) -> list[str]:
    """Kill the command at point `kill_at`, check, re-run, check; the problems found."""
    root = fresh(tmp)
    argv = world.build(root)
    before = files(root, world.writes, world.normalize)
    untouched = fingerprint(root, world.watched)
    killed, _points, out = run_at(root, world, argv, kill_at)
    problems = [] if killed else [f"not killed at point {kill_at}: {out[-300:]}"]
    now = files(root, world.writes, world.normalize)
    for rel in sorted(set(before) | set(after) | set(now)):
        if ".memtui-tmp" in rel:
            continue
        if world.ignore(rel):
            if rel in now and rel not in before and rel.rsplit("/", 1)[0] not in _folders(filter(world.ignore, after)):
                problems.append(f"{rel}: appeared")
            continue
        if now.get(rel) not in (before.get(rel), after.get(rel)):
            problems.append(f"{rel}: neither as before nor as after (torn or lost)")
    if fingerprint(root, world.watched) != untouched:
        problems.append(f"a folder it must not touch changed: {world.watched}")
    again = world.again(root, argv)
    if again is not None:
        run_at(root, world, again, 0)
    final = files(root, world.writes, world.normalize)
    keys = {k for k in final if not world.ignore(k)} | {k for k in after if not world.ignore(k)}
    wrong = [k for k in sorted(keys) if final.get(k) != after.get(k) and ".memtui-tmp" not in k]
    # Files named by the time they were written: the same folders hold them as after a clean run.
    wrong += sorted(_folders(filter(world.ignore, final)) ^ _folders(filter(world.ignore, after)))
    problems += [f"{k}: not as an uninterrupted run leaves it after the re-run" for k in wrong]
    problems += [f"stray temp file after the re-run: {t}" for t in stray_temps(root)]
    if fingerprint(root, world.watched) != untouched:
        problems.append(f"the re-run changed a folder it must not touch: {world.watched}")
    return problems
