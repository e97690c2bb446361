"""Browsing the 100k store: cursor move → settled frame, per pane, and peak memory (not
collected by pytest).

    python tests/bench/browse.py                    # the cached 100k store (big_store.py)
    python tests/bench/browse.py --store DIR --moves 40

How it measures (Textual's own timing, in-process): the app runs under Textual's headless
driver at 120×40 and the bench presses keys through Pilot, as a terminal's key events would
arrive. Every frame the compositor produces is timestamped once it is encoded as the terminal
driver would encode it (App._display: the headless driver skips the encoding, so the bench
does it, on the UI thread, as a terminal would; only the write to a terminal is left out).
A move is one key press (down, or up at the end of a list) in the sessions, tasks or steps
pane, made when the previous move has settled and the cursor has been still for longer than
the panes' settle delay (so each move loads at once, as a single key press does). A move is
over when the screen is settled (every pane shows what the one above selects, nothing waits
to load) and no frame came for QUIET seconds. Its frames are then applied, in order, to an
image of the screen (character and style of every cell, as a terminal applies the bytes):
(a) "cursor drawn" is the first frame after which the moved list's rows look as they finally
do; (b) "settled" the first after which the tasks, steps, changed-files and diff panes do
(scrollbars and titles included). Reading the widgets' state at a frame is not enough: a
frame can be drawn after a list's records are set and before its rows are. The CPU time the
UI thread spent from the press to the settled frame is reported too (steadier than wall time
when other programs share the machine), and the garbage collector's pauses in that time (any
thread's: a pass holds the interpreter). The demo's tasks change files in their last steps
only, so moving over the first steps never reads a checkpoint: the row "steps, checkpoint"
moves between two adjacent steps that both changed files (files, line counts and the diff
are read and drawn at each move). Its tasks have 12 steps: filling the list with a long
task's page is measured apart (steps_page.py).

Anchor, from the same run: the reads each move triggered (memtui.ui.pane_reads' task forest,
step page, checkpoint files and line counts, and the store's read_entry for the diff), timed
where they run in the panes' worker threads: those made from the key to the settled frame, and
those read ahead (memtui.ui.read_ahead: the rows next to the cursor, read in a worker after the
previous move's frame) between the previous move's settled frame and the key (a result read
ahead is kept, so moving back and forth over the same rows reads nothing more). The ratio is
over what the move shows, read again by the bench once the move is over, in a thread of its own
(the read function the pane's worker uses: a session's tasks and first steps, a task's first
steps, a step's changed files with the first diff and line counts), database work only. Peak RSS is the process's high-water mark
(ru_maxrss: the app, its store connections and this bench's bookkeeping) after browsing,
with the app's own header figures and the whole sessions list loaded first.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SIZE = (120, 40)
STILL = 0.2  # seconds between moves: longer than MainScreen.SETTLE_DELAY (a single key press)
ANCHOR_THREAD = "bench-anchor"
QUIET = 0.15  # a move is over once the screen is settled and no frame came for this long


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Recorder:
    """Frame times (with whether the screen was settled then) and the reads' durations."""

    def __init__(self) -> None:
        self.frames: list[tuple[float, float, object]] = []  # (time, UI thread CPU, the update drawn)
        self.screen_image = ScreenImage(*SIZE)
        self.reads: list[tuple[float, float]] = []  # (start, seconds)
        self.lock = threading.Lock()
        self.screen = None
        self.applied = 0  # frames applied to screen_image
        self.collections: list[tuple[float, float]] = []  # (start, seconds) of each GC pass
        self._gc_start = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.collections.append((self._gc_start, time.perf_counter() - self._gc_start))

    def collecting_between(self, start: float, end: float) -> float:
        return sum(d for t, d in self.collections if start <= t <= end)

    def timed(self, fn):
        def wrapper(*args, **kwargs):
            if threading.current_thread().name.startswith(ANCHOR_THREAD):  # the bench's own anchor reads
                return fn(*args, **kwargs)
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with self.lock:
                    self.reads.append((t0, time.perf_counter() - t0))
        return wrapper

    def reads_between(self, start: float, end: float) -> float:
        with self.lock:
            return sum(d for t, d in self.reads if start <= t <= end)


def settled(screen) -> bool:
    """Every pane shows what the one above it highlights (read from the widgets themselves,
    not from the screen's bookkeeping), and nothing waits to load."""
    from textual.widgets import ContentSwitcher

    from memtui.ui.widgets.checkpoint_files import CheckpointFiles
    from memtui.ui.widgets.sessions_table import OrphansRow, SessionsTable
    from memtui.ui.widgets.step_timeline import StepTimeline
    from memtui.ui.widgets.task_tree import TaskTree

    if screen.debounce.pending or screen.bottom.debounce.pending:
        return False
    session = screen.query_one(SessionsTable).current_record()
    tree = screen.query_one(TaskTree)
    if session is not None and tree.session_id != (None if isinstance(session, OrphansRow) else session.id):
        return False
    task = tree.current_task()
    timeline = screen.query_one(StepTimeline)
    if task is not None and timeline.task_id != task.id:
        return False
    if "loading" in str(screen.query_one("#steps-pane").border_subtitle or ""):
        return False
    step = timeline.current_record()
    bottom = screen.bottom
    if (step is None) != (bottom.step is None) or (step is not None and bottom.step.id != step.id):
        return False
    if "loading" in str(screen.query_one("#files-pane").border_subtitle or ""):
        return False
    entry = screen.query_one(CheckpointFiles).current_record() if step and step.checkpoint_id else None
    diff = bottom.diff
    if entry is not None and (diff.entry is None or diff.entry.id != entry.id):
        return False
    return diff.entry is None or diff.query_one(ContentSwitcher).current == "diff-view"


def quiet(screen) -> bool:
    """Settled, and no worker of the main screen running (a frame still to come is waited for
    by QUIET)."""
    return settled(screen) and not screen.workers


def cursor_of(widget) -> int:
    """The row (table) or line (tree) of the widget's cursor."""
    from memtui.ui.widgets.task_tree import TaskTree

    return widget.cursor_line if isinstance(widget, TaskTree) else widget.cursor_row


class ScreenImage:
    """What a terminal shows: each frame's update applied cell by cell (character and style),
    as the terminal would apply the bytes the driver writes."""

    def __init__(self, width: int, height: int) -> None:
        self.cells = [[(" ", None)] * width for _ in range(height)]
        self.width = width

    def apply(self, update, console) -> None:
        from rich.cells import cell_len
        from rich.segment import ControlType

        x = y = 0
        for segment in update.__rich_console__(console, console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            if segment.text == "\n":
                continue
            row = self.cells[y]
            for ch in segment.text:
                if x < self.width:
                    row[x] = (ch, segment.style)
                x += cell_len(ch)

    def region(self, region) -> tuple:
        return tuple(tuple(self.cells[y][region.x:region.right]) for y in range(region.y, region.bottom))


def read_shown(app, screen, pane: str) -> float:
    """Seconds the reads behind what `pane`'s move shows take (the workers' own read functions)."""
    from memtui.ui.screens.main_reads import read_steps, read_tasks, session_key
    from memtui.ui.widgets.checkpoint_panes import read_entries
    from memtui.ui.widgets.sessions_table import SessionsTable
    from memtui.ui.widgets.step_timeline import StepTimeline
    from memtui.ui.widgets.task_tree import TaskTree

    with app.reading() as source:
        t0 = time.perf_counter()
        if pane == "sessions":
            read_tasks(source, session_key(screen.query_one(SessionsTable).current_record()))
        elif pane == "tasks":
            read_steps(source, screen.query_one(TaskTree).current_task().id)
        else:
            step = screen.query_one(StepTimeline).current_record()
            if step.checkpoint_id is None:
                return 0.0
            read_entries(source, (step.id, step.checkpoint_id))
        return time.perf_counter() - t0


def instrument(rec: Recorder) -> None:
    from textual._compositor import CompositorUpdate

    from memtui.core.store import AgentStore
    from memtui.ui import pane_reads
    from memtui.ui.app import MemtuiApp

    for name in ("task_forest", "step_page", "checkpoint_files", "line_counts"):
        setattr(pane_reads, name, rec.timed(getattr(pane_reads, name)))
    AgentStore.read_entry = rec.timed(AgentStore.read_entry)
    display = MemtuiApp._display

    def _display(app, screen, renderable):
        if renderable is not None and isinstance(renderable, CompositorUpdate):
            if app.is_headless:
                renderable.render_segments(app.console)  # what a terminal driver would write
            rec.frames.append((time.perf_counter(), time.thread_time(), renderable))
        return display(app, screen, renderable)

    MemtuiApp._display = _display


async def browse(root: Path, moves: int) -> dict:
    from memtui.ui.app import make_app
    from memtui.ui.screens.main import MainScreen
    from memtui.ui.widgets.sessions_table import SessionsTable
    from memtui.ui.widgets.step_timeline import StepTimeline
    from memtui.ui.widgets.task_tree import TaskTree

    rec = Recorder()
    instrument(rec)
    before_app = rss_mib()
    app = make_app(root)
    out: dict = {"rss_before_app": before_app}
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.to_thread(app.first_paint.wait, 60)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        rec.screen = screen
        deadline = time.perf_counter() + 60
        table = screen.query_one(SessionsTable)
        while time.perf_counter() < deadline and (
                app.measured is None or app.measured.gc_pending or "…" in str(
                    screen.query_one("#sessions-pane").border_subtitle) or not settled(screen)):
            await asyncio.sleep(0.05)
        out["listed"] = sum(1 for _ in table.records)
        gc.collect()
        out["rss_after_open"] = rss_mib()

        panes = [screen.query_one(f"#{name}-pane") for name in ("tasks", "steps", "files", "diff")]

        def catch_up(upto: int) -> None:
            """Apply the frames drawn so far to the screen image (outside any timing)."""
            while rec.applied < upto:
                drawn_at, cpu, update = rec.frames[rec.applied]
                rec.screen_image.apply(update, app.console)
                rec.frames[rec.applied] = (drawn_at, cpu, None)  # not kept: the app's heap only
                rec.applied += 1

        last_settled = [time.perf_counter()]
        anchors = ThreadPoolExecutor(1, thread_name_prefix=ANCHOR_THREAD)

        async def press(key: str, widget, pane: str) -> tuple[float, float, float, float, float, float, float]:
            """(cursor drawn, settled, reads, UI CPU, GC pauses, reads ahead, reads of what is shown)
            after pressing `key` in `widget`."""
            await asyncio.sleep(STILL)
            catch_up(len(rec.frames))
            start = len(rec.frames)
            t0, c0 = time.perf_counter(), time.thread_time()
            await pilot.press(key)
            deadline = t0 + 30
            while not (quiet(screen) and len(rec.frames) > start and time.perf_counter() - rec.frames[-1][0] > QUIET):
                assert time.perf_counter() < deadline, "the screen did not settle in 30 s"
                await asyncio.sleep(0.005)
            # Replay the move's frames: (a) is the first after which the moved widget's rows
            # look as they finally do, (b) the first after which the four panes below do.
            cursor_area, pane_areas = widget.scrollable_content_region, [pane.region for pane in panes]
            images = []
            for index in range(start, len(rec.frames)):
                catch_up(index + 1)
                image = rec.screen_image
                images.append((image.region(cursor_area), [image.region(area) for area in pane_areas]))
            final = images[-1]
            drawn = next(i for i, image in enumerate(images) if image[0] == final[0])
            done = next(i for i, image in enumerate(images) if image == final)
            (drawn_at, _, _), (settled_at, cpu, _) = rec.frames[start + drawn], rec.frames[start + done]
            ahead = rec.reads_between(last_settled[0], t0)
            shown = await asyncio.get_running_loop().run_in_executor(anchors, read_shown, app, screen, pane)
            last_settled[0] = settled_at
            return (drawn_at - t0, settled_at - t0, rec.reads_between(t0, settled_at), cpu - c0,
                    rec.collecting_between(t0, settled_at), ahead, shown)

        async def move(widget, pane: str) -> tuple[float, float, float, float, float, float, float]:
            at_end = cursor_of(widget) >= (widget.last_line if isinstance(widget, TaskTree) else widget.row_count - 1)
            key = "up" if at_end or getattr(widget, "_bench_up", False) else "down"
            if at_end:
                widget._bench_up = True
            if key == "up" and cursor_of(widget) <= 1:
                widget._bench_up = False
            return await press(key, widget, pane)

        for pane, key, kind in (("sessions", "1", SessionsTable), ("tasks", "2", TaskTree),
                                ("steps", "3", StepTimeline)):
            await pilot.press(key)
            widget = screen.query_one(kind)
            await asyncio.sleep(0.3)
            out[pane] = [await move(widget, pane) for _ in range(moves)]
        timeline = screen.query_one(StepTimeline)
        pair = next((i for i in range(len(timeline.matching) - 1) if timeline.matching[i].checkpoint_id
                     and timeline.matching[i + 1].checkpoint_id), None)
        if pair is not None:
            timeline.move_cursor(row=pair, animate=False)
            while not quiet(screen):
                await asyncio.sleep(0.05)
            out["steps, checkpoint"] = [await press("down" if i % 2 == 0 else "up", timeline, "steps, checkpoint")
                                        for i in range(moves)]
        out["rss_peak"] = rss_mib()
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    from big_store import add_store_option, chosen_store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_store_option(ap)
    ap.add_argument("--moves", type=int, default=30, help="moves per pane")
    args = ap.parse_args()
    root = chosen_store(args)
    out = asyncio.run(browse(root, args.moves))
    db = root / ".agent" / "agent.db"
    from textual.constants import MAX_FPS

    print(f"store: {db} ({db.stat().st_size / 2**30:.2f} GiB, {out['listed']:,} sessions listed);"
          f" {args.moves} moves per pane (medians); Textual headless driver {SIZE[0]}×{SIZE[1]}, {MAX_FPS} fps;"
          f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| pane | (a) key → cursor drawn | (b) key → settled frame | (b) p95 | UI thread CPU to settle |"
          " of it in GC | reads in the move + read ahead before it | reads of what it shows (anchor) |"
          " settled / anchor |")
    print("|---|---|---|---|---|---|---|---|---|")
    for pane in ("sessions", "tasks", "steps", "steps, checkpoint"):
        if pane not in out:
            print(f"| {pane} | — (no two adjacent steps with a checkpoint) | | | | | | | |")
            continue
        drawn = [m[0] for m in out[pane]]
        done = [m[1] for m in out[pane]]
        reads = [m[2] for m in out[pane]]
        cpu = statistics.median(m[3] for m in out[pane])
        collecting = statistics.mean(m[4] for m in out[pane])
        r, ahead = statistics.median(reads), statistics.median(m[5] for m in out[pane])
        anchor = statistics.median(m[6] for m in out[pane])
        ratio = f"{statistics.median(done) / anchor:.1f}×" if anchor else "— (no reads: steps without files)"
        print(f"| {pane} | {statistics.median(drawn) * 1000:.1f} ms | {statistics.median(done) * 1000:.1f} ms |"
              f" {p95(done) * 1000:.1f} ms | {cpu * 1000:.1f} ms | {collecting * 1000:.1f} ms (mean) |"
              f" {r * 1000:.2f} + {ahead * 1000:.2f} ms | {anchor * 1000:.2f} ms |"
              f" {ratio} |")
    print(f"peak RSS {out['rss_peak']:.0f} MiB (after opening, whole list and header figures loaded:"
          f" {out['rss_after_open']:.0f} MiB; Python with the bench, before the app: {out['rss_before_app']:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
