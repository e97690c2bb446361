"""The search index of an agent's own home (Claude Code, Codex) is kept in memtui's cache
folder, never in the home: the next `memtui search` reads only the sessions that changed. A
damaged index file is built again; one another process is writing gives one line, no traceback."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

import memtui.core.memory.search_sessions as search_sessions
from memtui.cli import main

from real_support import claude_results_holding, many_sessions

KEPT = 4 * 16_384
"""Bytes of the index file kept when it is torn: its first pages (the schema: it still opens)."""
COPIES = 4  # of the 3 sessions of claude-2.1.38-spotter-small


@pytest.fixture
def home(tmp_path):
    return many_sessions("claude-2.1.38-spotter-small", tmp_path, COPIES)


@pytest.fixture
def sessions_read(monkeypatch):
    """The sessions whose records the index reads, run after run."""
    read: list[str] = []
    real = search_sessions.session_records

    def counted(source, key, session_id, *tasks):
        read.append(key)
        return real(source, key, session_id, *tasks)
    monkeypatch.setattr(search_sessions, "session_records", counted)
    return read


def cache_folder() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / "search"


def tree(home: Path) -> dict[str, str]:
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(home.rglob("*"))}


def search(capsys, home: Path, word: str) -> tuple[int, list[dict], str]:
    code = main(["search", str(home), word, "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else [], err


def test_the_next_search_reads_only_the_sessions_that_changed(home, capsys, sessions_read):
    expected = claude_results_holding(home, "elixirforum")
    assert expected == 4 * COPIES
    before = tree(home)
    code, hits, _ = search(capsys, home, "elixirforum")
    assert code == 0 and len(hits) == expected
    assert len(sessions_read) == 3 * COPIES  # the first search indexes every session
    assert tree(home) == before  # nothing written into the home
    [index] = cache_folder().iterdir()
    assert stat.S_IMODE(cache_folder().stat().st_mode) == 0o700  # the index holds the sessions' text
    del sessions_read[:]
    assert search(capsys, home, "elixirforum")[:2] == (0, hits)
    assert sessions_read == []  # the next one reads none again
    transcript = next(home.glob("projects/*/55604662-*.jsonl"))
    line = json.loads(transcript.read_text(encoding="utf-8").splitlines()[0])
    prompt = {**line, "type": "user", "uuid": "a-new-prompt",
              "message": {"role": "user", "content": "find the quetzalcoatl elixirforum thread"}}
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps(prompt) + "\n")  # the agent goes on in one session
    code, hits, _ = search(capsys, home, "quetzalcoatl")
    assert code == 0 and [h["text"] for h in hits] == ["find the quetzalcoatl elixirforum thread"]
    assert sessions_read == [f"session:{transcript.stem}"]
    assert [p.name for p in cache_folder().iterdir()] == [index.name]


def test_a_cache_folder_already_there_with_a_looser_mode_is_made_0700(home, capsys):
    cache_folder().mkdir(parents=True)
    cache_folder().chmod(0o755)  # made by an older memtui, or by hand under a loose umask
    code, hits, _ = search(capsys, home, "elixirforum")
    assert code == 0 and hits
    assert stat.S_IMODE(cache_folder().stat().st_mode) == 0o700  # others cannot read the sessions' text


@pytest.mark.parametrize("damage", ["garbage", "torn"])
def test_a_damaged_index_is_built_again(home, capsys, damage):
    expected = search(capsys, home, "elixirforum")[1]
    [index] = cache_folder().iterdir()
    data = index.read_bytes()
    assert len(data) > 2 * KEPT
    if damage == "garbage":
        index.write_bytes(b"not an index " * 100)
    else:  # the schema's pages kept, those past them overwritten (a disk's torn write)
        index.write_bytes(data[:KEPT] + b"\xff" * (len(data) - KEPT))
    code, hits, err = search(capsys, home, "elixirforum")
    assert (code, hits, err) == (0, expected, "")
    with sqlite3.connect(index) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_an_index_another_process_writes_is_one_line(home, capsys, monkeypatch):
    import memtui.core.memory.search as search_module

    search(capsys, home, "elixirforum")
    [index] = cache_folder().iterdir()
    monkeypatch.setattr(search_module, "BUSY_TIMEOUT", 0)
    (home / "projects" / "-home-marco-projects-spotter" / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl").touch()
    other = sqlite3.connect(index, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")  # another memtui refreshing it
        code = main(["search", str(home), "elixirforum"])
    finally:
        other.close()
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (f"memtui: the search index {index} is being updated by another memtui process;"
                   " try again when it is done\n"), err


def test_without_a_cache_folder_the_search_still_answers(home, capsys, tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # no folder can be made there
    code, hits, err = search(capsys, home, "elixirforum")
    assert code == 0 and len(hits) == 4 * COPIES and err == ""


KILLED_CHILD = """
import sys
import kill_points
import memtui.core.memory.search as search
from memtui.cli import main
kill_at, seen, real = int(sys.argv[2]), [0], search.SearchIndex._open

def traced(index, path):
    conn = real(index, path)
    kill_points.kill_at_statement(conn, kill_at, seen)
    return conn
search.SearchIndex._open = traced
code = main(["search", sys.argv[1], "elixirforum", "--json"])
print("statements", seen[0], file=sys.stderr)
"""


def _killed_search(home: Path, kill_at: int) -> tuple[int, str]:
    import subprocess
    import sys

    from kill_points import child_env

    proc = subprocess.run([sys.executable, "-c", KILLED_CHILD, str(home), str(kill_at)], capture_output=True,
                          text=True, env=child_env(), timeout=300)
    return proc.returncode, proc.stderr


def test_kill_9_while_the_index_is_built_leaves_one_the_next_search_finishes(home, capsys):
    """kill -9 at a quarter, half and three quarters of the statements of a first build: the next
    search finds every hit, the cache folder holds the index file only (no journal), and the
    agent's home is as it was."""
    expected = claude_results_holding(home, "elixirforum")
    before = tree(home)
    code, err = _killed_search(home, 0)
    assert code == 0, err
    statements = int(err.split()[-1])
    assert statements > 100
    for n, part in enumerate((4, 2, 4 / 3)):
        for index in cache_folder().iterdir():
            index.unlink()
        code, err = _killed_search(home, int(statements / part))
        assert code == -9, err
        assert any(cache_folder().iterdir()), "killed before the index file was made"
        code, hits, err = search(capsys, home, "elixirforum")
        assert (code, len(hits), err) == (0, expected, ""), n
        assert [p.name for p in cache_folder().iterdir()] == [p.name for p in cache_folder().glob("*.db")]
    assert tree(home) == before
