"""The real agentsview (PyPI: a Go program in a wheel), the peer the heavy-home bench sets memtui's
warm runs beside: its `sync` keeps a SQLite archive of every agent home it finds and, warm,
checks the homes for what changed.

agentsview is installed once per machine into its own virtual environment in a cache folder
outside the repository and outside any home (`$MEMTUI_TEST_CACHE`, default
<tmp>/memtui-test-cache), with a time limit; when pip cannot install it, `agentsview()` says why
and the bench prints that instead of its rows. It runs one-shot (`AGENTSVIEW_NO_DAEMON=1`: no
background server is left), with HOME (where it keeps its archive, ~/.agentsview), the XDG
folders and CODEX_HOME in a scratch folder and CLAUDE_CONFIG_DIR at the home measured, so it
reads that home alone and writes nothing into it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

VERSION = "0.46.1"
CACHE = Path(os.environ.get("MEMTUI_TEST_CACHE") or Path(tempfile.gettempdir()) / "memtui-test-cache")


def agentsview() -> tuple[Path | None, str]:
    """(the agentsview executable, "") or (None, why it is not there)."""
    prefix = CACHE / f"agentsview-{VERSION}"
    binary = prefix / "bin" / "agentsview"
    if binary.is_file():
        return binary, ""
    import fcntl

    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"agentsview-{VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install at a time
        if binary.is_file():
            return binary, ""
        try:
            subprocess.run([sys.executable, "-m", "venv", str(prefix)], check=True, capture_output=True, timeout=120)
            done = subprocess.run([str(prefix / "bin" / "pip"), "install", "-q", f"agentsview=={VERSION}"],
                                  capture_output=True, text=True, timeout=300)
        except (subprocess.SubprocessError, OSError) as exc:
            return None, f"pip install agentsview=={VERSION} failed: {exc}"
        if done.returncode != 0 or not binary.is_file():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"pip install agentsview=={VERSION} failed: {last}"
        return binary, ""


def scratch_env(base: Path, home: Path) -> dict[str, str]:
    """agentsview's environment: everything it keeps under `base`, the Claude Code home `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "CODEX_", "AGENTSVIEW_"))}
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[var] = str(base / var.lower())
    env.update(HOME=str(base / "user"), CLAUDE_CONFIG_DIR=str(home), CODEX_HOME=str(base / "no-codex"),
               AGENTSVIEW_NO_DAEMON="1")
    (base / "user").mkdir(parents=True, exist_ok=True)
    return env
