"""What the push tests compare: a team store's contents per session, as SQL reads them, and a
push run as its own process (so it can be killed with SIGKILL mid-way)."""

from __future__ import annotations

import os
import subprocess
import sys

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

