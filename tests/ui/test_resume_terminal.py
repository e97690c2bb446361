"""Resume in agent, for real: memtui runs in a pseudo-terminal, `a` suspends it and runs a stub
`claude` (first on PATH) that records its arguments and working directory; memtui comes back
and quits normally. The agent gets the user's environment as it is (memtui sets no TEXTUAL_FPS of its own)."""

from __future__ import annotations

import os
import sys
import time

import pytest

from resume_support import path_with, recorded, stub_agent
from sources_support import agent_homes
from terminal_support import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


def test_a_resumes_the_highlighted_claude_session_in_its_directory(tmp_path):
    workspace, env = agent_homes(tmp_path)
    record = stub_agent(tmp_path / "bin", "claude")
    env = {**{k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}, **env, "PATH": path_with(tmp_path / "bin"), "TERM": "xterm-256color",
           "TEXTUAL_ANIMATIONS": "none"}
    term = Terminal([sys.executable, "-m", "memtui", "open", str(workspace)], env, tmp_path)
    try:
        # The newest session is highlighted once its tasks are listed.
        term.wait_for(b"Add a --verbose flag")
        term.read(1.0)
        term.seen = b""  # from here on: what memtui and the agent print after a
        term.type("a")
        deadline = time.monotonic() + 60
        while not record.exists():
            assert time.monotonic() < deadline, f"claude never ran; output: {term.seen[-800:]!r}"
            term.read(0.1)
        # (Not emptied again here: the toast may arrive in the same read as the agent's record.)
        term.wait_for(b"claude exited")  # back in memtui, which says how the agent ended
        term.type("q")
        term.read(2.0)
    finally:
        code = term.close()
    assert code == 0
    assert recorded(record) == {"argv": ["--resume", "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"],
                                "cwd": str(workspace), "TEXTUAL_FPS": None}  # none of memtui's own


def test_e_runs_editor_with_the_users_own_textual_fps(demo_copy, tmp_path):
    """A TEXTUAL_FPS the user set is the one $EDITOR (a child of memtui) sees."""
    record = stub_agent(tmp_path / "bin", "editor")
    env = {**os.environ, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none", "TEXTUAL_FPS": "30",
           "VISUAL": str(tmp_path / "bin" / "editor")}
    term = Terminal([sys.executable, "-m", "memtui", "open", str(demo_copy)], env, tmp_path)
    try:
        term.wait_for(b"following")
        term.run_editor(record)  # types m and E again until each is taken
        term.read(1.0)
        term.type("\x1b")
        term.read(1.0)
        term.type("q")  # close() waits for the exit
    finally:
        code = term.close()
    assert code == 0
    assert recorded(record)["TEXTUAL_FPS"] == "30"
