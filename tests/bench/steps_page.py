"""Filling the steps list with a task's first page (what a cursor move onto a long task costs
the UI thread), not collected by pytest.

    python tests/bench/steps_page.py

The 100k demo's tasks have 12 steps each, so browse.py never shows this cost: here the crafted
test store's task of 1,200 steps is selected (its first page holds 500 steps) and
StepTimeline.show_steps is timed on it again and again in a headless app (CPU time of the UI
thread, the minimum of the rounds). Anchor from the same run: reading that page from the
store (memtui.ui.pane_reads.step_page, as the panes' worker does).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

ROUNDS = 15


async def measure(workspace: Path) -> tuple[int, float, float]:
    from memtui.ui import pane_reads
    from memtui.ui.app import make_app
    from memtui.ui.widgets.step_timeline import STEP_PAGE, StepTimeline
    from memtui.ui.widgets.task_tree import TaskTree

    app = make_app(workspace)
    async with app.run_test(size=(120, 40)):
        async def quiet() -> None:
            for _ in range(300):
                await asyncio.sleep(0.05)
                if not app.screen.busy:
                    return

        await quiet()
        tree = app.screen.query_one(TaskTree)
        task = next(n.data for n in tree.root.children if n.data.title == "A long task")
        tree.select_task(task.id)
        await quiet()
        timeline = app.screen.query_one(StepTimeline)
        records = list(timeline.records)
        fill = read = float("inf")
        for _ in range(ROUNDS):
            start = time.thread_time()
            timeline.show_steps(timeline.task_id, records, len(records))
            fill = min(fill, time.thread_time() - start)
            await asyncio.sleep(0.05)  # the frame is drawn between rounds
            with app.reading() as source:
                start = time.thread_time()
                pane_reads.step_page(source, task.id, 0, STEP_PAGE, True)
                read = min(read, time.thread_time() - start)
    return len(records), fill, read


def main() -> int:
    from crafted_store import build_crafted

    with tempfile.TemporaryDirectory() as tmp:
        count, fill, read = asyncio.run(measure(build_crafted(Path(tmp) / "workspace")))
    print(f"| steps in the page | show_steps (UI thread CPU, min of {ROUNDS}) | reading the page (anchor) | ratio |")
    print("|---|---|---|---|")
    print(f"| {count} | {fill * 1000:.2f} ms | {read * 1000:.2f} ms | {fill / read:.1f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
