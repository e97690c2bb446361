"""A child process on a real pseudo-terminal, for the tests that run `memtui open` as a user
would: type into it, wait for what it prints, close the terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import struct
import subprocess
import time
from pathlib import Path

ESCAPES = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_])")  # CSI sequences and two-byte escapes


class Terminal:
    """A child process on a pseudo-terminal of 120×36: type into it, wait for what it prints."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        import fcntl
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        env = {**env, "COLUMNS": "120", "LINES": "36"}  # the size wins over a COLUMNS the tests inherited
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                     start_new_session=True)
        os.close(slave)
        self.seen = b""
        self.master: int | None = self.master

    def read(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    return

    def wait_for(self, needle: bytes, timeout: float = 150.0) -> None:
        """Until the terminal shows `needle`. The text is looked for without escape sequences:
        a partial screen update may write a line in pieces, each behind a cursor move."""
        deadline = time.monotonic() + timeout
        while needle not in ESCAPES.sub(b"", self.seen):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"never printed {needle!r}; last output: {self.seen[-800:]!r}")
            self.read(0.1)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def run_editor(self, ran: Path) -> None:
        """From the main screen: m opens the memory screen, E runs $EDITOR on the document
        shown — until the file `ran` (which the stub editor writes) exists."""
        def footer() -> bool:  # the memory screen's
            return b"$EDITOR" in ESCAPES.sub(b"", self.seen)

        deadline = time.monotonic() + 60
        while not footer():
            assert time.monotonic() < deadline, f"m never opened memory; output: {self.seen[-800:]!r}"
            self.type("m")  # keys do nothing until the main screen is up: again after 2 s
            self.read_until(footer, 2.0)
        deadline = time.monotonic() + 60
        while not ran.exists():  # E rings the bell until the document is loaded: again after 2 s
            assert time.monotonic() < deadline, f"$EDITOR never ran; output: {self.seen[-800:]!r}"
            self.type("E")
            self.read_until(ran.exists, 2.0)

    def read_until(self, done, seconds: float) -> None:
        """Read what the child prints until `done()` or `seconds` have passed."""
        deadline = time.monotonic() + seconds
        while not done() and time.monotonic() < deadline:
            self.read(0.05)

    def hang_up(self) -> None:
        """Close the terminal as a dropped connection or a killed emulator does. No SIGHUP
        reaches the child: it runs in a session of its own that never took this pty as its
        controlling terminal."""
        if self.master is not None:
            os.close(self.master)
            self.master = None

    def close(self, timeout: float = 30) -> int:
        """The child's exit code; a child still running after `timeout` s is killed (a failed
        test must not leave an app behind on a terminal that is gone)."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            self.hang_up()
