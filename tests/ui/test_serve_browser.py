"""`memtui serve` end to end: a real server process, a real headless Chromium, real keys.

Skipped, with the reason printed, where Playwright, textual-serve or a system Chromium is
missing (`apt-get install chromium`; `.ci/run` installs it). Everything stays on loopback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_support import BrowserTerminal, missing_browser_parts, served

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(bool(missing_browser_parts()), reason=missing_browser_parts() or "ready"),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from memtui.core.demo import build_demo

    root = tmp_path_factory.mktemp("served") / "workspace"
    build_demo(root, seed=1)
    return root


def test_browse_sessions_diff_and_gc_preview_in_chromium(workspace: Path, tmp_path: Path) -> None:
    with served(workspace, log=tmp_path / "serve.log") as url, BrowserTerminal(url) as page:
        # The sessions pane, newest session highlighted, its task beside it.
        page.wait_for("Sessions", "Speed up the test", "Tasks · session 10", "Profile and shorten slow tests")
        # The tasks pane offers its writes (served --read-only, it does not: the test below).
        page.press("2")
        page.wait_for("p Pin", "r Roll back", "g GC")
        page.press("1")
        # j moves down the sessions: the tasks pane follows.
        page.press("j")
        page.wait_for("Tasks · session 9", "Choose the version bump")
        page.press("j")
        page.wait_for("Tasks · session 8", "Remove the draft docs page")
        # 3 goes to the steps; the first step wrote a file, so its diff shows.
        page.press("3")
        page.wait_for("Diff · docs/draft.md", "@@ -0,0 +1,3 @@", "To be removed.", "A  docs/draft.md")
        # g opens the GC preview: what is live, what may go, and why.
        page.press("g")
        page.wait_for("GC preview", "nothing is deleted until you apply", "reclaimable", "live via #8 (handoff)")
        page.press("Escape")
        page.wait_for("Tasks · session 8")
        # $EDITOR cannot run in a browser: the action says so and offers the built-in editor.
        page.press("m")
        page.wait_for("Long-term memory", "MEMORY.md")
        page.press("j", "j")
        page.wait_for("HISTORY.jsonl  ·  3 lines")
        page.press("E")
        page.wait_for("$EDITOR needs a terminal on this machine", "Edit here (y)")


def test_read_only_serving_offers_no_write_and_writes_nothing(workspace: Path, tmp_path: Path) -> None:
    from memtui.core.store import AgentStore

    with served(workspace, read_only=True, log=tmp_path / "serve.log") as url, BrowserTerminal(url) as page:
        page.wait_for("Tasks · session 10", "Profile and shorten slow tests", "z Zoom", "? Help")
        # The tasks pane, then p (pin: a write) and x (export) typed at once. Pin is not offered:
        # its key does nothing; the export names the task, so the focus was on the tasks pane.
        page.press("2", "p", "x")
        page.wait_for("Your browser downloads the file", "Export task 18")
        name, data = page.download("Tab", "Tab", "Enter")  # past the format and memory choices: Export
        assert name == "memtui-task-18.html"
        assert data.startswith(b"<!DOCTYPE html>") and b"Profile and shorten slow tests" in data
        # Back on the tasks pane: its footer offers no write (served writable, it shows p Pin).
        footer = page.wait_for("Your browser is downloading", "z Zoom").splitlines()[-1]
        for write in ("p Pin", "r Roll back", "u Undo"):
            assert write not in footer, footer
    with AgentStore.open(workspace, readonly=True) as store:
        assert not store.task(18).pinned
