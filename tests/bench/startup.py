"""First paint in a real terminal (not collected by pytest).

    python tests/bench/startup.py                  # the cached 100k store (big_store.py)
    python tests/bench/startup.py --store DIR --runs 7

Each run starts a program in a pseudo-terminal (120×40, TERM=xterm-256color) and reads what
it draws until a marker is on the screen: for memtui, the newest session's row in the
sessions pane (its current task's title); for the anchor, a trivial Textual app (one Static) started the same way. Runs
are paired and alternated; medians are reported with the ratio. The sqlite3 listing (the
newest 200 sessions with their current task's title, one query) is timed in-process too.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import sqlite3
import statistics
import struct
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TRIVIAL = """
from textual.app import App
from textual.widgets import Static

class Trivial(App):
    def compose(self):
        yield Static("TRIVIAL-APP-READY")

Trivial().run()
"""

CSI = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>78]")


def first_paint(argv: list[str], marker: str, timeout: float = 60.0) -> float:
    """Seconds from starting `argv` in a pty until `marker` is drawn."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of a known size
        os.environ["TERM"] = "xterm-256color"
        os.environ["COLUMNS"], os.environ["LINES"] = "120", "40"
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    t0 = time.perf_counter()
    seen = b""
    needle = marker.encode()
    try:
        while time.perf_counter() - t0 < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            if b"\x1b[6n" in chunk:  # a cursor position query: answer as a terminal would
                os.write(fd, b"\x1b[1;1R")
            seen += chunk
            if needle in CSI.sub(b"", seen):
                return time.perf_counter() - t0
        raise RuntimeError(f"{argv[:3]}: {marker!r} never drawn")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def sqlite_listing(db: Path) -> float:
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    t0 = time.perf_counter()
    conn.execute("SELECT s.id, s.title, s.status, s.updated_at, (SELECT title FROM task WHERE id = s.current_task_id)"
                 " FROM session s ORDER BY s.updated_at DESC, s.id DESC LIMIT 200").fetchall()
    took = time.perf_counter() - t0
    conn.close()
    return took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", help="a workspace (default: the cached 100k demo)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if args.store:
        root = Path(args.store)
    else:
        from big_store import make_big_store

        root = make_big_store()
    db = root / ".agent" / "agent.db"
    from memtui.core.store import AgentStore

    with AgentStore.open(root, readonly=True) as store:
        newest = store.sessions(0, 1)[0]
    # The current task column of the newest session's row (the title column is narrow at 120).
    marker = (newest.current_title or newest.title)[:20]
    memtui = [sys.executable, "-m", "memtui", str(root)]
    trivial = [sys.executable, "-c", TRIVIAL]
    first_paint(memtui, marker), first_paint(trivial, "TRIVIAL-APP-READY")  # warm caches
    ours, anchor, listing = [], [], []
    for i in range(args.runs):
        order = [(memtui, marker, ours), (trivial, "TRIVIAL-APP-READY", anchor)]
        for argv, mark, into in order if i % 2 == 0 else reversed(order):
            into.append(first_paint(argv, mark))
        listing.append(sqlite_listing(db))
    m, a, s = statistics.median(ours), statistics.median(anchor), statistics.median(listing)
    print(f"store: {db} ({db.stat().st_size / 2**30:.2f} GiB); {args.runs} paired runs, medians")
    print("| what | first paint | ratio to the trivial Textual app |")
    print("|---|---|---|")
    print(f"| memtui (sessions listed) | {m * 1000:.0f} ms | {m / a:.2f}× |")
    print(f"| trivial Textual app (anchor) | {a * 1000:.0f} ms | 1.00× |")
    print(f"| sqlite3 listing, 200 newest sessions with titles (in-process) | {s * 1000:.1f} ms | — |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
