"""GC benchmark on demo stores (not collected by pytest).

    python tests/bench/gc.py --scale 20000 --scale 100000        # builds demos in a temp dir
    python tests/bench/gc.py --store /tmp/d20k --store /tmp/d100k   # reuse `memtui demo DIR --scale N`

    python tests/bench/gc.py --big --preview-only               # the cached 100k store (big_store.py)

First the dry run as a user meets it: `memtui gc PATH --dry-run --json` into a pipe, in a
child process (wall time and peak RSS), against its anchor measured in the same run, paired
and alternated: the whole preview as ONE SQL statement (per task: live or not, steps and
their payload bytes, checkpoints, entries — grouped scans of the step, checkpoint and entry
tables) fetched by a child Python with sqlite3. Then, for each store: the live set (Python
walk with reasons) next to one recursive SQL query in the same run, the full plan with byte
accounting, peak memory of the plan, then apply on a copy of the database while a second
process keeps inserting steps with its own connection (its longest wait is what an agent
would feel), and apply's throughput.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as `python tests/bench/gc.py` from a checkout, like the other benches
    sys.path.insert(0, str(ROOT))

from memtui.core.gc import apply_gc, find_roots, live_set, live_set_sql, plan_gc  # noqa: E402
from memtui.core.stats import db_stats  # noqa: E402
from memtui.core.store import AgentStore  # noqa: E402


def _best(fn, repeat: int = 3) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return min(times), value


def _writer(db_path: str, ready, stop, out, pause: float) -> None:
    """A concurrent agent: records a small step every `pause` seconds, timing each call."""
    store = AgentStore.open(db_path)
    session = store.start_session("concurrent writer")
    task = store.start_task(session, "keeps writing")
    ready.set()
    waits = []
    while not stop.is_set():
        t0 = time.perf_counter()
        store.record_step(task, "bash", {"command": "true"}, "ok")
        waits.append(time.perf_counter() - t0)
        time.sleep(pause)
    store.close()
    out.put(waits)


def _writer_stats(waits: list[float]) -> dict:
    if not waits:
        return {"n": 0, "max_ms": 0.0, "p99_ms": 0.0, "median_ms": 0.0}
    waits = sorted(waits)
    return {"n": len(waits), "max_ms": waits[-1] * 1000, "p99_ms": waits[int(len(waits) * 0.99) - 1] * 1000,
            "median_ms": statistics.median(waits) * 1000}


PAUSE = 0.005


def _measure_writer(db_path: Path, during) -> tuple[dict, object]:
    ctx = mp.get_context("fork")
    ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=_writer, args=(str(db_path), ready, stop, out, PAUSE))
    proc.start()
    ready.wait(30)
    try:
        value = during()
    finally:
        stop.set()
    waits = out.get(timeout=60)
    proc.join(30)
    return _writer_stats(waits), value


ANCHOR_SQL = """
WITH RECURSIVE
  roots(id) AS (
    SELECT current_task_id FROM session WHERE status = 'open' AND current_task_id IS NOT NULL
    UNION SELECT id FROM task WHERE status IN ('running', 'waiting_user')
    UNION SELECT id FROM task WHERE pinned = 1),
  live(id) AS (
    SELECT id FROM roots
    UNION SELECT r.to_task FROM task_ref r JOIN live ON r.from_task = live.id WHERE r.kind IN ('handoff', 'depends')),
  st AS (SELECT task_id, COUNT(*) AS n, SUM(payload_bytes) AS b FROM step GROUP BY task_id),
  cp AS (SELECT task_id, COUNT(*) AS n FROM checkpoint GROUP BY task_id),
  en AS (SELECT c.task_id, COUNT(*) AS n FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id
         GROUP BY c.task_id)
SELECT t.id, t.session_id, t.status, t.id IN (SELECT id FROM live), st.n, st.b, cp.n, en.n
FROM task t LEFT JOIN st ON st.task_id = t.id LEFT JOIN cp ON cp.task_id = t.id LEFT JOIN en ON en.task_id = t.id
"""

ANCHOR_CHILD = """
import sqlite3, sys
conn = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro&immutable=1", uri=True)
rows = conn.execute(sys.argv[2]).fetchall()
assert rows
"""


def _child(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one child process, its stdout into a pipe."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = b"", b""
    import threading

    def drain() -> None:
        nonlocal out
        out = proc.stdout.read()

    reader = threading.Thread(target=drain)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:4]} failed: {proc.stderr.read().decode()[-500:]}")
    return wall, usage.ru_maxrss / 1024


def bench_preview(root: Path, runs: int = 5) -> dict:
    """`memtui gc --dry-run --json` against the one-statement SQL anchor, paired, alternated."""
    db = root / ".agent" / "agent.db" if root.is_dir() else root
    cli = [sys.executable, "-m", "memtui", "gc", str(db), "--dry-run", "--json"]
    anchor = [sys.executable, "-c", ANCHOR_CHILD, str(db.resolve()), ANCHOR_SQL]
    _child(cli), _child(anchor)  # warm the page cache for both
    cli_runs, anchor_runs = [], []
    for i in range(runs):
        pair = [(cli, cli_runs), (anchor, anchor_runs)]
        for argv, into in pair if i % 2 == 0 else reversed(pair):
            into.append(_child(argv))
    cli_s = statistics.median(w for w, _ in cli_runs)
    anchor_s = statistics.median(w for w, _ in anchor_runs)
    return {"store": str(db), "cli_s": cli_s, "anchor_s": anchor_s, "ratio": cli_s / anchor_s,
            "cli_rss": max(r for _, r in cli_runs), "anchor_rss": max(r for _, r in anchor_runs), "runs": runs}


def print_preview(rows: list[dict]) -> None:
    print("| store | `gc --dry-run --json` s | one SQL statement s (anchor) | ratio | CLI peak RSS MiB |"
          " anchor peak RSS MiB | pairs |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['store']} | {r['cli_s']:.2f} | {r['anchor_s']:.2f} | {r['ratio']:.2f}× | {r['cli_rss']:.0f} |"
              f" {r['anchor_rss']:.0f} | {r['runs']} |")


def bench_store(db_path: Path, batch: int, hold: float = 0.02, pause: float = 0.01) -> dict:
    row: dict = {"store": str(db_path), "hold_pause": f"{hold:g}/{pause:g}"}
    with AgentStore.open(db_path, readonly=True) as ro:
        row["tasks"] = ro.query("SELECT COUNT(*) FROM task")[0][0]
        row["refs"] = ro.query("SELECT COUNT(*) FROM task_ref")[0][0]
        row["db_mib"] = db_path.stat().st_size / 1048576
        py_time, live = _best(lambda: live_set(ro, find_roots(ro)))
        sql_time, live_sql = _best(lambda: live_set_sql(ro))
        assert set(live) == live_sql, "the Python walk and the recursive SQL disagree"
        row.update(live=len(live), live_py_s=py_time, live_sql_s=sql_time, ratio=py_time / sql_time)
        plan_time, plan = _best(lambda: plan_gc(ro), repeat=1)
        row.update(plan_s=plan_time, reclaimable=len(plan.reclaimable),
                   reclaimable_mib=plan.reclaimable_bytes / 1048576)
        tracemalloc.start()
        plan_gc(ro)
        row["plan_peak_mib"] = tracemalloc.get_traced_memory()[1] / 1048576
        tracemalloc.stop()

    work = Path(tempfile.mkdtemp(prefix="memtui-gc-bench-"))
    try:
        copy = work / "agent.db"
        with sqlite3.connect(db_path) as conn:  # a consistent copy, WAL included
            conn.execute(f"VACUUM INTO '{copy}'")
        with sqlite3.connect(copy) as conn:
            conn.execute("PRAGMA journal_mode=wal")
        baseline, _ = _measure_writer(copy, lambda: time.sleep(1.0))
        row["writer_idle_max_ms"] = baseline["max_ms"]
        store = AgentStore.open(copy)
        plan = plan_gc(store)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        writer, result = _measure_writer(copy, lambda: apply_gc(store, plan, batch=batch, hold=hold, pause=pause))
        row.update(
            apply_s=result.seconds, tasks_per_s=result.tasks / result.seconds if result.seconds else 0,
            mib_per_s=result.bytes / 1048576 / result.seconds if result.seconds else 0,
            collected=result.tasks, blobs=result.blobs, freed_mib=result.bytes / 1048576,
            freelist_mib=(result.freelist_after - result.freelist_before) * result.page_size / 1048576,
            writer_steps=writer["n"], writer_max_ms=writer["max_ms"], writer_p99_ms=writer["p99_ms"],
            writer_median_ms=writer["median_ms"],
            rss_mib=max(rss0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024,
        )
        row["healthy"] = store.query("PRAGMA quick_check") == [("ok",)] and not store.query("PRAGMA foreign_key_check")
        stats = db_stats(store)
        row["freelist_share"] = stats.freelist_share
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return row


COLUMNS = [
    ("tasks", "tasks", "{:,}"), ("hold_pause", "hold/pause s", "{}"), ("db_mib", "db MiB", "{:.0f}"), ("live", "live", "{:,}"),
    ("live_py_s", "live py s", "{:.3f}"), ("live_sql_s", "live SQL s", "{:.3f}"), ("ratio", "py/SQL", "{:.2f}"),
    ("plan_s", "plan s", "{:.2f}"), ("plan_peak_mib", "plan peak MiB", "{:.0f}"),
    ("reclaimable", "reclaimable", "{:,}"), ("reclaimable_mib", "recl. MiB", "{:.1f}"),
    ("apply_s", "apply s", "{:.1f}"), ("tasks_per_s", "tasks/s", "{:,.0f}"), ("mib_per_s", "MiB/s", "{:.1f}"),
    ("freelist_mib", "→ freelist MiB", "{:.1f}"),
    ("writer_idle_max_ms", "writer max ms (idle)", "{:.1f}"),
    ("writer_max_ms", "writer max ms (GC)", "{:.1f}"), ("writer_p99_ms", "writer p99 ms", "{:.1f}"),
    ("rss_mib", "max RSS MiB", "{:.0f}"), ("healthy", "ok", "{}"),
]


def print_table(rows: list[dict]) -> None:
    print("| " + " | ".join(h for _, h, _ in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(fmt.format(row.get(k, "")) for k, _, fmt in COLUMNS) + " |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", action="append", default=[], help="a workspace or agent.db (repeatable)")
    ap.add_argument("--scale", action="append", type=int, default=[], help="build a demo with N tasks first")
    ap.add_argument("--big", action="store_true", help="the cached 100,000-task demo store (big_store.py)")
    ap.add_argument("--preview-only", action="store_true", help="only the dry run against its SQL anchor")
    ap.add_argument("--runs", type=int, default=5, help="paired runs of the dry-run comparison")
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--writer-pause-ms", type=float, default=5.0,
                    help="the concurrent writer's pause between steps (an agent recording 100+ steps/s)")
    ap.add_argument("--hold", type=float, default=0.02, help="apply_gc: seconds of write transactions between pauses")
    ap.add_argument("--pause", type=float, default=0.01, help="apply_gc: seconds it pauses for other writers")
    args = ap.parse_args(argv)
    global PAUSE
    PAUSE = args.writer_pause_ms / 1000
    stores = [Path(s) for s in args.store]
    built = []
    for n in args.scale:
        from memtui.core.demo import build_demo

        t0 = time.perf_counter()
        root = build_demo(Path(tempfile.mkdtemp(prefix=f"memtui-demo-{n}-")), scale=n)
        print(f"built demo --scale {n} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        built.append(root)
        stores.append(root)
    if args.big:
        from big_store import make_big_store

        stores.append(make_big_store())
    print_preview([bench_preview(s, args.runs) for s in stores])
    if args.preview_only:
        return 0
    print()
    rows = []
    for s in stores:
        db = s / ".agent" / "agent.db" if s.is_dir() else s
        print(f"benchmarking {db} …", file=sys.stderr)
        rows.append(bench_store(db, args.batch, args.hold, args.pause))
    print_table(rows)
    for root in built:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
