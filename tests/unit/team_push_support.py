"""What the push tests compare: a team store's contents per session, as SQL reads them, and a
push run as its own process (so it can be killed with SIGKILL mid-way)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from memtui.core.store.team import TeamStore

# Per pushed session: where it came from and everything written for it (task, step, checkpoint
# and entry counts, and the contents' hashes in entry order). Two team stores holding the same
# sessions read the same, whatever order or how many pushes it took.
SESSIONS_SQL = """
SELECT o.machine, o.agent, o.store_path, o.session_key, s.title, s.status,
       (SELECT COUNT(*) FROM task t WHERE t.origin_id = o.id),
       (SELECT COUNT(*) FROM step st JOIN task t ON t.id = st.task_id WHERE t.origin_id = o.id),
       (SELECT COUNT(*) FROM checkpoint c JOIN task t ON t.id = c.task_id WHERE t.origin_id = o.id),
       (SELECT string_agg(p.path || ':' || COALESCE(encode(bb.hash, 'hex'), '-') || ':'
                          || COALESCE(encode(ab.hash, 'hex'), '-'), ',' ORDER BY t.id, c.id, e.id)
          FROM task t JOIN checkpoint c ON c.task_id = t.id JOIN checkpoint_entry e ON e.checkpoint_id = c.id
          JOIN path p ON p.id = e.path_id LEFT JOIN blob bb ON bb.id = e.before_blob
          LEFT JOIN blob ab ON ab.id = e.after_blob WHERE t.origin_id = o.id)
FROM origin o LEFT JOIN session s ON s.origin_id = o.id
ORDER BY o.machine, o.agent, o.store_path, o.session_key
"""

# Each must be 0 in a team store after any push, killed or not.
INTEGRITY_SQL = {
    "an origin without its session": "SELECT COUNT(*) FROM origin o LEFT JOIN session s ON s.origin_id = o.id"
                                     " WHERE s.id IS NULL AND o.session_key != '(orphans)'",
    "a pushed task without an origin": "SELECT COUNT(*) FROM task WHERE origin_id IS NULL",
    "a pushed session without an origin": "SELECT COUNT(*) FROM session WHERE origin_id IS NULL",
    "a session pushed twice from one machine": "SELECT COUNT(*) FROM (SELECT 1 FROM origin GROUP BY machine, agent,"
                                               " store_path, session_key HAVING COUNT(*) > 1) d",
    "a content stored twice": "SELECT COUNT(*) FROM (SELECT 1 FROM blob GROUP BY hash HAVING COUNT(*) > 1) d",
    "a task whose counters disagree with its rows":
        "SELECT COUNT(*) FROM task t WHERE t.step_count != (SELECT COUNT(*) FROM step s WHERE s.task_id = t.id)"
        " OR t.checkpoint_count != (SELECT COUNT(*) FROM checkpoint c WHERE c.task_id = t.id)",
}


def sessions(url: str) -> list[tuple]:
    with TeamStore.open(url, readonly=True) as team:
        return team.query(SESSIONS_SQL)


def integrity(url: str) -> dict[str, int]:
    """The integrity checks that fail (all 0 in a sound team store)."""
    with TeamStore.open(url, readonly=True) as team:
        return {what: n for what, sql in INTEGRITY_SQL.items() if (n := team.query(sql)[0][0])}


def push_process(machine, url: str) -> subprocess.Popen:
    """`memtui push` of `machine`'s PATHs as its own process, in that machine's environment."""
    env = {**os.environ, **machine.env}
    argv = [sys.executable, "-m", "memtui", "push", *map(str, machine.paths), "--team", url,
            "--machine", machine.name, "--json"]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def scratch_env(tmp_path, monkeypatch) -> dict[str, str]:
    """HOME, the agents' homes and the XDG folders pointed into scratch folders (set, and returned
    for push's env)."""
    env = {name: str(tmp_path / "home" / folder) for name, folder in (
        ("HOME", ""), ("CLAUDE_CONFIG_DIR", "claude"), ("CODEX_HOME", "codex"), ("XDG_CACHE_HOME", "cache"),
        ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"))}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env



# Where a killed push was when the kill landed (kill_on_progress's answer).
BEFORE, IN_WRITE, BETWEEN, AFTER = "before any session", "inside a session's write", "between sessions", "after the last session"
MID_PUSH = (IN_WRITE, BETWEEN)

_PROGRESS_SQL = """
SELECT (SELECT COUNT(*) FROM origin),
       (SELECT COUNT(*) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL)
"""


def kill_on_progress(machine, url: str, after: int, *, in_write: bool = False, delay: float = 0.0,
                     total: int | None = None, timeout: float = 300) -> str:
    """Push `machine` as its own process and SIGKILL it once the server holds `after` pushed
    sessions (committed), then either the moment it is seen writing the next one (`in_write`:
    a transaction of the push holds a transaction id) or `delay` seconds later. A fixed delay
    from the start misses the writes: most of a small push is starting up and reading, and a
    push whose readers' indexes are warm is quicker than the one that timed it.

    Answers where the kill landed: BEFORE, IN_WRITE (a write seen just before the kill that
    did not commit), BETWEEN or AFTER (`total`: the sessions of a whole push; all of them in is
    AFTER, even before the push's cursors are written; so is a push that ended first)."""
    import psycopg

    def progress(conn) -> tuple[int, int]:
        try:
            return conn.execute(_PROGRESS_SQL).fetchone()
        except psycopg.errors.UndefinedTable:  # the push has not made the store yet
            return 0, 0

    proc = push_process(machine, url)
    deadline = time.monotonic() + timeout
    killed = False
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            while proc.poll() is None:
                assert time.monotonic() < deadline, f"the push did not reach {after} sessions in {timeout} s"
                done, writing = progress(conn)
                if done >= after and (not in_write or writing):
                    if delay:
                        time.sleep(delay)
                        done, writing = progress(conn)
                    if proc.poll() is None:
                        proc.send_signal(signal.SIGKILL)
                        killed = True
                    break
                time.sleep(0.001)
            proc.communicate()
            if not killed:
                return AFTER
            settled, _ = progress(conn)  # a write seen just before the kill may have committed first
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
    if total is not None and settled >= total:
        return AFTER
    if writing and settled == done:
        return IN_WRITE
    return BEFORE if settled == 0 else BETWEEN
