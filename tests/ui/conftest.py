"""Fixtures for the UI tests: the seeded demo (built once), a crafted store, a fixed clock."""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

# Wall-clock times in the panes are local time: pin the zone so snapshots are the same anywhere.
os.environ["TZ"] = "UTC"
time.tzset()

from memtui.core.demo import DEMO_START, build_demo  # noqa: E402
from memtui.core.store import AgentStore  # noqa: E402
from memtui.ui.app import MemtuiApp, make_app  # noqa: E402
from memtui.ui.screenshots import settle  # noqa: E402,F401  (shared with the screenshot script)

# "Now" for relative times ("3d ago"): a little after the demo's last recorded activity.
FIXED_NOW = DEMO_START + timedelta(days=30)

HOSTILE_TITLE = "[bold red]pwned[/] \x1b[31mred\x1b[0m bell\x07"
HOSTILE_RESULT = "[link=https://evil.example]click[/link] \x1b]0;title\x07 \x1b[2J done"


def fixed_clock() -> datetime:
    return FIXED_NOW


@pytest.fixture(scope="session")
def demo_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded demo workspace (seed 1, the demo's own fixed clock), built once per run."""
    root = tmp_path_factory.mktemp("demo") / "workspace"
    build_demo(root, seed=1)
    return root


def _crafted(root: Path) -> Path:
    """A small store with hostile text, a many-hunk file and a task with 1,200 steps."""
    clock_state = {"t": datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)}

    def clock() -> datetime:
        clock_state["t"] += timedelta(seconds=7)
        return clock_state["t"]

    with AgentStore.open(root, clock=clock) as store:
        sid = store.start_session(HOSTILE_TITLE)
        tid = store.start_task(sid, "Edit a long file " + HOSTILE_TITLE)
        before = "".join(f"line {i}\n" for i in range(600)).encode()
        after_lines = [f"line {i}\n" for i in range(600)]
        for at in (10, 250, 500):  # three hunks, each long enough to scroll to
            for k in range(at, at + 20):
                after_lines[k] = f"changed line {k} [red]literal[/red]\n"
        step = store.record_step(tid, "edit_file", {"path": "src/long.py", "note": "[b]x[/b]"}, HOSTILE_RESULT,
                                 tokens_in=100, tokens_out=20, cost=0.001, duration_ms=1500)
        store.record_checkpoint(tid, step, {"src/long.py": (before, "".join(after_lines).encode()),
                                            "assets/blob.bin": (None, bytes(range(256)) * 4)})
        store.record_step(tid, "bash", {"command": "false"}, "exit 1", status="error", error="command failed\x1b[0m")
        store.finish_task(tid, "failed", summary="gave up")
        big = store.start_task(sid, "A long task")
        with store.transaction():
            for i in range(1200):
                store.record_step(big, "read_file", {"path": f"f{i}.py"}, f"contents {i}", duration_ms=i)
    return root


@pytest.fixture(scope="session")
def crafted_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _crafted(tmp_path_factory.mktemp("crafted") / "workspace")


@pytest.fixture
def app_for() -> Callable[..., MemtuiApp]:
    """make_app with the fixed clock."""
    def build(path: Path, **kw: Any) -> MemtuiApp:
        kw.setdefault("shown_path", "~/demo")  # tmp paths differ per run; snapshots must not
        return make_app(path, clock=fixed_clock, **kw)
    return build


@pytest.fixture
def settled() -> Callable[[Any], Awaitable[None]]:
    return settle
