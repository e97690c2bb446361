"""memtui on a heavy Claude Code home, cold and warm (not collected by pytest).

    python tests/bench/heavy_home.py [--sessions 400] [--runs 3] [--folder DIR]
    python tests/bench/heavy_home.py --sessions 2000 --folder /work/heavy/heavy-home-2000 --no-grow --cold-runs 3
    python tests/bench/heavy_home.py --sessions 2000 --folder /work/heavy/heavy-home-2000 --cold-only --cold-runs 3
    python tests/bench/heavy_home.py --sessions 2000 --folder /work/heavy/heavy-home-2000 --paint-only --cache DIR

`make_heavy_home` replicates the real Claude Code sessions of tests/fixtures/real (8 sessions:
sub-agents, compactions, persisted tool results, a 2.0.x home, an orphaned sub-agents folder)
to `--sessions` sessions over 50 project folders, each copy under a new session id written
into its file names and records, in a cache folder (`--folder`, default
$XDG_CACHE_HOME/memtui-bench/heavy-home-N; made once, kept). Every memtui run is a new process
with HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and the XDG folders pointed into scratch folders, so
nothing is written into a real home; a cold run gets an empty cache folder.

Measured in the same run, medians of `--runs` (the cold build and the first search: one run
each unless `--cold-runs`): wall seconds, the child's CPU seconds (steadier on a shared
machine) and peak RSS, the CPU seconds as ratios against anchors:

- orjson decoding every line of the same files (the parse floor: MiB/s), in this process;
- `memtui log` where no index can be kept (its cache folder cannot be made): every transcript
  parsed, as each run did before the index;
- `python -c pass` (a process start) and, for first paint, a trivial Textual app (CPU seconds
  of each by its first paint beside wall seconds);
- the cold build with the worker pool off (memtui.core.sources.part_pool): how the pool scales;
  with `--balance`, one more pooled cold build tells each worker's files and CPU seconds;
- ccusage `session --json` and `daily --json` (offline, its bundled prices), installed once
  into a cache folder by tests/unit/ccusage_support.py (node and npm needed; else the row says why);
- agentsview `sync`, from nothing and then warm (one-shot, no daemon), installed once from PyPI
  into a cache folder by tests/bench/agentsview_support.py: the warm rows as ratios of its warm
  sync (`--no-agentsview` skips it: its cold sync of 2,000 sessions takes minutes).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT / "tests" / "unit", ROOT / "tests", Path(__file__).resolve().parent):
    sys.path.insert(0, str(extra))

from real_support import real_home  # noqa: E402

SOURCES = ["claude-2.1.39-spotter", "claude-2.1.38-spotter-small", "claude-2.1.38-orphan-subagents",
           "claude-2.0.28-agtrace", "claude-2.1.2-pai"]
PROJECTS = 50
WORD = "fixture"


def _units(unpacked: Path) -> list[tuple[str, list[Path]]]:
    """Each real session: (its id, its files: transcript, its folder, 2.0.x agent files beside)."""
    units = []
    for home in sorted(unpacked.iterdir()):
        for project in sorted(home.glob("projects/*")):
            ids = {p.stem for p in project.glob("*.jsonl") if not p.name.startswith("agent-")}
            ids |= {p.name for p in project.iterdir() if p.is_dir()}
            for sid in sorted(ids):
                files = [p for p in (project / f"{sid}.jsonl", project / sid) if p.exists()]
                files += [p for p in project.glob("agent-*.jsonl") if sid in p.read_text(encoding="utf-8")[:2000]]
                units.append((sid, files))
    return units


def make_heavy_home(folder: Path, sessions: int) -> Path:
    """A Claude Code home (`folder`/.claude) of `sessions` copies of the real sessions, made
    once (a `done` marker says it is complete)."""
    home = folder / ".claude"
    if (folder / "done").exists():
        return home
    shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name in SOURCES:
            real_home(name, Path(scratch))
        units = _units(Path(scratch))
        for n in range(sessions):
            sid, files = units[n % len(units)]
            new = str(uuid.UUID(int=(n + 1) << 32 | 0x4000_8000))
            project = home / "projects" / f"-home-user-project-{n % PROJECTS:02d}"
            for path in files:
                renamed = path.name.replace(sid, new)
                if renamed.startswith("agent-"):  # 2.0.x: beside the session, one name per copy
                    renamed = f"agent-{n:05d}{renamed[6:]}"
                for src in ([path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())):
                    rel = Path(renamed) if path.is_file() else Path(renamed) / src.relative_to(path)
                    target = project / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = src.read_bytes()
                    if src.suffix == ".jsonl":
                        data = data.replace(sid.encode(), new.encode())
                    target.write_bytes(data)
    aged(home)
    (folder / "done").write_text("complete\n")
    return home


AGE_NS = 2 * 86400 * 10**9
"""How far back `aged` moves a made home's files: a heavy user's sessions are mostly days old,
not written in the last hour (a file that recent keeps a parse cursor, as an agent may still be
writing it: memtui.core.sources.kept_parts.LIVE_NS)."""


def aged(home: Path) -> None:
    """Every file of the made home `AGE_NS` older, in the order they were written."""
    for path in home.rglob("*"):
        if path.is_file():
            st = path.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - AGE_NS))


def home_bytes(home: Path) -> int:
    return sum(p.stat().st_size for p in home.rglob("*") if p.is_file())


def orjson_pass(home: Path) -> float:
    """CPU seconds orjson takes to decode every line of every transcript (the anchor)."""
    import orjson

    started = time.process_time()
    for path in home.rglob("*.jsonl"):
        with open(path, "rb") as lines:
            for line in lines:
                if line.strip():
                    try:
                        orjson.loads(line)
                    except orjson.JSONDecodeError:
                        pass
    return time.process_time() - started


CPU: dict[int, float] = {}


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, stdout) of one child, its RSS and CPU time from wait4 (the
    CPU seconds kept in CPU by pid: steadier than wall time on a shared machine)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    chunks = []
    assert proc.stdout is not None
    for chunk in iter(lambda: proc.stdout.read(1 << 16), b""):
        chunks.append(chunk)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    CPU[-1] = usage.ru_utime + usage.ru_stime
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode})")
    return wall, usage.ru_maxrss / 1024, b"".join(chunks).decode()


def scratch_env(base: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "CODEX_"))}
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        env[var] = str(base / var.lower())
    env.update(HOME=str(base / "user"), CLAUDE_CONFIG_DIR=str(home), CODEX_HOME=str(base / "no-codex"),
               XDG_CACHE_HOME=str(base / "cache"))
    (base / "user").mkdir(parents=True, exist_ok=True)
    return env


def grow(transcript: Path, lines: int = 100) -> None:
    """The session goes on: `lines` more records at its end (its last records again, under new
    uuids, parented in a chain), as the agent appends them."""
    records = [json.loads(x) for x in transcript.read_text(encoding="utf-8").splitlines()[-lines:] if x.strip()]
    parent = next((r.get("uuid") for r in reversed(records) if r.get("uuid")), None)
    with transcript.open("a", encoding="utf-8") as out:
        for record in records:
            if "uuid" in record:
                record["uuid"], record["parentUuid"], parent = str(uuid.uuid4()), parent, record.get("uuid")
            out.write(json.dumps(record) + "\n")


def first_paint_rows(home: Path, env: dict[str, str], runs: int, newest: str, count: int,
                     cold_env=None) -> list[tuple[str, float, float]]:
    """First paint of the app on the home (until the newest session's title is drawn: warm
    index, and with `cold_env` (a function giving a fresh scratch environment) on no index)
    and of a trivial Textual app: (name, wall seconds, CPU seconds of the program by then).
    Warm, the app was run on the home before (once, until it listed all `count` sessions): its
    first frame is the page that run kept (memtui.ui.kept_page, "as of …; checking…"); the
    home opened and checked, every session listed, is a row of its own."""
    from startup import TRIVIAL, first_paint

    from memtui.ui.kept_page import read_kept

    rows = []
    saved = dict(os.environ)
    app = [sys.executable, "-m", "memtui", str(home)]
    listed = {"checked": [f"{count:,}"]}
    try:
        memtui, checked, trivial, cold = [], [], [], []
        os.environ.update(env)  # the pty child inherits this process's environment
        for _ in range(3):  # a run before, as the user's: the app keeps its first page once it is up
            first_paint(app, newest, timeout=300, then=listed)
            if read_kept(home) is not None:
                break
            time.sleep(1)
        for n in range(runs):  # alternated, so both see the same load
            os.environ.update(env)
            times = first_paint(app, newest, timeout=120, then=listed)
            memtui.append(times["first"])
            checked.append(times["checked"])
            trivial.append(first_paint([sys.executable, "-c", TRIVIAL], "TRIVIAL-APP-READY")["first"])
            if cold_env is not None and n == 0:  # one: each is a whole build
                os.environ.update(cold_env())
                cold.append(first_paint([sys.executable, "-m", "memtui", str(home)], newest, timeout=900)["first"])

        def median(name: str, pairs: list) -> tuple[str, float, float]:
            return name, statistics.median(w for w, _c in pairs), statistics.median(c for _w, c in pairs)

        rows = [median("app first paint, warm (sessions listed)", memtui),
                median("anchor: trivial Textual app first paint", trivial),
                median("app, warm: home checked, every session listed", checked)]
        if cold:
            rows.append(median("app first paint, cold (newest session drawn, 1 run)", cold))
    except RuntimeError as exc:
        print(f"first paint not measured: {exc}")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return rows


def cold_paint_rows(home: Path, scratch: Path, runs: int) -> list[tuple[str, float, float]]:
    """The app on no index (issue 28: "the newest sessions within 2 s, the rest filling in"):
    wall and CPU seconds until the newest session's title is drawn while the index is built,
    beside the same run's anchors: the whole cold build (`memtui log HOME --json` on no index,
    which also names the newest session) and a trivial Textual app's first paint. Each run of
    the app gets an empty cache folder and is ended once the title is drawn."""
    from startup import TRIVIAL, first_paint

    build_env = scratch_env(scratch / "paint-build", home)
    wall, _rss, listing = run([sys.executable, "-m", "memtui", "log", str(home), "--json"], build_env)
    rows = [("anchor: cold build, memtui log HOME --json", wall, CPU[-1])]
    newest = json.loads(listing)["sessions"][0]["title"][:24]
    saved = dict(os.environ)
    paint, trivial = [], []
    try:
        for n in range(runs):
            os.environ.update(scratch_env(scratch / f"paint-{n}", home))  # the pty child inherits it
            paint.append(first_paint([sys.executable, "-m", "memtui", str(home)], newest, timeout=900)["first"])
            trivial.append(first_paint([sys.executable, "-c", TRIVIAL], "TRIVIAL-APP-READY")["first"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    rows.append(("anchor: trivial Textual app first paint", statistics.median(w for w, _c in trivial),
                 statistics.median(c for _w, c in trivial)))
    rows.append(("app on no index: newest session drawn", statistics.median(w for w, _c in paint),
                 statistics.median(c for _w, c in paint)))
    return rows


def cold_paint_main(home: Path, runs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        rows = cold_paint_rows(home, Path(scratch), runs)
    print(f"\n{'cold first paint (' + str(runs) + ' runs, medians)':<50} {'wall s':>8} {'CPU s':>8}")
    for name, wall, cpu in rows:
        print(f"{name:<50} {wall:>8.3f} {cpu:>8.3f}")
    build, trivial, paint = rows
    print(f"newest session drawn = {paint[1] / trivial[1]:.2f}x the trivial app's first paint (wall), "
          f"{paint[1] / build[1]:.3f}x the whole cold build (wall)")


SERIAL = ("import sys; import memtui.core.sources.part_pool as pool; pool.POOL_BYTES = 1 << 62; "
          "from memtui.cli import main; sys.exit(main(sys.argv[1:]))")
"""`memtui` with the worker pool off: every file parsed in the one process."""

BALANCE = ("import os, sys, time; import memtui.core.sources.part_pool as pool; parsed = pool.pickled_part\n"
           "def traced(parse, item):\n"
           "    out = parsed(parse, item)\n"
           "    with open(os.environ['MEMTUI_BENCH_WORKERS'], 'a') as log:\n"
           "        log.write(f'{os.getpid()} {time.process_time()}\\n')\n"
           "    return out\n"
           "pool.pickled_part = traced\n"
           "from memtui.cli import main; sys.exit(main(sys.argv[1:]))")
"""`memtui` whose worker processes write, after each file parsed, their pid and CPU seconds so far
(to $MEMTUI_BENCH_WORKERS): how the pool split the work."""


def pool_balance(home: Path, env: dict[str, str], log: Path) -> list[str]:
    """One cold build with the worker pool on: each worker's files and CPU seconds, and the
    process's own (its total less its workers')."""
    wall, _rss, _out = run([sys.executable, "-c", BALANCE, "log", str(home), "--json"], {**env, "MEMTUI_BENCH_WORKERS": str(log)})
    total = CPU[-1]
    files: dict[str, int] = {}
    cpu: dict[str, float] = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        pid, seconds = line.split()
        files[pid] = files.get(pid, 0) + 1
        cpu[pid] = float(seconds)
    if not files:
        return ["pool balance: no worker started (the home is below part_pool.POOL_BYTES, or one core)"]
    lines = [f"pool balance (one cold build, {wall:.1f} s wall, {total:.1f} CPU s in all):"]
    lines += [f"  worker {n}: {files[pid]} files, {cpu[pid]:.2f} CPU s" for n, pid in enumerate(sorted(files), start=1)]
    lines.append(f"  the process itself (listing, merging, writing the index): {total - sum(cpu.values()):.2f} CPU s")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=400, help="sessions in the home (the issue's home has 2,000)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold-runs", type=int, default=1)
    ap.add_argument("--folder", type=Path, default=None)
    ap.add_argument("--no-paint", action="store_true", help="skip the first-paint rows")
    ap.add_argument("--serial-runs", type=int, default=1, help="cold builds with the worker pool off")
    ap.add_argument("--no-grow", action="store_true",
                    help="skip the rows that grow a session (a shared home, such as /work/heavy's, is left as it is)")
    ap.add_argument("--cold-paint", action="store_true",
                    help="only the app's first paint on no index (newest sessions drawn) and its anchors")
    ap.add_argument("--paint-only", action="store_true",
                    help="the first-paint rows alone (warm), on the index in --cache (built there by one `log` if missing)")
    ap.add_argument("--cache", type=Path, default=None, help="with --paint-only: an XDG cache folder to keep the index in")
    ap.add_argument("--balance", action="store_true", help="one more cold build: how the worker pool split the work")
    ap.add_argument("--no-agentsview", action="store_true",
                    help="skip agentsview's rows (its cold sync of a 2,000-session home takes minutes)")
    ap.add_argument("--cold-only", action="store_true",
                    help="the cold rows alone: the orjson anchor, the cold build (`log`), ccusage session")
    args = ap.parse_args()
    compileall.compile_dir(str(ROOT / "memtui"), quiet=1)  # as an installed package's modules are
    cache = Path(tempfile.gettempdir()) / "memtui-bench"  # never under the real home
    folder = args.folder or cache / f"heavy-home-{args.sessions}"
    home = make_heavy_home(folder, args.sessions)
    if args.cold_paint:
        cold_paint_main(home, args.runs)
        return
    size = home_bytes(home)
    transcripts = list(home.rglob("*.jsonl"))
    print(f"home: {home} — {args.sessions} sessions, {len(transcripts)} transcript files, {size / 2**20:.0f} MiB")
    memtui = [sys.executable, "-m", "memtui"]
    if args.paint_only:
        paint_only(home, args.runs, args.cache)
        return
    rows: list[tuple[str, float, float, float]] = []  # name, wall, CPU, peak RSS

    def median_of(name: str, argv: list[str], env: dict[str, str], runs: int, before=None) -> str:
        walls, cpus, rsss, out = [], [], [], ""
        for _ in range(runs):
            if before is not None:
                before()
            wall, rss, out = run(argv, env)
            walls.append(wall)
            cpus.append(CPU[-1])
            rsss.append(rss)
        rows.append((name, statistics.median(walls), statistics.median(cpus), max(rsss)))
        return out

    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        anchor = statistics.median(orjson_pass(home) for _ in range(args.runs))
        rows.append(("anchor: orjson decodes every line", anchor, anchor, 0.0))
        median_of("anchor: python -c pass", [sys.executable, "-c", "pass"], os.environ.copy(), args.runs)
        envs = []

        def fresh_env() -> None:
            envs.append(scratch_env(scratch / f"cold{len(envs)}", home))

        fresh_env()
        unusable = dict(envs[-1], XDG_CACHE_HOME=str(scratch / "a-file"))
        (scratch / "a-file").write_text("no cache folder can be made here\n")
        if not args.cold_only:
            median_of("no index (cache folder unusable): log --json", [*memtui, "log", str(home), "--json"], unusable, 1)
        cold_walls = []
        for n in range(args.cold_runs):
            fresh_env()
            wall, rss, listing = run([*memtui, "log", str(home), "--json"], envs[-1])
            cold_walls.append((wall, CPU[-1], rss))
        rows.append(("cold: memtui log HOME --json (index built)", statistics.median(w for w, _c, _r in cold_walls),
                     statistics.median(c for _w, c, _r in cold_walls), max(r for _w, _c, r in cold_walls)))
        serial = [sys.executable, "-c", SERIAL]
        pooled_env = envs[-1]  # the warm rows read the index the last (pooled) cold build wrote
        if args.cold_only:
            cold_only(home, rows, pooled_env, args.runs, median_of)
            return
        serial_runs = []
        for _ in range(args.serial_runs):
            fresh_env()
            wall, rss, _out = run([*serial, "log", str(home), "--json"], envs[-1])
            serial_runs.append((wall, CPU[-1], rss))
        rows.append(("cold, parsed in one process (no workers)", statistics.median(w for w, _c, _r in serial_runs),
                     statistics.median(c for _w, c, _r in serial_runs), max(r for _w, _c, r in serial_runs)))
        balance = []
        if args.balance:
            fresh_env()
            balance = pool_balance(home, envs[-1], scratch / "workers.log")
        env = pooled_env
        index = sum(p.stat().st_size for p in (Path(env["XDG_CACHE_HOME"]) / "memtui" / "index").iterdir())
        listing = median_of("warm: memtui log HOME --json", [*memtui, "log", str(home), "--json"], env, args.runs)
        newest = json.loads(listing)["sessions"][0]["title"][:24]
        median_of("warm: memtui sources HOME --json", [*memtui, "sources", str(home), "--json"], env, args.runs)
        median_of("warm: memtui usage HOME --json", [*memtui, "usage", str(home), "--json"], env, args.runs)
        median_of("first search (search index built)", [*memtui, "search", str(home), WORD, "--json"], env, 1)
        median_of("warm: memtui search HOME WORD --json", [*memtui, "search", str(home), WORD, "--json"], env, args.runs)
        found = Path(env["XDG_CACHE_HOME"]) / "memtui" / "search"
        search_index = sum(p.stat().st_size for p in found.iterdir() if p.is_file()) if found.is_dir() else 0
        if not args.no_grow:
            grown = max(transcripts, key=lambda p: p.stat().st_size if "subagents" not in p.parts else 0)
            median_of("one session grew 100 lines: log", [*memtui, "log", str(home), "--json"], env, args.runs,
                      before=lambda: grow(grown))
            median_of("one session grew 100 lines: search", [*memtui, "search", str(home), WORD, "--json"], env,
                      args.runs, before=lambda: grow(grown))
        from ccusage_support import VERSION, ccusage

        binary, why = ccusage()  # installed once into a cache folder (tests/unit/ccusage_support.py)
        if binary is not None:
            median_of(f"anchor: ccusage {VERSION} session --json -O", [str(binary), "session", "--json", "-O"], env,
                      args.runs)
            median_of(f"anchor: ccusage {VERSION} daily --json -O", [str(binary), "daily", "--json", "-O"], env, args.runs)
        else:
            print(f"ccusage: not run ({why})")
        if not args.no_agentsview:
            agentsview_rows(home, scratch / "agentsview", args.runs, median_of)
        paint = [] if args.no_paint else first_paint_rows(
            home, env, args.runs, newest, len(json.loads(listing)["sessions"]),
            cold_env=lambda: (fresh_env(), envs[-1])[1])

    mib = size / 2**20
    cold_cpu = next(c for n, _w, c, _r in rows if n.startswith("cold: memtui log"))
    serial_cpu = next(c for n, _w, c, _r in rows if n.startswith("cold, parsed in one process"))
    from memtui.core.sources.part_pool import workers_for

    workers = workers_for(SERIAL, [p.stat().st_size for p in transcripts])  # a str pickles: the size rule alone
    print(f"\nindex file: {index / 2**20:.1f} MiB = {index / size:.1%} of the home")
    print(f"search index (after the first search): {search_index / 2**20:.1f} MiB = {search_index / size:.1%} of the home")
    print(f"parse throughput (CPU): cold log {mib / cold_cpu:.1f} MiB/s ({workers} worker processes; "
          f"{mib / serial_cpu:.1f} MiB/s in one process), orjson line decode {mib / anchor:.1f} MiB/s "
          f"(cold log {cold_cpu / anchor:.1f}x the orjson pass)")
    for line in balance:
        print(line)
    start = next(c for n, _w, c, _r in rows if n == "anchor: python -c pass")
    print(f"\n{'what':<50} {'wall s':>8} {'CPU s':>8} {'CPU x orjson':>12} {'CPU x start':>11} {'peak RSS MiB':>13}")
    for name, wall, cpu, rss in rows:
        print(f"{name:<50} {wall:>8.3f} {cpu:>8.3f} {cpu / anchor:>12.2f} {cpu / max(start, 1e-3):>11.1f} {rss:>13.0f}")
    ccusage = next(((w, c) for n, w, c, _r in rows if "session --json" in n), None)
    if ccusage is not None:
        for name, wall, cpu, _rss in rows:
            if name.startswith(("cold", "warm")):
                print(f"{name:<50} = {wall / ccusage[0]:.2f}x ccusage session (wall), {cpu / ccusage[1]:.2f}x (CPU)")
    agentsview = next(((w, c) for n, w, c, _r in rows if "agentsview" in n and "warm sync" in n), None)
    if agentsview is not None:
        for name, wall, cpu, _rss in rows:
            if name.startswith(("warm", "one session grew")):
                print(f"{name:<50} = {wall / agentsview[0]:.2f}x agentsview warm sync (wall), "
                      f"{cpu / agentsview[1]:.2f}x (CPU)")
    print_paint(paint)


def agentsview_rows(home: Path, scratch: Path, runs: int, median_of) -> None:
    """agentsview's sync of the home: once from nothing (its archive built), then warm (`runs`
    times, nothing changed): the peer the warm rows are set beside."""
    from agentsview_support import VERSION, agentsview, scratch_env as agentsview_env

    binary, why = agentsview()
    if binary is None:
        print(f"agentsview: not run ({why})")
        return
    env = agentsview_env(scratch, home)
    median_of(f"anchor: agentsview {VERSION} cold sync", [str(binary), "sync"], env, 1)
    median_of(f"anchor: agentsview {VERSION} warm sync", [str(binary), "sync"], env, runs)


def cold_only(home: Path, rows: list, env: dict[str, str], runs: int, median_of) -> None:
    """The cold rows measured (`rows`), then ccusage session's beside them; each printed as a
    ratio of the orjson pass (CPU) and of ccusage (wall and CPU)."""
    from ccusage_support import VERSION, ccusage

    binary, why = ccusage()
    if binary is not None:
        median_of(f"anchor: ccusage {VERSION} session --json -O", [str(binary), "session", "--json", "-O"], env, runs)
    else:
        print(f"ccusage: not run ({why})")
    mib = home_bytes(home) / 2**20
    anchor = rows[0][2]
    ccusage_row = next(((w, c) for n, w, c, _r in rows if "session --json" in n), None)
    print(f"\n{'what':<50} {'wall s':>8} {'CPU s':>8} {'MiB/s (CPU)':>11} {'CPU x orjson':>12} {'peak RSS MiB':>13}")
    for name, wall, cpu, rss in rows:
        print(f"{name:<50} {wall:>8.3f} {cpu:>8.3f} {mib / max(cpu, 1e-3):>11.1f} {cpu / anchor:>12.2f} {rss:>13.0f}")
    if ccusage_row is not None:
        for name, wall, cpu, _rss in rows:
            if name.startswith("cold"):
                print(f"{name:<50} = {wall / ccusage_row[0]:.2f}x ccusage session (wall), {cpu / ccusage_row[1]:.2f}x (CPU)")


def print_paint(paint: list[tuple[str, float, float]]) -> None:
    print(f"\n{'first paint':<50} {'wall s':>8} {'CPU s':>8} {'x trivial app (wall, CPU)':>26}")
    anchor = paint[1] if len(paint) >= 2 else None
    for name, wall, cpu in paint:
        against = f"{wall / anchor[1]:.2f}x, {cpu / anchor[2]:.2f}x" if anchor is not None else ""
        print(f"{name:<50} {wall:>8.3f} {cpu:>8.3f} {against:>26}")


def paint_only(home: Path, runs: int, cache: Path | None) -> None:
    """The warm first-paint rows alone: an index in `cache` (a scratch one if not given, built
    by one `memtui log`), the rest of the environment scratch."""
    with tempfile.TemporaryDirectory() as scratch_dir:
        env = scratch_env(Path(scratch_dir), home)
        if cache is not None:
            env["XDG_CACHE_HOME"] = str(cache)
        _wall, _rss, listing = run([sys.executable, "-m", "memtui", "log", str(home), "--json"], env)
        sessions = json.loads(listing)["sessions"]
        print_paint(first_paint_rows(home, env, runs, sessions[0]["title"][:24], len(sessions)))

if __name__ == "__main__":
    main()
