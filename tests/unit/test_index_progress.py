"""The progress line of a verb while the index of an agent's home is built from nothing: on a
terminal it counts the transcripts read and is cleared before the verb's output; a pipe gets
nothing of it, and a warm run (nothing to read) shows none."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from real_support import many_sessions
from terminal_support import ESCAPES, Terminal

from memtui.cli._progress import SHOW_FROM


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path / "user"), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def _on_terminal(home: Path, env: dict[str, str], tmp_path: Path) -> bytes:
    term = Terminal([sys.executable, "-m", "memtui", "log", str(home)], env, tmp_path)
    term.wait_for(b"session ", timeout=300)
    assert term.close(timeout=300) == 0
    return term.seen


def test_a_cold_build_counts_transcripts_on_a_terminal_and_clears_the_line(tmp_path: Path) -> None:
    home = many_sessions("claude-2.0.28-agtrace", tmp_path, SHOW_FROM // 3 + 2)
    files = len([p for p in home.glob("projects/*/*.jsonl") if not p.name.startswith("agent-")])
    assert files >= SHOW_FROM
    seen = _on_terminal(home, _env(tmp_path), tmp_path)
    assert f"memtui: indexing {home}: 1/{files} transcripts".encode() in seen
    assert seen.index(b"\r\x1b[K") < seen.index(b"session ")  # cleared before the listing
    assert b"indexing" not in ESCAPES.sub(b"", seen).split(b"\r")[-1]
    warm = _on_terminal(home, _env(tmp_path), tmp_path)
    assert b"indexing" not in warm


def test_a_pipe_gets_no_progress_line(tmp_path: Path) -> None:
    home = many_sessions("claude-2.0.28-agtrace", tmp_path, SHOW_FROM // 3 + 2)
    run = subprocess.run([sys.executable, "-m", "memtui", "log", str(home)], capture_output=True, text=True,
                         env=_env(tmp_path), timeout=300, check=False)
    assert run.returncode == 0 and "session " in run.stdout
    assert "indexing" not in run.stderr


def test_a_first_search_counts_the_sessions_it_indexes_on_a_terminal_and_clears_the_line(tmp_path: Path) -> None:
    """The search index of a home built by its first search is counted in sessions; the line
    is cleared before the hits, and a search after it (nothing to index) shows none."""
    home = many_sessions("claude-2.0.28-agtrace", tmp_path, SHOW_FROM // 3 + 2)
    env = _env(tmp_path)
    listed = subprocess.run([sys.executable, "-m", "memtui", "log", str(home), "--json"], capture_output=True,
                            text=True, env=env, timeout=300, check=True).stdout
    sessions = len(json.loads(listed)["sessions"])
    assert sessions >= SHOW_FROM

    def search() -> bytes:
        term = Terminal([sys.executable, "-m", "memtui", "search", str(home), "hoge"], env, tmp_path)
        term.wait_for(b" step ", timeout=300)
        assert term.close(timeout=300) == 0
        return term.seen

    seen = search()
    assert re.search(rf"memtui: search index of {re.escape(str(home))}: [0-9]+/{sessions} sessions".encode(), seen)
    assert seen.index(b"\r\x1b[K") < seen.index(b" step ")  # cleared before the hits
    assert b"search index of" not in ESCAPES.sub(b"", seen).split(b"\r")[-1]
    assert b"search index of" not in search()
