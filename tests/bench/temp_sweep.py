"""What the temp sweep costs an atomic write (not collected by pytest).

    python tests/bench/temp_sweep.py [--writes N]

Every `write_atomic` first sweeps its folder for memtui temp files of dead writers. Asking
whether the pid in such a name still runs, and since when (psutil: /proc/PID/stat), is the new
part: measured here per write, against the anchor of the same run, a write into a folder
holding no temp file (which asks nothing). Rows:

- anchor: 1 KiB write_atomic into a folder of 200 ordinary files;
- + 10 temp files of a live process (kept: each asks psutil every write);
- + 10 temp files of dead processes (removed by the first write; later writes as the anchor);
- first sweep in a fresh interpreter (imports psutil) — once per process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from memtui.core.atomic import write_atomic  # noqa: E402


def per_write(folder: Path, writes: int) -> float:
    """CPU seconds per write (the machine is shared: CPU time is steadier than wall time)."""
    start = time.process_time()
    for i in range(writes):
        write_atomic(folder / "MEMORY.md", b"x" * 1024 + str(i).encode())
    return (time.process_time() - start) / writes


def folder_with(base: Path, name: str, pids: list[int]) -> Path:
    folder = base / name
    folder.mkdir()
    for i in range(200):
        (folder / f"note-{i}.md").write_bytes(b"n")
    for i, pid in enumerate(pids):
        (folder / f".MEMORY.md.{pid}-{i:08x}.memtui-tmp").write_bytes(b"half")
    return folder


def dead_pids(n: int) -> list[int]:
    out = []
    for _ in range(n):
        proc = subprocess.Popen([sys.executable, "-c", "pass"])
        proc.wait()
        out.append(proc.pid)
    return out


FIRST = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from memtui.core.atomic import remove_stale_temps
start = time.perf_counter()
remove_stale_temps(Path({folder!r}))
print(time.perf_counter() - start)
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=300)
    args = parser.parse_args()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        with tempfile.TemporaryDirectory(prefix="memtui-bench-sweep-") as tmp:
            base = Path(tmp)
            rows = [("anchor: no temp file in the folder", per_write(folder_with(base, "none", []), args.writes))]
            rows.append(("10 temp files of a live process", per_write(folder_with(base, "live", [live.pid] * 10),
                                                                     args.writes)))
            rows.append(("10 temp files of dead processes", per_write(folder_with(base, "dead", dead_pids(10)),
                                                                     args.writes)))
            first = folder_with(base, "first", [live.pid])
            out = subprocess.run([sys.executable, "-c", FIRST.format(root=str(ROOT), folder=str(first))],
                                 capture_output=True, text=True, check=True).stdout
            rows.append(("first sweep of a process (imports psutil), wall", float(out)))
    finally:
        live.kill()
        live.wait()
    anchor = rows[0][1]
    print(f"| case ({args.writes} writes of 1 KiB) | per write | × anchor |")
    print("|---|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e6:,.0f} µs | {seconds / anchor:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
