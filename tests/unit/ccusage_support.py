"""The real ccusage (npm), run on a copy of a real home: an independent counter of cost.

ccusage is installed once per machine into a cache folder outside the repository and outside
any home (`$MEMTUI_TEST_CACHE`, default <tmp>/memtui-test-cache), with `npm install --prefix`
and a time limit; without node/npm, or when the install fails, `ccusage()` says why and the
tests skip with that reason. It runs offline (`-O`: the price table bundled in the package),
with HOME, CLAUDE_CONFIG_DIR and CODEX_HOME pointing at the copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

VERSION = "20.0.24"
CACHE = Path(os.environ.get("MEMTUI_TEST_CACHE") or Path(tempfile.gettempdir()) / "memtui-test-cache")


def ccusage() -> tuple[Path | None, str]:
    """(the ccusage executable, "") or (None, why it is not there)."""
    prefix = CACHE / f"ccusage-{VERSION}"
    binary = prefix / "node_modules" / ".bin" / "ccusage"
    if binary.is_file():
        return binary, ""
    import fcntl

    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"ccusage-{VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install at a time (pytest-xdist workers)
        return (binary, "") if binary.is_file() else _install(prefix, binary)


def _install(prefix: Path, binary: Path) -> tuple[Path | None, str]:
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None, "node and npm are needed to run ccusage (apt-get install nodejs npm)"
    prefix.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="npm-home-"))
    try:
        done = subprocess.run(["npm", "install", "--prefix", str(prefix), f"ccusage@{VERSION}", "--no-audit",
                               "--no-fund", "--cache", str(CACHE / "npm-cache")],
                              env={**os.environ, "HOME": str(scratch)}, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, f"npm install ccusage@{VERSION} took over 300 s"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0 or not binary.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"npm install ccusage@{VERSION} failed: {last}"
    return binary, ""


def run(binary: Path, scratch: Path, args: list[str], *, claude: Path | None = None,
        codex: Path | None = None) -> dict:
    """`ccusage ARGS --json -O -z UTC` over the given homes (an empty one for a missing agent)."""
    empty = scratch / "ccusage-empty"
    (empty / "projects").mkdir(parents=True, exist_ok=True)
    (empty / "sessions").mkdir(parents=True, exist_ok=True)
    home = scratch / "ccusage-home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "TZ": "UTC",
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
           "CLAUDE_CONFIG_DIR": str(claude or empty), "CODEX_HOME": str(codex or empty), "NO_COLOR": "1"}
    done = subprocess.run([str(binary), *args, "--json", "-O", "-z", "UTC"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
