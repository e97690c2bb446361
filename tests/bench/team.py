"""The team store under push and load, on a private PostgreSQL cluster (tests/pg_cluster.py).

    python tests/bench/team.py [--sessions 400] [--seconds 20] [--pushers 8]

1. Push: a Claude Code home of about SESSIONS sessions (the real spotter-small transcripts copied
   under new ids) pushed into an empty team store: sessions/s and MiB/s of the transcripts.
   Anchor, same run: reading the very same sessions through memtui's reader with its index warm
   (what push must read anyway; the first, cold read builds that index and is printed beside it),
   so the ratio is what writing them to the server adds. Then a re-push (cursor: not read).
   With --home, the first SESSIONS sessions of that home instead (the whole 2,000-session home:
   --home /work/heavy/heavy-home-2000/.claude --sessions 2000 --only push).
2. Load: PUSHERS threads each push their own machine's copy of a small home over and over (a new
   session each round), one GC pass after another, and two readers listing the steps of random
   tasks, for SECONDS: errors surfaced, deadlocks, sessions lost (each one a pusher's last whole
   push found, not in the store at the end), the integrity checks of the push tests, and the p95
   step-list read latency. Anchor,
   same run: the same reads with nothing else running.
3. Search (--scale tasks, default 100,000): an agent.db of generated tasks (synthetic_store)
   copied into a team store (COPY; the search indexes made after it, as a bulk load would), then
   the queries of tests/bench/search.py as the search screen asks them (200 hits, counted up to
   1,001), found by the server. Anchor, same run: the same queries over the same records in
   memtui's SQLite index of that agent.db.
4. First paint of the app on that team store (120x40 pty, tests/bench/startup.py: the newest
   session's title and the sessions pane's count drawn). Anchor, same run: a trivial Textual app.
5. Push with and without the search indexes (--home: default the shared heavy home under
   /work/heavy if there, else the spotter copies of 1.): what the server's search indexes cost
   a push, as the ratio of the two pushes of the same sessions into stores with and without them.

    python tests/bench/team.py --only search,paint --scale 100000
    python tests/bench/team.py --only push-index --home /work/heavy/heavy-home-2000/.claude --sessions 300
"""

from __future__ import annotations

import argparse
import itertools
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
    sent: list[set[str]] = [set() for _ in range(pushers)]  # each pusher's sessions as of its last whole push

    def pusher(i: int) -> None:
        home = many_sessions(FIXTURE, tmp / f"load{i}", 1)
        while not stop.is_set():
            try:
                there = {p.stem for p in home.glob("projects/*/*.jsonl")}
                pushed[i] += push([home], url, machine=f"load-{i}", env=env).written
                sent[i] = there
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
    from team_push_support import integrity

    with TeamStore.open(url, readonly=True) as store:
        there = set(store.query("SELECT o.machine, o.session_key FROM origin o JOIN session s ON s.origin_id = o.id"))
    lost = sorted({(f"load-{i}", key) for i in range(pushers) for key in sent[i]} - there)
    return {"idle_p95": p95(idle), "busy_p95": p95(busy), "reads": len(busy), "pushed": sum(pushed),
            "gc_passes": gc_passes[0], "errors": errors, "deadlocks": sum("deadlock" in e for e in errors),
            "sent": sum(map(len, sent)), "lost": lost, "integrity": integrity(url)}


def synthetic_store(root: Path, tasks: int, seed: int = 7) -> Path:
    """A workspace whose agent.db holds `tasks` tasks (10 a session, 3 steps each, a message
    every 4th) of generated text: words drawn Zipf-like from a vocabulary of 3,000, code-like
    lines, paths; the words of tests/bench/search.py's queries among them ("router" in ~5% of
    steps, "flaky" in a few). Rows are written set-wise (the demo builder records each call
    through the recorder: an hour for 100,000 tasks on shared cores)."""
    import json
    import sqlite3

    from memtui.core.store import AgentStore

    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(3_000)]
    vocab[5:5] = ["match", "route", "handler", "handle", "request", "response", "test_match_exact", "io"]
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(vocab))))

    def words(n: int) -> str:
        return " ".join(rng.choices(vocab, cum_weights=cumulative, k=n))

    AgentStore.open(root).close()
    db = sqlite3.connect(root / ".agent" / "agent.db")
    sessions = [(s, f"session {s} {words(3)}", "closed", s * 10, float(s), float(s)) for s in range(1, tasks // 10 + 1)]
    db.executemany("INSERT INTO session (id, title, status, current_task_id, created_at, updated_at)"
                   " VALUES (?, ?, ?, ?, ?, ?)", sessions)
    task_rows, step_rows, message_rows = [], [], []
    for t in range(1, tasks + 1):
        task_rows.append((t, (t - 1) // 10 + 1, f"{words(4)} {rng.choice(['router', 'tests', 'docs', 'build'])}",
                          "completed", 0, words(8), float(t), float(t), 3))
        for seq in (1, 2, 3):
            if rng.random() < 0.1:
                args = {"path": "src/tinyhttp/router.py" if rng.random() < 0.5 else f"src/{words(1)}/{words(1)}.py"}
            else:
                args = {"command": f"grep -n {words(1)} src/{words(1)}.py"}
            lines = [f"def {words(1)}({words(1)}) -> {words(1)}:\n    return {words(2)}" if rng.random() < 0.3
                     else words(rng.randint(5, 25)) for _ in range(rng.randint(2, 12))]
            if rng.random() < 0.05:
                lines.append("the router matched")
            if rng.random() < 0.0002:
                lines.append("a flaky test")
            step_rows.append((t, seq, "bash" if "command" in args else "read_file", "ok", 0, 0, 0.0, 0, 0,
                              float(t), json.dumps(args), json.dumps("\n".join(lines))))
        if t % 4 == 0:
            message_rows.append((t, "user", f"please {words(12)}", float(t)))
    db.executemany("INSERT INTO task (id, session_id, title, status, pinned, summary, created_at, updated_at,"
                   " step_count, step_bytes, checkpoint_count, entry_count, entry_bytes, legacy_bytes)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0)", task_rows)
    db.executemany("INSERT INTO step (task_id, seq, tool, status, tokens_in, tokens_out, cost, duration_ms,"
                   " payload_bytes, created_at, args, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", step_rows)
    db.executemany("INSERT INTO message (task_id, role, content, created_at) VALUES (?, ?, ?, ?)", message_rows)
    db.commit()
    db.close()
    return root


COPIED = ("session", "task", "step", "message")
"""The demo store's tables the search and first-paint benches read (contents are not needed)."""


def copy_into_team(db: Path, url: str) -> tuple[float, float]:
    """The rows of COPIED from agent.db `db` into a new team store at `url`: (seconds copying,
    seconds making the search indexes after it, as a bulk load would)."""
    import sqlite3

    import psycopg

    from memtui.core.store.team_search import TRIGRAM_INDEXES

    TeamStore.open(url).close()  # the tables, at this memtui's team schema
    src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    started = time.perf_counter()
    with psycopg.connect(url) as conn:
        for statement in TRIGRAM_INDEXES:
            conn.execute(f"DROP INDEX {statement.split()[5]}")
        for table in COPIED:
            theirs = [r[1] for r in src.execute(f"PRAGMA table_info({table})")]
            ours = {r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns"
                                               " WHERE table_name = %s", (table,))}
            columns = [c for c in theirs if c in ours]
            with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in src.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"):
                    copy.write_row(row)
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
        conn.commit()
        copied = time.perf_counter() - started
        started = time.perf_counter()
        for statement in TRIGRAM_INDEXES:
            conn.execute(statement)
        conn.commit()
        conn.execute("ANALYZE")
    src.close()
    return copied, time.perf_counter() - started


def timed(run, repeats: int) -> tuple[float, float]:
    """(median, p95) seconds of `run()` over `repeats` runs (after one not counted)."""
    run()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), p95(times)


def search_bench(root: Path, url: str, repeats: int) -> None:
    """The queries of tests/bench/search.py on the team store's server and, the anchor, in the
    SQLite index of the same demo store."""
    from search import COUNT_CAP, QUERIES, SHOWN

    from memtui.core.memory.search import SearchIndex
    from memtui.core.store import AgentStore

    with AgentStore.open(root, readonly=True) as local, SearchIndex(root, local) as index:
        started = time.perf_counter()
        index.refresh()  # built once beside the cached store, then only checked
        print(f"  the SQLite index of the same store: ready in {time.perf_counter() - started:.1f} s")
        anchor = {q: timed(lambda q=q: index.page(q, SHOWN, COUNT_CAP - SHOWN), repeats) for _, q in QUERIES}
        counts = {q: index.search_counted(q, SHOWN, COUNT_CAP) for _, q in QUERIES}
    with TeamStore.open(url, readonly=True) as team, SearchIndex(root, team) as index:
        served = {q: timed(lambda q=q: index.page(q, SHOWN, COUNT_CAP - SHOWN), repeats) for _, q in QUERIES}
        same = {q: index.search_counted(q, SHOWN, COUNT_CAP) == counts[q] for _, q in QUERIES}
    print(f"  {repeats} runs each, {SHOWN} hits counted up to {COUNT_CAP - 1:,}+ (the search screen's page)")
    print("| query | hits | server median | p95 | SQLite index median (anchor) | ratio | same hits |")
    print("|---|---|---|---|---|---|---|")
    for kind, q in QUERIES:
        (sm, sp), (am, _) = served[q], anchor[q]
        print(f"| {kind} `{q}` | {counts[q][1]:,} | {sm * 1000:.1f} ms | {sp * 1000:.1f} ms | {am * 1000:.1f} ms |"
              f" {sm / max(am, 1e-9):.1f}x | {'yes' if same[q] else 'NO'} |")


def paint_bench(url: str, runs: int, env: dict) -> None:
    """First paint of `memtui URL` against a trivial Textual app, paired runs (startup.py). As a
    user's, the app was run on the store before (until it listed every session): its first frame
    is the page that run kept (memtui.ui.kept_page, "as of …; checking…"), the store read behind
    it; "every session listed" is when the store was read and the count line says all of them."""
    import compileall
    import os

    from startup import TRIVIAL, first_paint

    from memtui.ui.kept_page import read_kept
    from memtui.ui.pane_reads import FIRST_SESSIONS

    with TeamStore.open(url, readonly=True) as store:
        newest = store.sessions(0, 1)[0]
        count = store.session_count()
    marker = [newest.title[:12], f" {min(count, FIRST_SESSIONS)}{'…' if count > FIRST_SESSIONS else ''}"]
    listed = {"listed": [f"{count:,}"]}
    os.environ.update(env)
    compileall.compile_dir(str(ROOT / "memtui"), quiet=1)
    memtui, trivial = [sys.executable, "-m", "memtui", url], [sys.executable, "-c", TRIVIAL]
    for _ in range(3):  # a run before, as the user's: the app keeps its first page once it is up
        first_paint(memtui, marker, timeout=120, then=listed)
        if read_kept(url) is not None:
            break
        time.sleep(1)
    first_paint(trivial, "TRIVIAL-APP-READY")  # warm caches
    ours, every, theirs = [], [], []
    for i in range(runs):
        for which in ("memtui", "trivial") if i % 2 == 0 else ("trivial", "memtui"):
            if which == "memtui":
                times = first_paint(memtui, marker, timeout=120, then=listed)
                ours.append(times["first"])
                every.append(times["listed"])
            else:
                theirs.append(first_paint(trivial, "TRIVIAL-APP-READY")["first"])
    print(f"first paint, {runs} paired runs, medians (load average {os.getloadavg()[0]:.1f}):")
    anchor = statistics.median(w for w, _ in theirs), statistics.median(c for _, c in theirs)
    for name, pairs in ((f"memtui on the team store ({count:,} sessions): sessions listed", ours),
                        ("memtui: the store read, every session listed", every)):
        wall, cpu = statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs)
        print(f"  {name}: {wall * 1000:.0f} ms wall ({wall / anchor[0]:.2f}x), {cpu * 1000:.0f} ms CPU"
              f" ({cpu / anchor[1]:.2f}x)")
    print(f"  trivial Textual app (anchor): {anchor[0] * 1000:.0f} ms wall, {anchor[1] * 1000:.0f} ms CPU (target <= 2x)")


def some_sessions(home: Path, sessions: int, dest: Path) -> Path:
    """A Claude Code home of the first `sessions` sessions of `home` (copied: push keeps cursors
    by path, and the shared heavy home is read-only)."""
    out = dest / ".claude"
    transcripts = sorted(home.glob("projects/*/*.jsonl"))[:sessions]
    for path in transcripts:
        target = out / path.relative_to(home)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        beside = path.with_suffix("")  # a session's folder of subagents and tool results, if any
        if beside.is_dir():
            shutil.copytree(beside, target.with_suffix(""))
    return out


def push_index_bench(cluster, home: Path, env: dict) -> None:
    """The same sessions pushed into a team store with and without its search indexes."""
    from memtui.core.store.team_search import TRIGRAM_INDEXES

    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    n, read_s = read_everything(home, env)  # warms the reader's index (push reads the same way)
    n, read_s = read_everything(home, env)
    figures = {}
    for label, indexed in (("without the search indexes", False), ("with the search indexes", True)):
        url = cluster.new_database()
        TeamStore.open(url).close()
        if not indexed:  # the same store less its three search indexes (the functions stay: unused)
            with TeamStore.open(url) as store:
                for statement in TRIGRAM_INDEXES:
                    store.execute(f"DROP INDEX {statement.split()[5]}")
        started = time.perf_counter()
        report = push([home], url, machine="bench", env=env)
        figures[label] = (time.perf_counter() - started, report.rows)
    print(f"push: {n} sessions, {size / 2**20:.1f} MiB; reading them through memtui (warm, anchor) {read_s:.2f} s")
    for label, (took, rows) in figures.items():
        print(f"  {label}: {took:.2f} s = {took / read_s:.2f}x the anchor; {n / took:.1f} sessions/s,"
              f" {size / 2**20 / took:.2f} MiB/s ({rows} rows)")
    (without, _), (with_, _) = figures.values()
    print(f"  the search indexes cost a push {with_ / without:.2f}x its time without them")


def main() -> None:
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the cluster is stopped on the way out
    args = argparse.ArgumentParser()
    args.add_argument("--sessions", type=int, default=400)
    args.add_argument("--seconds", type=float, default=20)
    args.add_argument("--pushers", type=int, default=8)
    args.add_argument("--scale", type=int, default=100_000, help="tasks of the search and first-paint store")
    args.add_argument("--runs", type=int, default=5, help="repeats of each query and first paint")
    args.add_argument("--home", help="a Claude Code home for push (default: spotter copies) and push-index (default:"
                                     " the shared heavy home if made)")
    args.add_argument("--only", default="push,load", help="push,load,search,paint,push-index")
    opts = args.parse_args()
    parts = set(opts.only.split(","))
    tmp = Path(tempfile.mkdtemp(prefix="memtui-team-bench-"))
    env = {"HOME": str(tmp / "home"), "XDG_CACHE_HOME": str(tmp / "cache"), "XDG_CONFIG_HOME": str(tmp / "config"),
           "XDG_DATA_HOME": str(tmp / "data"), "XDG_STATE_HOME": str(tmp / "state"),
           "CLAUDE_CONFIG_DIR": str(tmp / "claude"), "CODEX_HOME": str(tmp / "codex")}
    try:
        with PgCluster.start() as cluster:
            if parts & {"search", "paint"}:
                from big_store import cache_dir

                started = time.perf_counter()
                root = cache_dir() / f"team-synthetic-{opts.scale}"  # kept with its SQLite index for the next run
                if not (root / ".complete").exists():
                    shutil.rmtree(root, ignore_errors=True)
                    synthetic_store(root, opts.scale)
                    (root / ".complete").write_text("done\n")
                db = root / ".agent" / "agent.db"
                print(f"search store: {opts.scale:,} generated tasks in agent.db ({db.stat().st_size / 2**20:.0f} MiB),"
                      f" made or found in {time.perf_counter() - started:.1f} s")
                url = cluster.new_database()
                copied, indexed = copy_into_team(db, url)
                print(f"  copied into a team store in {copied:.1f} s, its search indexes made in {indexed:.1f} s")
                if "search" in parts:
                    search_bench(root, url, opts.runs)
                if "paint" in parts:
                    paint_bench(url, opts.runs, env)
            if "push-index" in parts:
                heavy = Path("/work/heavy/heavy-home-2000/.claude")
                source = Path(opts.home) if opts.home else heavy if heavy.is_dir() else home_of(tmp / "big", opts.sessions)
                push_index_bench(cluster, some_sessions(source, opts.sessions, tmp / "subset"), env)
            if parts & {"push", "load"}:
                push_and_load(cluster, tmp, opts, env, parts)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def pushed_home(opts, tmp: Path) -> Path:
    """What 1. pushes: the first --sessions sessions of --home (all of it as it is, read-only,
    when it has no more: push writes nothing in a home), else the spotter copies."""
    if not opts.home:
        return home_of(tmp / "big", opts.sessions)
    home = Path(opts.home)
    if len(list(home.glob("projects/*/*.jsonl"))) <= opts.sessions:
        return home
    return some_sessions(home, opts.sessions, tmp / "subset")


def push_and_load(cluster, tmp: Path, opts, env: dict, parts: set[str]) -> None:
    home = pushed_home(opts, tmp)
    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    url = cluster.new_database()
    if "push" in parts:
        n, cold_s = read_everything(home, env)  # builds the reader's index in the cache folder
        print(f"push: {n} sessions read cold in {cold_s:.1f} s", flush=True)
        n, read_s = read_everything(home, env)  # the anchor: warm, as push's own read is
        print(f"push: read warm (the anchor) in {read_s:.1f} s", flush=True)
        started = time.perf_counter()
        report = push([home], url, machine="bench", env=env)
        push_s = time.perf_counter() - started
        started = time.perf_counter()
        again = push([home], url, machine="bench", env=env)
        again_s = time.perf_counter() - started
        print(f"push: {n} sessions, {size / 2**20:.1f} MiB of transcripts, {report.rows} rows")
        print(f"  anchor (reading them through memtui, index warm): {read_s:.2f} s (cold: {cold_s:.2f} s)")
        print(f"  push {push_s:.2f} s = {push_s / read_s:.2f}x the anchor;"
              f" {n / push_s:.1f} sessions/s, {size / 2**20 / push_s:.2f} MiB/s")
        print(f"  re-push {again_s:.3f} s = {again_s / read_s:.3f}x the anchor, {again.rows} rows")
    if "load" in parts:
        if "push" not in parts:
            push([home], url, machine="bench", env=env)
        figures = load(url, tmp, opts.pushers, opts.seconds, env)
        print(f"load: {opts.pushers} pushers + 1 GC + 2 readers for {opts.seconds:.0f} s:"
              f" {figures['pushed']} sessions pushed, {figures['gc_passes']} GC passes, {figures['reads']} reads")
        print(f"  lost: {len(figures['lost'])} of the {figures['sent']} sessions the pushers' last pushes found"
              f" {figures['lost'][:3]}; integrity checks failing: {figures['integrity'] or 'none'}")
        print(f"  errors surfaced: {len(figures['errors'])} (deadlocks {figures['deadlocks']})"
              + "".join(f"\n    {e}" for e in figures["errors"][:5]))
        print(f"  p95 step-list read: {figures['busy_p95'] * 1000:.1f} ms under load, anchor idle"
              f" {figures['idle_p95'] * 1000:.1f} ms = {figures['busy_p95'] / max(figures['idle_p95'], 1e-9):.1f}x")


if __name__ == "__main__":
    main()
