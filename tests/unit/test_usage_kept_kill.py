"""kill -9 while `memtui usage` keeps the sessions' priced replies (memtui.core.usage.kept): just
before its transaction commits and just after, on a first run and on an update after every
transcript changed. The next run prints what a run without anything kept prints, and so does
the run after it, served from the kept rows."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from index_kill import touch_all
from real_support import many_sessions

CHILD = textwrap.dedent("""
    import os, signal, sqlite3, sys
    home, when = sys.argv[1], sys.argv[2]
    real_connect = sqlite3.connect

    class Killed:
        # The usage file's connection: killed at its COMMIT (before or after it runs).
        def __init__(self, conn):
            self.conn = conn
        def __getattr__(self, name):
            return getattr(self.conn, name)
        def execute(self, sql, *args):
            if sql == "COMMIT" and when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            out = self.conn.execute(sql, *args)
            if sql == "COMMIT" and when == "after":
                os.kill(os.getpid(), signal.SIGKILL)
            return out

    def connect(path, *args, **kwargs):
        conn = real_connect(path, *args, **kwargs)
        return Killed(conn) if os.sep + "usage" + os.sep in str(path) else conn

    sqlite3.connect = connect
    from memtui.cli import main
    sys.exit(main(["usage", home, "--by", "session", "--json"]))
""")


def run_usage(home: Path, cache: Path, kill: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "TZ": "UTC"}
    argv = ([sys.executable, "-c", CHILD, str(home), kill] if kill is not None
            else [sys.executable, "-m", "memtui", "usage", str(home), "--by", "session", "--json"])
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Path, str]:
    home = many_sessions("claude-2.1.38-spotter-small", tmp_path_factory.mktemp("kill"), 2)
    clean = run_usage(home, tmp_path_factory.mktemp("clean"))
    assert clean.returncode == 0 and '"rows"' in clean.stdout, clean.stderr
    return home, clean.stdout


@pytest.mark.parametrize("update", [False, True], ids=["first run", "update"])
@pytest.mark.parametrize("kill", ["before", "after"])
def test_kill_9_while_the_usage_rows_are_kept(home, tmp_path: Path, kill: str, update: bool) -> None:
    path, expected = home
    cache = tmp_path / "cache"
    if update:
        assert run_usage(path, cache).stdout == expected
        touch_all(path)  # every session's files changed: each is read and kept again
    child = run_usage(path, cache, kill)
    assert child.returncode == -9, child.stderr
    for _ in range(2):  # read after the kill, then served from what that run kept
        again = run_usage(path, cache)
        assert again.returncode == 0, again.stderr
        assert again.stdout == expected
    assert [p.name for p in (cache / "memtui" / "usage").iterdir() if not p.name.endswith(".db")] == []
