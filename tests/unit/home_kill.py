"""kill -9 of memtui's writes into an agent's home (Claude Code, Codex) — `memtui restore` of
archived sessions and `memtui cleanup --archive/--delete` — at a hook point or a moment; then
the checks a user would notice: every file of the home is at its path with its bytes, mtime
and mode, or (archive) verified in a committed archive, or (delete) gone as asked; the re-run
finishes; no temp file stays in the home or the archive; nothing outside the confirmed
action changed. Used by tests/unit/test_home_kill.py (fast slice) and
tests/reliability/test_home_write_kill.py (the long loops)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from kill_points import child_env, kill_after

from memtui.core.cleanup.archive import verify
from memtui.core.cleanup.archive_read import list_archived
from memtui.core.cleanup.manifest import unit_paths

ROOT = Path(__file__).resolve().parents[2]

# Restores every archived session of the home, one after the other; `fsync:N` SIGKILLs itself
# just after the N-th directory fsync of the restore (each file placed, the tar removed, the
# manifest removed: every step of its journal), `fsync:0` only counts them.
RESTORE_CHILD = r"""
import os, signal, sys
from pathlib import Path
import memtui.core.cleanup.restore as restore
from memtui.core.cleanup.archive_read import list_archived
home, archive, where = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
kill_at, seen = int(where.split(":")[1]), [0]
real = restore.fsync_dir
def counted(folder):
    real(folder)
    seen[0] += 1
    if seen[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
restore.fsync_dir = counted
print("ready", flush=True)
for session in sorted({m.id for m in list_archived(archive, home=home)}):
    restore.restore_session(session, archive)
print("done", seen[0], flush=True)
"""


def cleanup_cmd(home: Path, archive: Path, mode: str = "--archive", agent: str = "claude-code") -> list[str]:
    return [sys.executable, "-m", "memtui", "cleanup", str(home), "--agent", agent, mode, "--archive-dir", str(archive),
            "--keep-days", "0", "--keep-last", "0"]


def run_child(cmd: list[str], state: Path, *, after: float | None = None) -> tuple[bool, str]:
    """Run `cmd` (killed `after` s after it started, when given); (killed, output)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=child_env(state), text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if after is not None:
        kill_after(proc, after)
    out, err = proc.communicate(timeout=300)
    return proc.returncode == -signal.SIGKILL, out + err


def restore_in_child(home: Path, archive: Path, state: Path, where: str = "fsync:0") -> tuple[bool, str]:
    return run_child([sys.executable, "-c", RESTORE_CHILD, str(home), str(archive), where], state)


def archived(home: Path, archive: Path) -> dict[str, str]:
    """{original path: sha256} of every file in a committed archive of `home` that verifies."""
    out: dict[str, str] = {}
    for manifest in list_archived(archive, home=home):
        tar, _ = unit_paths(archive, manifest.agent, manifest.unit)
        if not tar.is_file():
            continue  # a manifest without its tar keeps nothing: the file must be in place
        verify(tar, manifest.files)
        out.update({f.path: f.sha256 for f in manifest.files})
    return out


def in_place_or_archived(before: dict, now: dict, kept: dict[str, str], *, deleted_ok: set[str] = frozenset()
                         ) -> list[str]:
    """Problems: a file of `before` (a `cleanup_homes.snapshot`) neither at its path exactly as it
    was nor in `kept` with its bytes (nor among `deleted_ok`); a file that appeared."""
    problems = []
    for path, meta in before.items():
        if meta == ("dir",):
            continue
        if path in now:
            if now[path] != meta:
                problems.append(f"{path}: torn or changed ({meta} → {now[path]})")
        elif kept.get(path) != meta[3] and path not in deleted_ok:
            problems.append(f"{path}: neither at its path nor verified in the archive")
    problems += [f"{p}: appeared" for p, m in now.items() if m != ("dir",) and p not in before]
    return problems
