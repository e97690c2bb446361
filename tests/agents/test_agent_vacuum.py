"""`memtui vacuum` on another agent's SQLite files (copies of the real OpenCode 1.18 and Codex
0.171 homes): each is compacted into a copy that is checked and swapped in, with every row and
the journal mode kept — and refused, changing nothing, while the agent runs (found by process:
its executable, or the script a launcher runs) or while another process has the file open
(found by its lock). A kill before or after the swap leaves a sound database."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from memtui.cli import main

from .live_support import LIVE, fingerprint

OPENCODE = sorted(p.parent for p in LIVE.glob("opencode-*/*/truth.json"))
CODEX = sorted(p.parent for p in LIVE.glob("codex-*/*/truth.json"))
pytestmark = pytest.mark.skipif(not OPENCODE or not CODEX, reason="no OpenCode or Codex live fixtures")


@pytest.fixture
def scratch_env(tmp_path, monkeypatch):
    for var in ("HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))


def opencode_copy(tmp: Path) -> Path:
    """A copy of OpenCode's data folder whose opencode.db has free pages (its events deleted, as
    OpenCode's own pruning does)."""
    folder = shutil.copytree(OPENCODE[-1] / "home" / ".local" / "share" / "opencode", tmp / "opencode")
    with sqlite3.connect(folder / "opencode.db") as conn:
        conn.execute("DELETE FROM event")
    conn.close()
    return folder


def contents(db: Path) -> dict[str, list]:
    """Every row of every table, in rowid order where there is one; the journal mode; the
    integrity check (an independent reading, by SQLite itself)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)  # no -wal/-shm made: no writer here
    try:
        header = db.read_bytes()[:20]  # bytes 18-19: 2 in a WAL database, 1 in a rollback-journal one
        out: dict[str, list] = {"journal_mode": ["wal" if header[18:20] == b"\x02\x02" else "delete"],
                                "integrity": [conn.execute("PRAGMA integrity_check").fetchone()[0]]}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"):
            out[name] = sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
        return out
    finally:
        conn.close()


def freelist(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        conn.close()


def test_opencode_db_is_compacted_with_every_row_and_its_journal_mode_kept(tmp_path, scratch_env, capsys):
    folder = opencode_copy(tmp_path)
    db = folder / "opencode.db"
    before, size, free = contents(db), db.stat().st_size, freelist(db)
    assert free > 0 and before["journal_mode"] == ["wal"]
    assert main(["log", str(folder), "--json"]) == 0
    listed = capsys.readouterr().out
    assert main(["vacuum", str(folder), "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)["files"]
    assert (result["path"], result["freelist_before"], result["freelist_after"]) == (str(db), free, 0)
    assert db.stat().st_size == result["file_bytes_after"] < size == result["file_bytes_before"]
    assert freelist(db) == 0 and contents(db) == before
    assert sorted(p.name for p in folder.iterdir()) == ["log", "opencode.db", "snapshot"]  # no copy, no side file
    assert main(["log", str(folder), "--json"]) == 0
    assert capsys.readouterr().out == listed


def test_every_sqlite_file_of_a_codex_home_is_compacted(tmp_path, scratch_env, capsys):
    home = shutil.copytree(CODEX[0] / "home" / ".codex", tmp_path / ".codex")
    files = sorted(home.glob("*.sqlite"))
    before = {f.name: contents(f) for f in files}
    assert main(["vacuum", str(home), "--json"]) == 0
    done = json.loads(capsys.readouterr().out)["files"]
    assert [Path(r["path"]).name for r in done] == [f.name for f in files]
    assert {f.name: contents(f) for f in files} == before
    assert not [p for p in home.iterdir() if "memtui" in p.name]


def test_only_a_whole_vacuum_is_offered(tmp_path, scratch_env, capsys):
    folder = opencode_copy(tmp_path)
    before = fingerprint(folder)
    assert main(["vacuum", str(folder), "--checkpoint"]) == 2
    assert "vacuumed whole" in capsys.readouterr().err
    assert fingerprint(folder) == before


def _running(argv: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10  # exec'd: its command line is the agent's once /proc shows it
    while not Path(f"/proc/{proc.pid}/cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    return proc


def test_each_agent_names_its_processes():
    from memtui.core.agents.cline.source import ClineSource
    from memtui.core.agents.codex.source import CodexSource
    from memtui.core.agents.opencode.source import OpenCodeSource

    assert (OpenCodeSource.agent_processes, CodexSource.agent_processes, ClineSource.agent_processes) == (
        ("opencode",), ("codex",), ("cline",))


@pytest.fixture
def agent_name(monkeypatch) -> str:
    """OpenCode's process name for this test alone: a process the test starts under the real name
    would stop every other vacuum test running meanwhile (other workers, other checkouts)."""
    from memtui.core.agents.opencode.source import OpenCodeSource

    name = f"opencode-{uuid.uuid4().hex[:12]}"
    monkeypatch.setattr(OpenCodeSource, "agent_processes", (name,))
    return name


@pytest.mark.parametrize("how", ["executable", "script"])
def test_refused_while_the_agent_runs(tmp_path, scratch_env, capsys, agent_name, how):
    """The agent's executable (a link named so), or a script of its name (`opencode.js`) a
    launcher runs."""
    folder = opencode_copy(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if how == "executable":
        (bin_dir / agent_name).symlink_to(shutil.which("sleep"))
        argv = [str(bin_dir / agent_name), "60"]
    else:
        (bin_dir / f"{agent_name}.js").write_text("import time\ntime.sleep(60)\n")  # python reads it too
        argv = [sys.executable, str(bin_dir / f"{agent_name}.js")]
    before = fingerprint(folder)
    proc = _running(argv)
    try:
        assert main(["vacuum", str(folder)]) == 2
        err = capsys.readouterr().err
        assert f"OpenCode is running (pid {proc.pid}" in err and "unchanged" in err and err.count("\n") == 1
        assert fingerprint(folder) == before
    finally:
        proc.kill()
        proc.wait()
    assert main(["vacuum", str(folder)]) == 0  # once it is gone


HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1])
conn.execute("SELECT COUNT(*) FROM session").fetchone()
print("open", flush=True)
time.sleep(60)
"""


def test_refused_while_another_process_has_the_file_open(tmp_path, scratch_env, capsys):
    """A program memtui does not know by name reading the database: its lock refuses the vacuum."""
    folder = opencode_copy(tmp_path)
    db = folder / "opencode.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        before, rows = fingerprint(folder), contents(db)
        assert main(["vacuum", str(folder)]) == 2
        err = capsys.readouterr().err
        assert "another process has" in err and "open" in err and "unchanged" in err
        assert fingerprint(folder) == before and contents(db) == rows
    finally:
        holder.kill()
        holder.wait()


KILLED = """
import os, signal, sys
from pathlib import Path
import memtui.core.agent_vacuum as v
real = os.replace
def replace(src, dst):
    if sys.argv[2] == "after":
        real(src, dst)
    os.kill(os.getpid(), signal.SIGKILL)
v.os.replace = replace
v.vacuum_agent_file(Path(sys.argv[1]), "OpenCode", ("opencode",))
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_kill_just_before_or_after_the_swap_leaves_a_sound_database(tmp_path, scratch_env, capsys, when):
    folder = opencode_copy(tmp_path)
    db = folder / "opencode.db"
    rows = {k: v for k, v in contents(db).items() if k != "journal_mode"}
    proc = subprocess.run([sys.executable, "-c", KILLED, str(db), when], env={**os.environ})
    assert proc.returncode == -signal.SIGKILL
    assert {k: v for k, v in contents(db).items() if k != "journal_mode"} == rows
    assert (freelist(db) == 0) == (when == "after")
    assert main(["vacuum", str(folder)]) == 0  # finishes the job, and takes away the copy left behind
    assert contents(db)["journal_mode"] == ["wal"] and freelist(db) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["log", "opencode.db", "snapshot"]


def test_a_launcher_running_another_script_with_the_agents_name_in_its_arguments_is_not_the_agent(
        tmp_path, scratch_env, capsys, agent_name):
    """`python3 other.py /somewhere/opencode`: the script is other.py; the folder named like the
    agent is an argument, not the agent."""
    folder = opencode_copy(tmp_path)
    (tmp_path / "other.py").write_text("import time\ntime.sleep(60)\n")
    proc = _running([sys.executable, str(tmp_path / "other.py"), str(tmp_path / agent_name)])
    try:
        assert main(["vacuum", str(folder)]) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_codex_home_is_refused_while_codex_runs(tmp_path, scratch_env, capsys, monkeypatch):
    """A Codex home opens with its archived sessions beside it (a wrapper around the store): the
    wrapper names Codex's processes too, so a running codex stops the vacuum."""
    from memtui.core.agents.codex.source import CodexSource

    name = f"codex-{uuid.uuid4().hex[:12]}"  # this test's own: a real `codex` would stop other tests
    monkeypatch.setattr(CodexSource, "agent_processes", (name,))
    home = shutil.copytree(CODEX[0] / "home" / ".codex", tmp_path / ".codex")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / name).symlink_to(shutil.which("sleep"))
    before = fingerprint(home)
    proc = _running([str(tmp_path / "bin" / name), "60"])
    try:
        assert main(["vacuum", str(home)]) == 2
        assert f"is running (pid {proc.pid}" in capsys.readouterr().err
        assert fingerprint(home) == before
    finally:
        proc.kill()
        proc.wait()
