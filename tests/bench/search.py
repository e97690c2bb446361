"""Search index benchmark (not collected by pytest).

    python tests/bench/search.py                 # the 5,000-task demo store (built once, cached)
    python tests/bench/search.py --scale 1000 --runs 3 --queries 30
    python tests/bench/search.py --scale 100000 --runs 1   # the queries at 100,000 tasks (~1 min of builds)

Builds memtui's search index of a `memtui demo --scale N` store from scratch (a fresh file
each run) and, in the same run, the anchor: a plain FTS5 `unicode61` table filled with the same
record texts (what memtui indexes, read back from its index, so the anchor does not pay for
reading the store). Builds are paired (which of the two goes first alternates) and the ratio
is the median of the pairs' ratios, wall and CPU, with their range: on shared cores a pair sees
the same load, two medians taken apart need not. Prints one table: build time, file size over
the text's UTF-8 size, and query latency (median / p95 over --queries repetitions, limit 1,001 as the search screen asks)
for a few kinds of queries, each as a ratio against the anchor's word query.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, Path(__file__).resolve().parent):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from big_store import make_big_store  # noqa: E402

from memtui.core.memory.search import SearchIndex  # noqa: E402
from memtui.core.store import AgentStore  # noqa: E402

SHOWN, COUNT_CAP = 200, 1_001  # what the search screen asks: 200 hits, counted up to "1,000+"
QUERIES = [  # (kind, query)
    ("word", "router"),
    ("two words", "match route"),
    ("prefix", "handl"),
    ("inside a word", "outer"),
    ("identifier", "test_match_exact"),
    ("path", "tinyhttp/router.py"),
    ("phrase", '"def match"'),
    ("short (2 chars)", "io"),
    ("punctuation", "->"),
    ("rare", "flaky"),
    ("absent", "xylophone"),
    ("absent, short", "qz"),
]


def build_index(root: Path, target: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of a first index, reading the store included."""
    with AgentStore.open(root, readonly=True) as store, SearchIndex(root, store, path=target) as index:
        started, cpu = time.perf_counter(), time.process_time()
        index.refresh()
        return time.perf_counter() - started, time.process_time() - cpu


def build_anchor(source: Path, target: Path, chunk: int = 50_000) -> tuple[float, float]:
    """The same record texts, read from memtui's index in chunks (not timed) and inserted into
    a plain FTS5 table in one transaction (timed)."""
    texts = sqlite3.connect(source)
    conn = sqlite3.connect(target)
    conn.execute("CREATE VIRTUAL TABLE anchor USING fts5(text, tokenize='unicode61')")
    rows = texts.execute("SELECT text FROM records")
    wall = cpu = 0.0
    conn.execute("BEGIN")
    while batch := rows.fetchmany(chunk):
        started, cpu_started = time.perf_counter(), time.process_time()
        conn.executemany("INSERT INTO anchor(text) VALUES (?)", batch)
        wall, cpu = wall + time.perf_counter() - started, cpu + time.process_time() - cpu_started
    started, cpu_started = time.perf_counter(), time.process_time()
    conn.commit()
    wall, cpu = wall + time.perf_counter() - started, cpu + time.process_time() - cpu_started
    conn.close()
    texts.close()
    return wall, cpu


def latency(run, repeat: int) -> tuple[float, float, float, int]:
    """Median and p95 wall milliseconds, median CPU milliseconds, and what `run` returned."""
    times, cpus, found = [], [], 0
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        found = run()
        times.append((time.perf_counter() - started) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))], statistics.median(cpus), found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=5_000, help="demo tasks (default 5,000)")
    parser.add_argument("--runs", type=int, default=7, help="paired builds; the median is shown")
    parser.add_argument("--queries", type=int, default=20, help="repetitions per query")
    args = parser.parse_args()
    root = make_big_store(args.scale)
    with tempfile.TemporaryDirectory(prefix="memtui-search-bench-") as tmp:
        ours_times, anchor_times = [], []
        build_index(root, Path(tmp, "warm.db"))  # the store's pages in the page cache for every run
        for run in range(args.runs):  # paired, each from scratch; which goes first alternates
            ours, anchor = Path(tmp, f"ours-{run}.db"), Path(tmp, f"anchor-{run}.db")
            if run % 2:
                ours_times.append(build_index(root, ours))
                anchor_times.append(build_anchor(ours, anchor))
            else:  # the anchor reads the texts of the previous run's index (the same texts)
                anchor_times.append(build_anchor(Path(tmp, "warm.db") if run == 0 else Path(tmp, f"ours-{run - 1}.db"),
                                                 anchor))
                ours_times.append(build_index(root, ours))
        conn = sqlite3.connect(ours)
        records, text_bytes = conn.execute("SELECT COUNT(*), SUM(LENGTH(CAST(text AS BLOB))) FROM records").fetchone()
        conn.close()
        ours_size, anchor_size = os.path.getsize(ours), os.path.getsize(anchor)
        build, anchor_build = (statistics.median(t[0] for t in ours_times),
                               statistics.median(t[0] for t in anchor_times))
        build_cpu, anchor_cpu = (statistics.median(t[1] for t in ours_times),
                                 statistics.median(t[1] for t in anchor_times))
        # The ratio of each pair (built back to back, under the same load), then their median.
        wall_ratios = sorted(o[0] / a[0] for o, a in zip(ours_times, anchor_times))
        cpu_ratios = sorted(o[1] / a[1] for o, a in zip(ours_times, anchor_times))

        conn = sqlite3.connect(anchor)
        anchor_med, anchor_p95, anchor_cpu_q, anchor_found = latency(lambda: len(conn.execute(
            "SELECT rowid, text FROM anchor WHERE anchor MATCH 'router' ORDER BY rank LIMIT ?", (SHOWN,)).fetchall()),
            args.queries)
        rows = []
        with AgentStore.open(root, readonly=True) as store, SearchIndex(root, store, path=ours) as index:
            index.refresh()  # nothing changed: the check the screen makes
            for kind, query in QUERIES:
                med, p95, cpu, found = latency(lambda: index.search_counted(query, SHOWN, COUNT_CAP)[1],
                                               args.queries)
                rows.append((kind, query, med, p95, cpu, found))
        conn.close()

    print(f"search index of a {args.scale:,}-task demo store: {records:,} records, "
          f"{text_bytes / 2**20:.1f} MiB of text; {args.runs} paired builds, {args.queries} runs per query")
    print()
    print(f"{'measure':<28}{'memtui':>12}{'anchor':>12}{'ratio':>8}   target")
    print(f"{'first index, wall (s)':<28}{build:>12.2f}{anchor_build:>12.2f}{statistics.median(wall_ratios):>8.2f}"
          f"   ≤ 1.5× anchor (pairs {wall_ratios[0]:.2f}–{wall_ratios[-1]:.2f})")
    print(f"{'first index, CPU (s)':<28}{build_cpu:>12.2f}{anchor_cpu:>12.2f}{statistics.median(cpu_ratios):>8.2f}"
          f"   ≤ 1.5× anchor (pairs {cpu_ratios[0]:.2f}–{cpu_ratios[-1]:.2f})")
    print(f"{'file / text':<28}{ours_size / text_bytes:>12.2f}{anchor_size / text_bytes:>12.2f}"
          f"{ours_size / anchor_size:>8.2f}   ≤ 1.5× text")
    print(f"{'anchor: router, 200 by rank':<28}{'':>12}{anchor_med:>10.1f}ms{'':>8}   p95 {anchor_p95:.1f} ms, "
          f"CPU {anchor_cpu_q:.1f} ms")
    print()
    print("queries as the search screen makes them: the first 200 hits with excerpts, counted up to 1,001")
    print(f"{'query':<38}{'hits':>6}{'median ms':>11}{'p95 ms':>9}{'CPU ms':>8}{'× anchor':>10}   target ≤ 20 ms")
    for kind, query, med, p95, cpu, found in rows:
        label = f"{kind}: {query}"
        print(f"{label:<38}{found:>6}{med:>11.1f}{p95:>9.1f}{cpu:>8.1f}{med / anchor_med:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
