"""First paint in a real terminal (not collected by pytest).

    python tests/bench/startup.py                  # the cached 100k store (big_store.py)
    python tests/bench/startup.py --store DIR --runs 7

Each run starts a program in a pseudo-terminal (120×40, TERM=xterm-256color) and reads what
it draws until markers are on the screen: for memtui, the newest session's title with the
sessions pane's count line (sessions listed), then its current task in the tasks pane; for
the anchor, a trivial Textual app (one Static) started the same way. Runs are paired and
alternated; medians are reported with the ratio, in wall time and in the CPU time the
program had used by then (/proc/PID/stat: steadier than wall time on a busy machine). The
sqlite3 listing (the newest 200 sessions with their current task's title, one query) is
timed in-process too. memtui's modules are compiled to bytecode first, as an installed
package's are.
"""

from __future__ import annotations

import argparse
import compileall
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


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) the process `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_paint(argv: list[str], marker: str | list[str], timeout: float = 60.0,
                then: dict[str, list[str]] | None = None) -> dict[str, tuple[float, float]]:
    """(wall seconds, CPU seconds of the program) from starting `argv` in a pty until every
    string of `marker` is on the screen, under "first"; with `then` (name → strings), the
    same for each of those too. CPU time says what the program did whatever else the
    machine was running."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of a known size
        os.environ["TERM"] = "xterm-256color"
        os.environ["COLUMNS"], os.environ["LINES"] = "120", "40"
        os.execvp(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    t0 = time.perf_counter()
    seen = b""
    wanted = {"first": [marker] if isinstance(marker, str) else marker, **(then or {})}
    needles = {name: [m.encode() for m in marks] for name, marks in wanted.items()}
    found: dict[str, float] = {}
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
            # What the latest frames wrote (a frame is far smaller than this window).
            plain = CSI.sub(b"", seen[-200_000:])
            for name, marks in needles.items():
                if name not in found and all(m in plain for m in marks):
                    found[name] = (time.perf_counter() - t0, cpu_seconds(pid))
            if len(found) == len(needles):
                return found
        missing = [name for name in needles if name not in found]
        raise RuntimeError(f"{argv[:3]}: {[wanted[n] for n in missing]!r} never drawn")
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
    from big_store import add_store_option, chosen_store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_store_option(ap)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = chosen_store(args)
    db = root / ".agent" / "agent.db"
    from memtui.core.store import AgentStore

    from memtui.ui.pane_reads import FIRST_SESSIONS

    with AgentStore.open(root, readonly=True) as store:
        newest = store.sessions(0, 1)[0]
        count = store.session_count()
    # Sessions listed: the newest session's title (its start: the column is narrow at 120) and
    # the pane's count line, both drawn with the first page. Then the newest session's tasks:
    # its current task marked as such in the tasks pane.
    listed = f" {min(count, FIRST_SESSIONS)}{'…' if count > FIRST_SESSIONS else ''}"
    marker = [newest.title[:12], listed]
    then = {"tasks": [(newest.current_title or "")[:20], "◀ current"]} if newest.current_title else {}
    # memtui starts from bytecode, as an installed package does (pip compiles it; textual's own
    # is): under PYTHONDONTWRITEBYTECODE a source checkout would compile itself at every run.
    compileall.compile_dir(str(ROOT / "memtui"), quiet=1)
    memtui = [sys.executable, "-m", "memtui", str(root)]
    trivial = [sys.executable, "-c", TRIVIAL]
    first_paint(memtui, marker, then=then), first_paint(trivial, "TRIVIAL-APP-READY")  # warm caches
    runs: dict[str, list[tuple[float, float]]] = {"first": [], "tasks": [], "trivial": []}
    listing = []
    for i in range(args.runs):
        for which in ("memtui", "trivial") if i % 2 == 0 else ("trivial", "memtui"):
            if which == "trivial":
                runs["trivial"].append(first_paint(trivial, "TRIVIAL-APP-READY")["first"])
                continue
            times = first_paint(memtui, marker, then=then)
            runs["first"].append(times["first"])
            runs["tasks"].append(times.get("tasks", times["first"]))
        listing.append(sqlite_listing(db))
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    s = statistics.median(listing)
    print(f"store: {db} ({db.stat().st_size / 2**30:.2f} GiB); {args.runs} paired runs, medians;"
          f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| what | first paint (wall) | ratio | CPU used by then | ratio |")
    print("|---|---|---|---|---|")
    rows = [("memtui: sessions listed (newest page and its count)", "first")]
    if then:
        rows.append(("memtui: the newest session's tasks shown", "tasks"))
    rows.append(("trivial Textual app (anchor)", "trivial"))
    for label, key in rows:
        print(f"| {label} | {wall[key] * 1000:.0f} ms | {wall[key] / wall['trivial']:.2f}× |"
              f" {cpu[key] * 1000:.0f} ms | {cpu[key] / cpu['trivial']:.2f}× |")
    print(f"| sqlite3 listing, 200 newest sessions with titles (in-process) | {s * 1000:.1f} ms | — | — | — |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
