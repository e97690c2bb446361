"""`memtui serve --team URL --read-only` end to end: a team store on a real PostgreSQL server,
pushed from two machines built from the real transcripts, served by a real server process behind
its token guard and read in a real headless Chromium: the sessions of both machines are listed
with their machine, and a write (a pin, a rollback) is refused with a toast that says why.

Skipped, with the reason printed, where Playwright, textual-serve, a Chromium or PostgreSQL is
missing."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from browser_support import BrowserTerminal, missing_browser_parts, served

from memtui.core.team.push import push

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from team_machines import transcript_machines  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(bool(missing_browser_parts()), reason=missing_browser_parts() or "ready"),
]


def toasts(screen: str) -> str:
    """The text of the toasts on the screen, their lines joined (a toast is drawn at the right
    with a left border, `▌`, over the panes; its message is wrapped to its width)."""
    lines = [line.split("▌", 1)[1].rstrip().rstrip("│").strip() for line in screen.splitlines() if "▌" in line]
    return " ".join(" ".join(lines).split())


def toast_says(page: BrowserTerminal, words: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while words not in toasts(page.text()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no toast said {words!r}; the screen shows:\n{page.text()}")
        time.sleep(0.1)


def test_the_team_web_view_lists_two_machines_and_refuses_writes(pg_cluster, tmp_path: Path) -> None:
    url = pg_cluster.new_database()
    laptop, _, ci = transcript_machines(tmp_path / "machines")
    for machine in (laptop, ci):  # laptop: Claude Code; ci: Codex
        push(machine.paths, url, machine=machine.name, env=machine.env)
    scratch = tmp_path / "server-home"
    env = {**os.environ, "HOME": str(scratch), "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
           "CODEX_HOME": str(scratch / "codex"), **{var: str(scratch / var.lower()) for var in (
               "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")}}
    env.pop("MEMTUI_TEAM_URL", None)
    log = tmp_path / "serve.log"
    with served(tmp_path, read_only=True, log=log, env=env, extra=("--team", url)) as address, \
            BrowserTerminal(address) as page:
        assert "?token=" in address  # the guard's token: the page is reached through it
        page.wait_for("Sessions", "Machine", "laptop", "ci", "claude-code", "codex", "read-only",
                      "M Machine")  # the footer offers what the team store can do: it is open
        # A pin is a write: on the tasks pane, p is refused, saying why.
        page.press("2")
        page.wait_for("Tasks · session")
        deadline = time.monotonic() + 60
        while "M Machine" in page.text().splitlines()[-1] and time.monotonic() < deadline:
            time.sleep(0.1)  # until the focus is on the tasks pane (their footer has no M)
        page.press("p")
        toast_says(page, "can't pin tasks: memtui was started with --read-only")
        # So is a rollback: the team store writes no files; the toast says where they are rolled back.
        page.press("r")
        toast_says(page, "can't roll files back: files are rolled back only on the machine that owns them")
        assert "Failed" not in toasts(page.text())  # the opening and every read went through
    served_log = log.read_text(errors="replace")
    assert "password" not in served_log and "Traceback" not in served_log
