"""kill -9 while the persistent index of an agent's home is written (memtui.core.sources.part_store):
a child runs `memtui log HOME --json` and kills itself after its n-th part is kept, or at the
rename that puts a build from nothing in place; the next run must print what a run without any
index prints, leave no temporary file, and keep an index the run after reads nothing from."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from kill_points import stray_temps

CHILD = textwrap.dedent("""
    import os, signal, sys
    import memtui.core.sources.part_store as store
    home, kill_after = sys.argv[1], int(sys.argv[2])
    store.BATCH = 2  # an update in place commits every two parts: kills land between batches too
    real_put, real_replace, seen = store.PartStore.put, store.os.replace, [0]
    def put(self, *args):
        real_put(self, *args)
        seen[0] += 1
        if seen[0] == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
    def replace(*args):
        if kill_after == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        real_replace(*args)
    store.PartStore.put = put
    store.os.replace = replace
    from memtui.cli import main
    sys.exit(main(["log", home, "--json"]))
""")


def run_log(home: Path, cache: Path, kill_after: int | None = None) -> subprocess.CompletedProcess:
    """`memtui log HOME --json` in a child whose cache folder is `cache` (killed after its
    `kill_after`-th part is kept, at the rename when 0; None: not killed)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    argv = ([sys.executable, "-c", CHILD, str(home), str(kill_after)] if kill_after is not None
            else [sys.executable, "-m", "memtui", "log", str(home), "--json"])
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)


def touch_all(home: Path) -> None:
    """Every transcript gets a new mtime (same bytes): the next run reads each again, updating
    the index in place."""
    for path in home.rglob("*.jsonl"):
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def kill_trial(home: Path, cache: Path, expected: str, kill_after: int, *, update: bool = False) -> bool:
    """One kill -9 (during a build from nothing, or an update in place when `update`), then the
    checks; whether the child was killed (False: it finished before its kill point)."""
    if update:
        assert run_log(home, cache).returncode == 0
        touch_all(home)
    child = run_log(home, cache, kill_after)
    killed = child.returncode == -9
    assert killed or (child.returncode == 0 and child.stdout == expected), child.stderr
    again = run_log(home, cache)
    assert again.returncode == 0, again.stderr
    assert again.stdout == expected
    assert stray_temps(cache) == []
    return killed


def cut_home(home: Path, share: float = 0.6) -> dict[Path, bytes]:
    """Each session transcript cut to its first `share` of lines (as it was earlier in the
    session); the whole bytes returned, to give the rest back with `grow_back`."""
    whole = {}
    for path in sorted(home.glob("projects/*/*.jsonl")):
        whole[path] = path.read_bytes()
        path.write_bytes(cut_bytes(whole[path], share))
    return whole


def grow_back(whole: dict[Path, bytes]) -> None:
    """Each cut transcript given its remaining lines, appended as the agent wrote them."""
    for path, data in whole.items():
        now = path.stat().st_size
        with path.open("ab") as out:
            out.write(data[now:])


def grown_kill_trial(home: Path, whole: dict[Path, bytes], cache: Path, expected: str, kill_after: int) -> bool:
    """The index built over the cut home, every transcript grown back, then kill -9 after the
    `kill_after`-th part parsed on from its cursor is kept; the next run must print `expected`
    (a run without any index over the whole home) and leave no temporary file. Whether the
    child was killed."""
    for path, data in whole.items():  # cut again (this trial's cache is new: it parses it whole)
        path.write_bytes(cut_bytes(data))
    assert run_log(home, cache).returncode == 0
    grow_back(whole)
    child = run_log(home, cache, kill_after)
    killed = child.returncode == -9
    assert killed or (child.returncode == 0 and child.stdout == expected), child.stderr
    again = run_log(home, cache)
    assert again.returncode == 0, again.stderr
    assert again.stdout == expected
    assert stray_temps(cache) == []
    return killed


def cut_bytes(data: bytes, share: float = 0.6) -> bytes:
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: max(1, int(len(lines) * share))])
