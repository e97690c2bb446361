"""The team store under push and load, on a private PostgreSQL cluster (tests/pg_cluster.py).

    python tests/bench/team.py [--sessions 400] [--seconds 20] [--pushers 8]

1. Push: a Claude Code home of about SESSIONS sessions (the real spotter-small transcripts copied
   under new ids) pushed into an empty team store: sessions/s and MiB/s of the transcripts.
   Anchor, same run: reading the very same sessions through memtui's reader with its index warm
   (what push must read anyway; the first, cold read builds that index and is printed beside it),
   so the ratio is what writing them to the server adds. Then a re-push (cursor: not read).
2. Load: PUSHERS threads each push their own machine's copy of a small home over and over (a new
   session each round), one GC pass after another, and two readers listing the steps of random
   tasks, for SECONDS: errors surfaced, deadlocks, and the p95 step-list read latency. Anchor,
   same run: the same reads with nothing else running.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "unit")]

from real_support import many_sessions  # noqa: E402
from tests.pg_cluster import PgCluster  # noqa: E402

from memtui.core.discovery import discover_given  # noqa: E402
from memtui.core.gc import apply_gc  # noqa: E402
from memtui.core.store.team import TeamStore  # noqa: E402
from memtui.core.team.push import push, read_session  # noqa: E402

FIXTURE = "claude-2.1.38-spotter-small"


def home_of(dest: Path, sessions: int) -> Path:
    one = many_sessions(FIXTURE, dest / "probe", 1)
    per_copy = len(list(one.glob("projects/*/*.jsonl")))
    shutil.rmtree(dest / "probe")
    return many_sessions(FIXTURE, dest, max(1, sessions // max(per_copy, 1)))


def read_everything(home: Path, env: dict) -> tuple[int, float]:
    started = time.perf_counter()
    n = 0
    for entry in discover_given(home, env=env):
        with entry.open() as source:
            for info in source.sessions():
                read_session(source, info, list(source.tasks(info.id)))
                n += 1
    return n, time.perf_counter() - started


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 20 else max(values, default=0.0)


def reads(url: str, stop: threading.Event, out: list[float], errors: list[str], limit: float | None = None) -> None:
    with TeamStore.open(url, readonly=True) as store:
        tasks = [t for (t,) in store.query("SELECT id FROM task")]
        rng = random.Random(7)
        started = time.monotonic()
        while not stop.is_set() and (limit is None or time.monotonic() - started < limit):
            try:
                t0 = time.perf_counter()
                store.steps(rng.choice(tasks))
                out.append(time.perf_counter() - t0)
            except Exception as exc:  # noqa: BLE001 - counted
                errors.append(f"read: {exc}")


def load(url: str, tmp: Path, pushers: int, seconds: float, env: dict) -> dict:
    idle: list[float] = []
    errors: list[str] = []
    reads(url, threading.Event(), idle, errors, limit=min(5.0, seconds / 2))
    stop = threading.Event()
    busy: list[float] = []
    pushed = [0] * pushers
    gc_passes = [0]

    def pusher(i: int) -> None:
        home = many_sessions(FIXTURE, tmp / f"load{i}", 1)
        while not stop.is_set():
            try:
                pushed[i] += push([home], url, machine=f"load-{i}", env=env).written
                new = next(home.glob("projects/*/*.jsonl"))  # a new session there for the next round
                sid = str(uuid.uuid4())
                new.with_name(f"{sid}.jsonl").write_text(new.read_text().replace(new.stem, sid))
            except Exception as exc:  # noqa: BLE001 - counted
                errors.append(f"push {i}: {exc}")

    def collector() -> None:
        with TeamStore.open(url) as store:
            while not stop.is_set():
                try:
                    apply_gc(store, batch=50)
                    gc_passes[0] += 1
                except Exception as exc:  # noqa: BLE001 - counted
                    errors.append(f"gc: {exc}")

    threads = [threading.Thread(target=pusher, args=(i,)) for i in range(pushers)]
    threads += [threading.Thread(target=collector)]
    threads += [threading.Thread(target=reads, args=(url, stop, busy, errors)) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return {"idle_p95": p95(idle), "busy_p95": p95(busy), "reads": len(busy), "pushed": sum(pushed),
            "gc_passes": gc_passes[0], "errors": errors, "deadlocks": sum("deadlock" in e for e in errors)}


def main() -> None:
    args = argparse.ArgumentParser()
    args.add_argument("--sessions", type=int, default=400)
    args.add_argument("--seconds", type=float, default=20)
    args.add_argument("--pushers", type=int, default=8)
    opts = args.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memtui-team-bench-"))
    env = {"HOME": str(tmp / "home"), "XDG_CACHE_HOME": str(tmp / "cache")}
    try:
        home = home_of(tmp / "big", opts.sessions)
        size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
        with PgCluster.start() as cluster:
            url = cluster.new_database()
            n, cold_s = read_everything(home, env)  # builds the reader's index in the cache folder
            n, read_s = read_everything(home, env)  # the anchor: warm, as push's own read is
            started = time.perf_counter()
            report = push([home], url, machine="bench", env=env)
            push_s = time.perf_counter() - started
            started = time.perf_counter()
            again = push([home], url, machine="bench", env=env)
            again_s = time.perf_counter() - started
            print(f"push: {n} sessions, {size / 2**20:.1f} MiB of transcripts, {report.rows} rows")
            print(f"  anchor (reading them through memtui, index warm): {read_s:.2f} s (cold: {cold_s:.2f} s)")
            print(f"  push {push_s:.2f} s = {push_s / read_s:.2f}x the anchor;"
                  f" {n / push_s:.0f} sessions/s, {size / 2**20 / push_s:.2f} MiB/s")
            print(f"  re-push {again_s:.3f} s = {again_s / read_s:.3f}x the anchor, {again.rows} rows")
            figures = load(url, tmp, opts.pushers, opts.seconds, env)
            print(f"load: {opts.pushers} pushers + 1 GC + 2 readers for {opts.seconds:.0f} s:"
                  f" {figures['pushed']} sessions pushed, {figures['gc_passes']} GC passes, {figures['reads']} reads")
            print(f"  errors surfaced: {len(figures['errors'])} (deadlocks {figures['deadlocks']})"
                  + "".join(f"\n    {e}" for e in figures["errors"][:5]))
            print(f"  p95 step-list read: {figures['busy_p95'] * 1000:.1f} ms under load, anchor idle"
                  f" {figures['idle_p95'] * 1000:.1f} ms = {figures['busy_p95'] / max(figures['idle_p95'], 1e-9):.1f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
