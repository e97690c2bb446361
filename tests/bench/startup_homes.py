"""Warm first paint on the homes of issues 28, 29 and 32, against a trivial Textual app measured in
the same run (not collected by pytest).

    python tests/bench/startup_homes.py [--runs 5] [--only heavy,six,team] [--tree NAME=DIR ...]

- heavy: a Claude Code home of 2,000 sessions (tests/bench/heavy_home.py make_heavy_home; the
  shared /work/heavy/heavy-home-2000 when made, else --heavy FOLDER);
- six: a home folder of six agents, ~2,000 sessions (tests/agents/six_home.py, 65 copies);
- team: a team store of --scale generated tasks on a private PostgreSQL cluster
  (tests/bench/team.py: synthetic_store copied into it; skipped, saying why, without PostgreSQL).

Each is opened as a user's second run would: the app was run on it before until it had listed
every session, so its first frame is the page that run kept (memtui.ui.kept_page). Every run is
a new process in a 120x40 pty (tests/bench/startup.py), HOME and the XDG folders scratch ones;
the first paint is when the newest session's title is drawn (heavy, team), or the Agent column
and the newest session's agent (six): the kept page, or the sessions listed if none is used. Runs alternate with the anchor, medians; wall seconds and the
CPU seconds the program had used by then (steadier on a busy machine), with the load average.

`--tree NAME=DIR` runs memtui from another checkout too (its DIR first on PYTHONPATH), e.g. a
worktree of main before a change: same homes, same anchor, each tree its own cache folder
(a copy of the index the first tree built) so one tree's kept page never serves another.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(BENCH), str(ROOT / "tests" / "unit"), str(ROOT / "tests" / "agents")]

from startup import TRIVIAL, first_paint  # noqa: E402

HEAVY = Path("/work/heavy/heavy-home-2000")


def scratch(base: Path, user: Path, cache: Path) -> dict[str, str]:
    """An environment whose home and XDG folders are under `base` (`user` the home folder)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(user), XDG_CACHE_HOME=str(cache), XDG_CONFIG_HOME=str(user / ".config"),
               XDG_DATA_HOME=str(user / ".local" / "share"), XDG_STATE_HOME=str(base / "state"),
               CLAUDE_CONFIG_DIR=str(user / ".claude"), CODEX_HOME=str(user / ".codex"))
    return env


def kept_run(argv: list[str], env: dict[str, str], target: str, seconds: float = 900) -> None:
    """Run the app once as the user's run before: until it has kept its page (memtui.ui.kept_page,
    looked for in-process with the same cache folder), then a second more."""
    import fcntl
    import pty
    import select
    import signal
    import struct
    import termios

    from memtui.ui.kept_page import page_file

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        kept = page_file(target)
        before = kept.stat().st_mtime_ns if kept is not None and kept.exists() else None
        pid, fd = pty.fork()
        if pid == 0:
            os.environ.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
            os.execvp(argv[0], argv)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # as startup.first_paint's
        started = time.perf_counter()
        try:
            while time.perf_counter() - started < seconds:
                if select.select([fd], [], [], 0.5)[0]:
                    try:
                        chunk = os.read(fd, 65536)
                    except OSError:
                        break
                    if b"\x1b[6n" in chunk:
                        os.write(fd, b"\x1b[1;1R")
                kept = page_file(target)
                if kept is not None and kept.exists() and kept.stat().st_mtime_ns != before:
                    time.sleep(1)
                    return
            raise RuntimeError(f"{argv[:3]}: no page kept in {seconds:.0f} s")
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def heavy_home(folder: Path) -> str:
    from heavy_home import make_heavy_home

    return str(make_heavy_home(folder, 2000))


def six_home(folder: Path) -> str:
    from six_home import make_six_agent_home

    if not (folder / "done").exists():
        shutil.rmtree(folder, ignore_errors=True)
        make_six_agent_home(folder, 65)
        (folder / "done").write_text("complete\n")
    return str(folder / "user")


def measure(name: str, target: str, trees: dict[str, str], base: Path, runs: int,
            marker_of, user: Path | None = None) -> list[tuple[str, float, float]]:
    """The warm first paint of `target` by each tree and the anchor, alternated; rows of
    (label, wall median, CPU median). `marker_of(env)` names what the first frame draws."""
    envs: dict[str, dict[str, str]] = {}
    first_cache = None
    for tree in trees:
        cache = base / f"cache-{tree}"
        if first_cache is not None and not cache.exists():
            shutil.copytree(first_cache, cache, symlinks=True, ignore=shutil.ignore_patterns("first-page"))
        home = user or base / "user"
        home.mkdir(parents=True, exist_ok=True)
        envs[tree] = {**scratch(base, home, cache), "PYTHONPATH": trees[tree]}
        started = time.perf_counter()
        kept_run([sys.executable, "-m", "memtui", target], envs[tree], target)
        print(f"  {name}: {tree} ran once, page kept ({time.perf_counter() - started:.0f} s)", flush=True)
        first_cache = first_cache or cache
    marker = marker_of(next(iter(envs.values())))
    times: dict[str, list[tuple[float, float]]] = {tree: [] for tree in [*trees, "trivial"]}
    saved = dict(os.environ)
    try:
        for i in range(runs):
            order = [*trees, "trivial"] if i % 2 == 0 else ["trivial", *reversed(list(trees))]
            for tree in order:
                if tree == "trivial":
                    os.environ.clear()
                    os.environ.update(saved)
                    times[tree].append(first_paint([sys.executable, "-c", TRIVIAL], "TRIVIAL-APP-READY")["first"])
                    continue
                os.environ.update(envs[tree])
                times[tree].append(first_paint([sys.executable, "-m", "memtui", target], marker, timeout=120)["first"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return [(tree, statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs))
            for tree, pairs in times.items()]


def newest_claude(env: dict[str, str], target: str) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "memtui", "log", target, "--json"], env=env, capture_output=True,
                         text=True, check=True).stdout
    return [json.loads(out)["sessions"][0]["title"][:24]]


def newest_of_six(env: dict[str, str], target: str) -> list[str]:
    code = ("import sys\nfrom pathlib import Path\nfrom memtui.ui.opening import open_workspace\n"
            f"s, _ = open_workspace(Path({target!r}))\nprint(s.sessions()[0].origin)\ns.close()\n")
    return ["Agent", subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout.strip()]


def team_rows(trees: dict[str, str], base: Path, runs: int, scale: int) -> list[tuple[str, float, float]] | str:
    from tests.pg_cluster import PgCluster

    if PgCluster.missing():
        return f"no PostgreSQL: {PgCluster.missing()}"
    from team import copy_into_team, synthetic_store

    from memtui.core.store.team import TeamStore

    root = base / f"synthetic-{scale}"
    if not (root / ".complete").exists():
        shutil.rmtree(root, ignore_errors=True)
        synthetic_store(root, scale)
        (root / ".complete").write_text("done\n")
    with PgCluster.start() as cluster:
        url = cluster.new_database()
        copy_into_team(root / ".agent" / "agent.db", url)
        with TeamStore.open(url, readonly=True) as store:
            newest, count = store.sessions(0, 1)[0], store.session_count()
        return measure(f"team ({count:,} sessions)", url, trees, base / "team", runs, lambda env: [newest.title[:24]])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="heavy,six,team")
    ap.add_argument("--tree", action="append", default=[], help="NAME=DIR: memtui from another checkout too")
    ap.add_argument("--heavy", type=Path, default=HEAVY, help="the heavy home's folder (made if missing)")
    ap.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "memtui-bench-startup-homes",
                    help="where the six-agent home, the generated store and the cache folders are kept")
    ap.add_argument("--six", type=Path, default=None, help="the six-agent home's folder (default: in --folder)")
    ap.add_argument("--seed", action="append", default=[], metavar="HOME=CACHE",
                    help="heavy=DIR or six=DIR: an XDG cache folder holding that home's index already (copied)")
    ap.add_argument("--scale", type=int, default=100_000, help="tasks of the team store")
    args = ap.parse_args()
    trees = {"this": str(ROOT), **dict(t.split("=", 1) for t in args.tree)}
    for tree in trees.values():
        compileall.compile_dir(str(Path(tree) / "memtui"), quiet=1)
    base = args.folder.absolute()
    base.mkdir(parents=True, exist_ok=True)
    os.chdir(base)  # `python -m memtui` imports memtui from the working folder first: each tree from its PYTHONPATH
    only = set(args.only.split(","))
    for home, cache in (seed.split("=", 1) for seed in args.seed):  # an index built already: not built again
        first = base / home / f"cache-{next(iter(trees))}"
        if not first.exists():
            shutil.copytree(cache, first, symlinks=True, ignore=shutil.ignore_patterns("first-page"))
    results: dict[str, list[tuple[str, float, float]] | str] = {}
    if "heavy" in only:
        target = heavy_home(args.heavy)
        results["heavy Claude Code home, 2,000 sessions"] = measure(
            "heavy", target, trees, base / "heavy", args.runs, lambda env: newest_claude(env, target))
    if "six" in only:
        target = six_home(args.six or base / "six-agents-65")
        results["six agents' home, ~2,000 sessions"] = measure(
            "six", target, trees, base / "six", args.runs, lambda env: newest_of_six(env, target), user=Path(target))
    if "team" in only:
        results[f"team store, {args.scale:,} tasks"] = team_rows(trees, base, args.runs, args.scale)
    print(f"\nwarm first paint, {args.runs} alternated runs each, medians; load average {os.getloadavg()[0]:.1f}"
          f" on {os.cpu_count()} CPUs")
    print("| home | memtui | wall | × anchor | CPU | × anchor |")
    print("|---|---|---|---|---|---|")
    for home, rows in results.items():
        if isinstance(rows, str):
            print(f"| {home} | not measured: {rows} | | | | |")
            continue
        anchor = next(r for r in rows if r[0] == "trivial")
        for tree, wall, cpu in rows:
            label = "trivial Textual app (anchor)" if tree == "trivial" else tree
            print(f"| {home} | {label} | {wall * 1000:.0f} ms | {wall / anchor[1]:.2f}× | {cpu * 1000:.0f} ms |"
                  f" {cpu / anchor[2]:.2f}× |")


if __name__ == "__main__":
    main()
