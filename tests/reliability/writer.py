"""A concurrent writer: an agent recording a step every 5 ms through its own connection while
another process collects garbage, browses or VACUUMs. Lost, phantom and the longest wait."""

from __future__ import annotations

import subprocess
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import harness as h

WRITER_CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from memtui.core.store import AgentStore
    store = AgentStore.open(sys.argv[1])
    stop = Path(sys.argv[2])
    s = store.start_session("live agent")
    t = store.start_task(s, "recording every 5 ms")
    print("ready", t, flush=True)
    i = 0
    tick = time.monotonic()
    while not stop.exists():
        t0 = time.monotonic()
        try:
            store.record_step(t, "tick", {"i": i}, "ok")
        except Exception as exc:
            print("error", i, type(exc).__name__, str(exc).replace("\\n", " "), flush=True)
        else:
            print("acked", i, round((time.monotonic() - t0) * 1000, 2), flush=True)
        i += 1
        tick += 0.005
        time.sleep(max(0.0, tick - time.monotonic()))
""")


@dataclass
class WriterFigures:
    steps: int
    lost: int
    phantom: int
    errors: list[str]
    max_wait_ms: float
    waits: list[float]

    def line(self, label: str) -> str:
        p99 = sorted(self.waits)[int(0.99 * (len(self.waits) - 1))] if self.waits else 0.0
        return (f"| writer every 5 ms during {label} | {self.steps} steps | lost {self.lost} | phantom {self.phantom}"
                f" | errors {len(self.errors)} | max wait {self.max_wait_ms:.0f} ms (p99 {p99:.0f} ms) |")


class Writer:
    """Start with `with Writer(db) as w:`; figures in `w.figures` after the block."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.stop = self.workspace / "stop-writer"
        self.figures: WriterFigures | None = None

    def __enter__(self) -> "Writer":
        self.stop.unlink(missing_ok=True)
        self.proc = subprocess.Popen(h.python() + ["-c", WRITER_CHILD, str(self.workspace), str(self.stop)],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=h.env())
        self.lines = h.Lines(self.proc)
        line = self.lines.wait_for("ready", 60)
        assert line.startswith("ready"), f"the writer did not start: {line!r}"
        self.task = int(line.split()[1])
        time.sleep(0.1)  # a few steps before the operation starts
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.1)
        self.stop.touch()
        self.proc.wait(timeout=60)
        out, err = self.lines.text(), ""
        self.stop.unlink(missing_ok=True)
        acked: dict[int, float] = {}
        errors = []
        for line in h.whole_lines(out):
            parts = line.split() or ["-"]
            if parts[0] == "acked":
                acked[int(parts[1])] = float(parts[2])
            elif parts[0] == "error":
                errors.append(line)
        if self.proc.returncode:
            errors.append(f"writer exited {self.proc.returncode}: {err.strip()[-300:]}")
        import json
        import sqlite3

        conn = sqlite3.connect(self.workspace / ".agent" / "agent.db")
        try:
            stored = {json.loads(a)["i"] for (a,) in conn.execute(
                "SELECT args FROM step WHERE task_id = ? AND tool = 'tick'", (self.task,))}
        finally:
            conn.close()
        self.figures = WriterFigures(
            steps=len(acked), lost=len(set(acked) - stored), phantom=len(stored - set(acked)), errors=errors,
            max_wait_ms=max(acked.values(), default=0.0), waits=list(acked.values()))
        self.unacked = sorted(stored - set(acked))
        self.out = out
