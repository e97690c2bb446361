"""Resume in agent, for real: memtui runs in a pseudo-terminal, `a` suspends it and runs a stub
`claude` (first on PATH) that records its arguments and working directory; memtui comes back
and quits normally."""

from __future__ import annotations

import os
import pty
import re
import select
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from resume_support import path_with, recorded, stub_agent
from sources_support import agent_homes

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

ESCAPES = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_])")  # CSI sequences and two-byte escapes


class Terminal:
    """A child process on a pseudo-terminal of 120×36: type into it, wait for what it prints."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        import fcntl
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                     start_new_session=True)
        os.close(slave)
        self.seen = b""

    def read(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    return

    def wait_for(self, needle: bytes, timeout: float = 60.0) -> None:
        """Until the terminal shows `needle`. The text is looked for without escape sequences:
        a partial screen update may write a line in pieces, each behind a cursor move."""
        deadline = time.monotonic() + timeout
        while needle not in ESCAPES.sub(b"", self.seen):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"never printed {needle!r}; last output: {self.seen[-800:]!r}")
            self.read(0.1)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        """The child's exit code; a child still running after 30 s is killed (a failed test
        must not leave an app behind on a terminal that is gone)."""
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            os.close(self.master)


def test_a_resumes_the_highlighted_claude_session_in_its_directory(tmp_path):
    workspace, env = agent_homes(tmp_path)
    record = stub_agent(tmp_path / "bin", "claude")
    env = {**os.environ, **env, "PATH": path_with(tmp_path / "bin"), "TERM": "xterm-256color",
           "TEXTUAL_ANIMATIONS": "none"}
    term = Terminal([sys.executable, "-m", "memtui", "open", str(workspace)], env, tmp_path)
    try:
        # The newest session is highlighted once its tasks are listed.
        term.wait_for(b"Add a --verbose flag")
        term.read(1.0)
        term.type("a")
        deadline = time.monotonic() + 60
        while not record.exists():
            assert time.monotonic() < deadline, f"claude never ran; output: {term.seen[-800:]!r}"
            term.read(0.1)
        term.seen = b""
        term.wait_for(b"claude exited")  # back in memtui, which says how the agent ended
        term.type("q")
        term.read(2.0)
    finally:
        code = term.close()
    assert code == 0
    assert recorded(record) == {"argv": ["--resume", "5b2c1f9e-7d3a-4c8e-9f10-2a6b8c4d1e21"],
                                "cwd": str(workspace)}
