"""A terminal that goes away without a SIGHUP (its pty master closed: a dropped ssh
connection, a killed terminal emulator) ends the app: it neither lives on spinning a core on
its dead input nor blocks on its output. Without a terminal to read keys from, the app does
not start."""

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


@pytest.mark.parametrize("verb", ["open", "demo"])
def test_without_a_terminal_to_read_keys_from_the_app_is_refused_in_one_line(demo_path, tmp_path, verb):
    """Standard input not a terminal (`memtui open < /dev/null`, a pipe, a service): the app
    could never read a key, q included. It says so and exits instead of starting."""
    import subprocess

    argv = [sys.executable, "-m", "memtui", verb, str(demo_path if verb == "open" else tmp_path / "demo")]
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "standard input is not one" in done.stderr, done.stderr
    assert not (tmp_path / "demo").exists()  # nothing built either


async def test_a_hangup_while_leaving_keeps_the_quit_code(demo_path, open_app):
    """q, then the terminal closes before the app is gone (a window closed right after q): the
    hangup's quit comes second and must not turn the user's quit into 129 (seen on a pty with
    the terminal closed 1 ms after q)."""
    from memtui.ui.terminal_driver import HANGUP

    async with open_app(demo_path) as pilot:
        app = pilot.app
        app.action_quit()  # q
        app.action_quit(return_code=HANGUP)  # the hangup watcher's call, a moment later
    assert app.return_code == 0
