"""memtui on a heavy Claude Code home when one session grows (not collected by pytest).

    python tests/bench/grown_session.py [--sessions 400] [--runs 3] [--folder DIR]

The home is tests/bench/heavy_home.py's (`make_heavy_home`; pass `--folder` to reuse one made
before: its files are not written, the grown session is a copy of its own). The index and the
search index are built once (not timed); then, medians of `--runs`, each a new process with its
HOME, XDG folders, CLAUDE_CONFIG_DIR and CODEX_HOME in scratch folders:

- warm `memtui log HOME --json` and `memtui search HOME WORD --json` (nothing changed);
- the same after the largest session grew by 100 lines (heavy_home.grow: its last records
  again, new uuids), each run after a growth of its own;
- follow mode's reload in one process (`source.reload()` + `sessions()`) after a growth;

against anchors measured in the same run: `python -c pass`, orjson decoding every line of the
grown transcript (what parsing it whole would cost at best) and ccusage `session --json`.
Figures are the children's CPU seconds (steadier than wall time on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heavy_home import CPU, WORD, grow, make_heavy_home, run, scratch_env  # noqa: E402


def orjson_file(path: Path) -> float:
    """CPU seconds orjson takes to decode every line of one file."""
    import orjson

    started = time.process_time()
    with open(path, "rb") as lines:
        for line in lines:
            if line.strip():
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
    return time.process_time() - started


def linked_copy(home: Path, into: Path) -> tuple[Path, Path]:
    """`home` hard-linked under `into` (no bytes copied), its largest session transcript a real
    copy (it is grown: the shared home stays as it was). (The copy's home, that transcript.)"""
    copy = into / home.name
    if not copy.exists():
        shutil.copytree(home, copy, copy_function=os.link)
    transcripts = [p for p in copy.rglob("*.jsonl") if "subagents" not in p.parts]
    grown = max(transcripts, key=lambda p: p.stat().st_size)
    if grown.stat().st_nlink > 1:
        data = grown.read_bytes()
        grown.unlink()
        grown.write_bytes(data)
    return copy, grown


FOLLOW = """
import sys, time
from pathlib import Path
sys.path.insert(0, {bench!r})
from heavy_home import grow
from memtui.core.resolve import open_source
with open_source(Path({home!r})) as source:
    source.sessions()
    spent = []
    for _ in range({runs}):
        grow(Path({grown!r}))
        started = time.process_time()
        source.reload()
        source.sessions()
        spent.append(time.process_time() - started)
print(sorted(spent)[len(spent) // 2])
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--folder", type=Path, default=None)
    args = ap.parse_args()
    cache = Path(tempfile.gettempdir()) / "memtui-bench"  # never under the real home
    source_home = make_heavy_home(args.folder or cache / f"heavy-home-{args.sessions}", args.sessions)
    memtui = [sys.executable, "-m", "memtui"]
    rows: list[tuple[str, float]] = []

    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        home, grown = linked_copy(source_home, scratch / "home")
        print(f"home: {home} ({args.sessions} sessions); grown: {grown.name}, {grown.stat().st_size / 2**20:.1f} MiB")
        env = scratch_env(scratch / "env", home)

        def median(name: str, argv: list[str], before=None, child_env=env) -> None:
            cpus = []
            for _ in range(args.runs):
                if before is not None:
                    before()
                run(argv, child_env)
                cpus.append(CPU[-1])
            rows.append((name, statistics.median(cpus)))

        run([*memtui, "log", str(home), "--json"], env)  # the index built (not timed)
        run([*memtui, "search", str(home), WORD, "--json"], env)  # the search index built
        median("anchor: python -c pass", [sys.executable, "-c", "pass"])
        rows.append(("anchor: orjson decodes the grown transcript", statistics.median(orjson_file(grown) for _ in range(args.runs))))
        median("warm: memtui log HOME --json", [*memtui, "log", str(home), "--json"])
        median("one session grew 100 lines: log", [*memtui, "log", str(home), "--json"], before=lambda: grow(grown))
        median("warm: memtui search HOME WORD --json", [*memtui, "search", str(home), WORD, "--json"])
        median("one session grew 100 lines: search", [*memtui, "search", str(home), WORD, "--json"], before=lambda: grow(grown))
        follow = FOLLOW.format(bench=str(Path(__file__).resolve().parent), home=str(home), grown=str(grown), runs=args.runs)
        _wall, _rss, out = run([sys.executable, "-c", follow], env)
        rows.append(("follow: reload after 100 lines (in process)", float(out.strip())))
        from ccusage_support import VERSION, ccusage

        binary, why = ccusage()
        if binary is not None:
            median(f"anchor: ccusage {VERSION} session --json -O", [str(binary), "session", "--json", "-O"])
        else:
            print(f"ccusage: not run ({why})")

    start = rows[0][1]
    ccusage_cpu = next((cpu for name, cpu in rows if "ccusage" in name), None)
    print(f"\n{'what':<48} {'CPU s':>8} {'x start':>8} {'x ccusage session':>18}")
    for name, cpu in rows:
        against = f"{cpu / ccusage_cpu:>18.2f}" if ccusage_cpu else f"{'-':>18}"
        print(f"{name:<48} {cpu:>8.3f} {cpu / max(start, 1e-3):>8.1f} {against}")


if __name__ == "__main__":
    main()
