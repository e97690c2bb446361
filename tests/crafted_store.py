"""A small crafted store for UI tests: hostile text, a many-hunk file, a task of 1,200 steps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from memtui.core.store import AgentStore

HOSTILE_TITLE = "[bold red]pwned[/] \x1b[31mred\x1b[0m bell\x07"
HOSTILE_RESULT = "[link=https://evil.example]click[/link] \x1b]0;title\x07 \x1b[2J done"


def build_crafted(root: Path) -> Path:
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
