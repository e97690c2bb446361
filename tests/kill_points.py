"""Where the kill -9 tests stop a child process, shared by their harnesses (store creation,
upgrade, curate, writes into an agent's home).

In the parent: `child_env` is a child's environment (memtui and tests/ importable, memtui's
own folders where the trial wants them); `kill_after` SIGKILLs a child a moment from now (a
timed kill; the long loops spread such moments over an operation's measured span);
`stray_temps` finds what a killed write may leave and the next write must remove.

In the child (which has tests/ on its path): `kill_at_statement` makes the process SIGKILL
itself as the N-th counted SQL statement on a connection is about to run (SQLite's trace
callback: the real code runs up to there); `kill_at_store_statement` does so on every
connection memtui's store opens (`memtui.core.store.schema.connect`)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
XDG = ("state", "data", "cache", "config")


def child_env(xdg: Path | None = None, *, paths: tuple[Path, ...] = ()) -> dict[str, str]:
    """This process's environment for a child: memtui, tests/ and `paths` importable; with
    `xdg`, memtui's own folders under it (xdg/xdg-state, xdg-data, xdg-cache, xdg-config)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (ROOT, ROOT / "tests", *paths))}
    if xdg is not None:
        env.update({f"XDG_{name.upper()}_HOME": str(xdg / f"xdg-{name}") for name in XDG})
    return env


def stray_temps(*roots: Path) -> list[Path]:
    """memtui's temp files, their SQLite -wal/-shm/-journal and its temp folders anywhere under
    `roots` (hidden folders included)."""
    return sorted(p for root in roots for p in Path(root).rglob("*") if ".memtui-tmp" in p.name)


def kill_after(proc: subprocess.Popen, seconds: float) -> None:
    """SIGKILL `proc` `seconds` from now, unless it has ended by then."""
    time.sleep(seconds)
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def kill_at_statement(conn: Any, kill_at: int, seen: list[int],
                      counts: Callable[[str], bool] = lambda sql: True) -> None:
    """On `conn` (a sqlite3 connection), count the statements `counts` accepts in `seen[0]`
    and SIGKILL this process as the `kill_at`-th is about to run (0: only count)."""
    def trace(sql: str) -> None:
        if not counts(sql):
            return
        seen[0] += 1
        if seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    conn.set_trace_callback(trace)


def kill_at_store_statement(kill_at: int, counts: Callable[[Path, str], bool]) -> list[int]:
    """`kill_at_statement` on every connection the store opens from now on; `counts(database
    path, sql)` picks the statements counted. Returns the counter ([statements seen])."""
    from memtui.core.store import schema

    seen = [0]
    connect = schema.connect

    def traced(*args: Any, **kwargs: Any) -> Any:
        db = connect(*args, **kwargs)
        hooks = db._add_conn_hooks

        def add_hooks(conn: Any) -> None:
            hooks(conn)
            kill_at_statement(conn, kill_at, seen, lambda sql: counts(Path(args[0]), sql))
        db._add_conn_hooks = add_hooks
        return db

    schema.connect = traced
    return seen
