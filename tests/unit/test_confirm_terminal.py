"""A destructive verb's question on a terminal shows stored text literally: a recorded path
holding escape sequences (a window title, colours) is drawn with control pictures, never sent
to the terminal raw (`--dry-run` and the verbs' output already were; the question was not)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from hostile_text import assert_no_raw
from rollback_world import World

NAME = "evil\x1b]0;PWNED\x07\x1b[31mred.txt"


def _on_a_terminal(argv: list[str], answer: bytes, env: dict[str, str]) -> str:
    """What `argv` writes to a terminal (stdin, stdout and stderr a pty) when `answer` is typed."""
    main, child = pty.openpty()
    proc = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=env, close_fds=True)
    os.close(child)
    out, sent, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        if not sent and b"[y/N]" in out:
            os.write(main, answer)
            sent = True
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=30)
    os.close(main)
    return out.decode("utf-8", "replace")


def test_the_rollback_question_draws_a_hostile_path_literally(tmp_path) -> None:
    world = World(tmp_path)
    world.write(NAME, b"v0\n")
    task = world.task()
    world.edit(task, {NAME: b"v1\n"})
    world.close()
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    shown = _on_a_terminal([sys.executable, "-m", "memtui", "rollback", str(world.root), "--task", str(task)],
                           b"n\n", env)
    assert "[y/N]" in shown and "nothing changed" in shown and "dry run" not in shown, shown
    assert "evil␛]0;PWNED␇␛[31mred.txt" in shown, shown
    assert_no_raw(shown.replace("\r", ""), "the rollback question")
    assert world.read(NAME) == b"v1\n"  # the answer was no
