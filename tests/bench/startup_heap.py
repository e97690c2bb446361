"""The heap at first paint: what a collection before the freeze would free, and cost (not
collected by pytest).

    python tests/bench/startup_heap.py                  # the cached 100k store (big_store.py)
    python tests/bench/startup_heap.py --store DIR --runs 5

Each run starts `memtui open` in a pseudo-terminal (120×40) with the collector's resume
instrumented (memtui.ui.collector.resume_after, as `memtui open` calls it): "as shipped"
freezes the heap at first paint as memtui does (the anchor), "collect first" runs
gc.collect() before the freeze. Runs alternate; medians are reported: RSS at first paint
and four seconds later, the objects kept frozen, and the collection's CPU time (the thread's
own, so the machine's load does not count) and the cycle objects it found.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

CHILD = r"""
import gc, json, os, sys, threading, time
from memtui.ui import collector
collector.pause()
import memtui.ui.app as app

def rss():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS")) / 1024

def resume_after(drawn, wait):
    def run():
        drawn.wait(wait)
        rec = {"rss_paint": rss()}
        cpu = time.thread_time()
        rec["found"] = gc.collect() if os.environ["HEAP_MODE"] == "collect" else 0
        rec["collect_ms"] = (time.thread_time() - cpu) * 1000
        gc.freeze(); gc.enable()
        rec["frozen"] = gc.get_freeze_count()
        time.sleep(4)
        rec["rss_4s"] = rss()
        open(os.environ["HEAP_OUT"], "w").write(json.dumps(rec))
    threading.Thread(target=run, daemon=True).start()

app.resume_after = resume_after
from memtui.cli import main
sys.exit(main(["open", sys.argv[1]]))
"""


def one_run(root: Path, mode: str, out: Path) -> dict:
    out.unlink(missing_ok=True)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(TERM="xterm-256color", HEAP_MODE=mode, HEAP_OUT=str(out))
        os.execv(sys.executable, [sys.executable, "-c", CHILD, str(root)])
    import fcntl
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    deadline = time.monotonic() + 90
    try:
        while not out.exists() and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if b"\x1b[6n" in chunk:  # a cursor position query: answer as a terminal would
                    os.write(fd, b"\x1b[1;1R")
        time.sleep(0.2)
        if not out.exists():
            raise RuntimeError(f"{mode}: no figures from memtui open {root}")
        return json.loads(out.read_text())
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> int:
    from big_store import add_store_option, chosen_store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_store_option(ap)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    root = chosen_store(args)
    runs: dict[str, list[dict]] = {"shipped": [], "collect": []}
    out = Path(tempfile.mkdtemp()) / "heap.json"
    for i in range(args.runs):
        for mode in ("shipped", "collect") if i % 2 == 0 else ("collect", "shipped"):
            runs[mode].append(one_run(root, mode, out))

    def med(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[mode])

    print(f"store: {root}; {args.runs} alternated runs each, medians; load average {os.getloadavg()[0]:.1f}")
    print("| at first paint | RSS then | RSS 4 s later | objects frozen | collection CPU | cycle objects found |")
    print("|---|---|---|---|---|---|")
    for label, mode in (("freeze, as shipped (anchor)", "shipped"), ("gc.collect() then freeze", "collect")):
        print(f"| {label} | {med(mode, 'rss_paint'):.1f} MB | {med(mode, 'rss_4s'):.1f} MB"
              f" ({med(mode, 'rss_4s') / med('shipped', 'rss_4s'):.2f}×) | {med(mode, 'frozen'):,.0f} |"
              f" {med(mode, 'collect_ms'):.0f} ms | {med(mode, 'found'):,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
