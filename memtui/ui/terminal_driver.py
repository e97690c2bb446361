"""The driver the app runs under in a terminal: textual's LinuxDriver, leaving when its
terminal goes away.

A terminal can vanish without a SIGHUP reaching the app: its pty master closed (a dropped
ssh connection, a killed terminal emulator) while the app does not have the pty as its
controlling terminal, or ignores the signal. textual's input thread then reads end-of-file
at once on every pass of its loop and never stops (a core spent for as long as the process
lives), and its output thread dies on the first EIO, after which the app blocks for good
once the output queue is full (textual 8.2.8; a fix of the input loop is proposed
upstream, PR #6690). Here a thread of ours waits (poll, no timeout) for the terminal's
hangup and asks the app to quit as `q` would (the store closed), with return code HANGUP
(MemtuiApp.action_quit); from then on the driver queues no output for the gone terminal
(the output thread may have died on it), so that shutting down cannot block.
"""

from __future__ import annotations

import os
import select
import sys
import threading
from typing import Any

from textual import constants

HANGUP = 129
"""The app's return code when its terminal went away (128 + SIGHUP, as a shell reports it)."""



def watch_hangup(fileno: int, wake: int, hung_up: Any) -> None:
    """Block until the terminal `fileno` hangs up (then call `hung_up()`) or `wake` is readable;
    `wake` is closed on the way out."""
    gone = select.POLLHUP | select.POLLERR | select.POLLNVAL
    poll = select.poll()
    poll.register(fileno, 0)  # hangup and errors are always reported; input is not asked for
    poll.register(wake, select.POLLIN)
    try:
        while True:
            events = poll.poll()
            if any(fd == wake for fd, _ in events):
                return
            if any(fd == fileno and mask & gone for fd, mask in events):
                hung_up()
                return
    finally:
        os.close(wake)


def keys_missing() -> str:
    """Why the app cannot run here ('' when it can): it would run in this terminal (not
    served) while its standard input is not a terminal (`memtui open < /dev/null`, a pipe,
    a service). It could never read a key, q included, and textual's input thread would spin
    on the input's end for as long as the app lives."""
    if constants.DRIVER is not None or (sys.stdin is not None and sys.stdin.isatty()):
        return ""
    return ("the app reads its keys from a terminal and standard input is not one: run it in a terminal"
            " (memtui log and memtui show print to a pipe)")


def terminal_driver_class() -> Any:
    """The hangup-aware LinuxDriver, where textual would pick its LinuxDriver; else None."""
    if constants.DRIVER is not None or sys.platform == "win32":
        return None
    from textual.drivers.linux_driver import LinuxDriver

    class HangupDriver(LinuxDriver):
        """LinuxDriver whose app quits when the terminal goes away."""

        def __init__(self, app: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(app, *args, **kwargs)
            self.quits = app
            """The app this driver runs (it quits when the terminal hangs up)."""
            self.gone = False
            """The terminal hung up: nothing more is written to it."""
            self._wake: tuple[int, int] | None = None

        def start_application_mode(self) -> None:
            super().start_application_mode()
            if self._wake is None and os.isatty(self.fileno):
                self._wake = os.pipe()
                threading.Thread(target=watch_hangup, args=(self.fileno, self._wake[0], self._hung_up),
                                 name="memtui-hangup", daemon=True).start()

        def write(self, data: str) -> None:
            if not self.gone:  # the output thread may have died on the gone terminal: queue nothing for it
                super().write(data)

        def _hung_up(self) -> None:
            self.gone = True
            self.quits.call_later(self.quits.action_quit, return_code=HANGUP)

        def close(self) -> None:
            if self._wake is not None:
                write_end = self._wake[1]
                self._wake = None
                try:
                    os.write(write_end, b"x")  # the watcher leaves (and closes the read end)
                except OSError:  # it left already: the terminal hung up
                    pass
                os.close(write_end)
            super().close()

    return HangupDriver
