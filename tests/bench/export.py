"""Benchmark: `memtui export` of real sessions, against reading the same records.

Run from the project root:  python tests/bench/export.py [--repeat N]

Inputs: the seeded demo's session with sub-agents, and the two sessions Claude Code 2.1.39
wrote in tests/fixtures/real/claude-2.1.39-spotter (see PROVENANCE.md). The anchor, measured
in the same run on the same source, is reading what the export needs through the read model
(tasks, steps, checkpoints, entries and their before/after contents) without building or
rendering anything; the ratio columns say how much the document costs on top of that. Best of
--repeat runs, CPU time (the steadier figure on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, ROOT / "tests" / "unit"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from memtui.core.demo import build_demo  # noqa: E402
from memtui.core.export import build_export, render_export  # noqa: E402
from memtui.core.discovery import discover  # noqa: E402
from memtui.core.task_tree import build_task_tree  # noqa: E402


def read_only(source, session_id) -> None:
    """The anchor: every record the export reads, read and dropped."""
    tree = build_task_tree(source, session_id)
    for task in tree.by_id.values():
        list(source.steps(task.id))
        list(source.messages(task.id))
        for cp in source.checkpoints(task.id):
            for entry in source.checkpoint_entries(cp.id):
                try:
                    source.read_entry(entry.id)
                except Exception:  # a change whose contents the store does not hold
                    pass


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from real_support import real_home

    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        build_demo(demo, seed=1)
        cases = [("demo session 4 (4 tasks)", next(s for s in discover(demo) if s.kind == "memtui"), 4)]
        home = real_home("claude-2.1.39-spotter", Path(tmp))
        claude = next(s for s in discover(home) if s.kind == "claude-code")
        for session in claude.open().sessions():
            cases.append((f"Claude Code {session.id[:8]}", claude, session.id))
        print(f"{'session':<26} {'read (anchor)':>13} {'build':>9} {'md':>8} {'html':>8} {'json':>8}"
              f" {'html/read':>10} {'html KiB':>9}")
        for label, entry, sid in cases:
            source = entry.open()
            read_s = best(lambda: read_only(source, sid), args.repeat)
            build_s = best(lambda: build_export(source, session_id=sid), args.repeat)
            doc = build_export(source, session_id=sid)
            renders = {fmt: best(lambda f=fmt: render_export(doc, f), args.repeat) for fmt in ("md", "html", "json")}
            size = len(render_export(doc, "html").encode()) / 1024
            print(f"{label:<26} {read_s * 1000:>10.0f} ms {build_s * 1000:>6.0f} ms"
                  f" {renders['md'] * 1000:>5.0f} ms {renders['html'] * 1000:>5.0f} ms {renders['json'] * 1000:>5.0f} ms"
                  f" {(build_s + renders['html']) / read_s:>9.1f}× {size:>9.0f}")
        for _, entry, _ in cases:
            entry.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
