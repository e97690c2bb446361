"""A terminal that goes away without a SIGHUP (its pty master closed: a dropped ssh
connection, a killed terminal emulator) ends the app: it neither lives on spinning a core on
its dead input nor blocks on its output."""

from __future__ import annotations

import os
import sys

import pytest

from terminal_support import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


def test_the_app_quits_when_its_terminal_is_closed(demo_path, tmp_path):
    env = {**os.environ, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none"}
    term = Terminal([sys.executable, "-m", "memtui", "open", str(demo_path)], env, tmp_path)
    try:
        term.wait_for(b"following")  # the header is drawn: the app runs
        term.read(2.0)
        term.hang_up()
    finally:
        code = term.close(timeout=30)  # killed if still running then
    assert code == 129  # 128 + SIGHUP, as a shell reports a hung-up job
