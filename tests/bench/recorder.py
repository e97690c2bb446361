"""Recorder write amplification: bytes handed to the OS per byte the store keeps.

    python tests/bench/recorder.py [--tasks 1000] [--baseline OTHER_CHECKOUT]

Records a realistic agent sequence through the recorder, one commit per recorded call (as a
harness does: start a task, ten tool steps, two file edits each a step and a checkpoint,
finish), in sessions of eight tasks. The edited files and the `read_file` results are real
Python sources (memtui's own), edits replace one line at a time.

Measured: bytes passed to write()/pwrite() while recording, the final checkpoint of the
write-ahead log included (`wchar` of /proc/self/io: every WAL frame and every page copied
back into the database; it counts on tmpfs too, where the device counter stays 0), against
the database file at the end. Anchor, in the same run: the very same rows (read back from
the recorded store, grouped by the commit that wrote them) inserted with plain sqlite3
`executemany`, one transaction per recorded call, into a database with the same tables and
indexes and SQLite's defaults (4 KiB pages, WAL, synchronous=NORMAL as memtui uses); a second
anchor row uses memtui's page size, to show what the page size alone accounts for.
`--baseline DIR` records the same sequence with another checkout's memtui in a child process.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_CODE = sys.argv[sys.argv.index("--code") + 1] if "--code" in sys.argv else str(ROOT)
sys.path.insert(0, _CODE)

from memtui.core.store import AgentStore  # noqa: E402


def written() -> int:
    """Bytes this process has passed to write-family system calls so far."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise SystemExit("/proc/self/io has no wchar (Linux only)")


class TickClock:
    """A clock that moves 1 ms per reading: every commit gets its own timestamp."""

    def __init__(self) -> None:
        self._ticks = itertools.count()
        self._start = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self._start + timedelta(milliseconds=next(self._ticks))


def sources() -> dict[str, bytes]:
    files = sorted((ROOT / "memtui" / "core").rglob("*.py"))
    return {str(p.relative_to(ROOT)): p.read_bytes() for p in files if p.stat().st_size > 2000}


def record(store: AgentStore, n_tasks: int, seed: int = 7) -> int:
    """The sequence; returns the number of commits."""
    rng = random.Random(seed)
    files = sources()
    paths = sorted(files)
    commits = 0
    session = None
    for i in range(n_tasks):
        if i % 8 == 0:
            if session is not None:
                store.close_session(session)
            session = store.start_session(f"Session {i // 8 + 1}")
            commits += 2
        task = store.start_task(session, f"Task {i + 1}: tidy {rng.choice(paths)}")
        commits += 1
        for _ in range(10):
            kind = rng.random()
            if kind < 0.4:
                path = rng.choice(paths)
                store.record_step(task, "read_file", {"path": path}, files[path][:4000].decode(errors="replace"),
                                  tokens_in=rng.randint(200, 4000), tokens_out=rng.randint(20, 400),
                                  duration_ms=rng.randint(5, 200))
            elif kind < 0.7:
                word = rng.choice(["def ", "import ", "return ", "class ", "self."])
                hits = [f"{p}:{n}: {line.strip()}" for p in rng.sample(paths, 5)
                        for n, line in enumerate(files[p].decode(errors="replace").splitlines()) if word in line][:40]
                store.record_step(task, "grep", {"pattern": word}, "\n".join(hits), duration_ms=rng.randint(5, 90))
            else:
                lines = [f"tests/unit/test_{k}.py::test_case_{j} PASSED" for k in range(3) for j in range(rng.randint(5, 25))]
                store.record_step(task, "bash", {"command": "pytest -q"}, "\n".join(lines),
                                  duration_ms=rng.randint(500, 9000))
            commits += 1
        for _ in range(2):
            path = rng.choice(paths)
            old = files[path]
            lines = old.splitlines(keepends=True)
            k = rng.randrange(len(lines))
            lines[k] = lines[k].rstrip(b"\n") + f"  # {rng.randint(0, 10**6)}\n".encode()
            new = b"".join(lines)
            step = store.record_step(task, "edit_file", {"path": path, "line": k + 1}, {"ok": True})
            store.record_checkpoint(task, step, {path: (old, new)})
            files[path] = new
            commits += 2
        store.finish_task(task, rng.choice(["completed"] * 8 + ["failed"]), f"Task {i + 1} done.")
        commits += 1
    return commits


def memtui_row(n_tasks: int, work: Path) -> dict:
    folder = work / "memtui"
    store = AgentStore.open(folder, clock=TickClock())
    try:
        before = written()
        commits = record(store, n_tasks)
        store.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        total = written() - before
        payload = store.query("SELECT (SELECT COALESCE(SUM(payload_bytes), 0) FROM step)"
                              " + (SELECT COALESCE(SUM(stored), 0) FROM blob)")[0][0]
        db = store.db_path
        pragmas = {p: store.query(f"PRAGMA {p}")[0][0] for p in ("page_size", "wal_autocheckpoint", "schema_version")}
        schema = store.schema_version
    finally:
        store.close()
    return {"written": total, "file": db.stat().st_size, "commits": commits, "payload": payload, "db": str(db),
            "schema": schema, "page_size": pragmas["page_size"], "autocheckpoint": pragmas["wal_autocheckpoint"]}


# The commit that wrote each row: its timestamp (the clock ticks once per commit). Rows without
# a time of their own take their parent's: entries their checkpoint's, contents the first
# checkpoint that referenced them, references their newer task's.
def _keys(con: sqlite3.Connection) -> list[tuple[str, str]]:
    cols = {r[1] for r in con.execute("PRAGMA table_info(checkpoint_entry)")}
    before, after, key = (("before_blob", "after_blob", "id") if "before_blob" in cols
                          else ("before_hash", "after_hash", "hash"))
    first_use = ("(SELECT MIN(c.created_at) FROM checkpoint_entry e JOIN checkpoint c ON c.id = e.checkpoint_id"
                 f" WHERE e.{{side}} = {{blob}}.{key})")
    blob_time = (f"MIN(COALESCE({first_use.format(side=before, blob='blob')}, 1e18),"
                 f" COALESCE({first_use.format(side=after, blob='blob')}, 1e18))")
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    keys = [("session", "created_at"), ("task", "created_at"),
            ("task_ref", "(SELECT MAX(t.created_at) FROM task t WHERE t.id IN (from_task, to_task))"),
            ("step", "created_at"), ("checkpoint", "created_at"),
            ("checkpoint_entry", "(SELECT c.created_at FROM checkpoint c WHERE c.id = checkpoint_id)")]
    if "path" in tables:
        keys.append(("path", f"(SELECT MIN({blob_time}) FROM blob WHERE blob.path_id = path.id)"))
    keys.append(("blob", blob_time))
    if "path_version" in tables:
        keys.append(("path_version", f"(SELECT {blob_time} FROM blob WHERE blob.{key} = path_version.hash)"))
    keys += [("message", "created_at"), ("question", "created_at")]
    return [(t, k) for t, k in keys if t in tables]


def anchor_row(source_db: Path, work: Path, page_size: int | None = None) -> dict:
    src = sqlite3.connect(source_db)
    groups: dict[float, list[tuple[str, list[tuple]]]] = {}
    columns = {}
    for table, key in _keys(src):
        names = [r[1] for r in src.execute(f"PRAGMA table_info({table})")]
        columns[table] = names
        for row in src.execute(f"SELECT {key}, {', '.join(names)} FROM {table} ORDER BY rowid"):
            group = groups.setdefault(row[0], [])
            if not group or group[-1][0] != table:
                group.append((table, []))
            group[-1][1].append(row[1:])
    ddl = [r[0] for r in src.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
                                     " AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid")]
    src.close()
    db = work / f"anchor-{page_size}.db"
    con = sqlite3.connect(db, isolation_level=None)
    if page_size:
        con.execute(f"PRAGMA page_size = {page_size}")
    con.execute("PRAGMA journal_mode = wal")
    con.execute("PRAGMA synchronous = normal")
    for statement in ddl:
        con.execute(statement)
    before = written()
    for _, group in sorted(groups.items()):
        con.execute("BEGIN")
        for table, rows in group:
            marks = ", ".join("?" * len(columns[table]))
            con.executemany(f"INSERT INTO {table} ({', '.join(columns[table])}) VALUES ({marks})", rows)
        con.execute("COMMIT")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    total = written() - before
    con.close()
    return {"written": total, "file": db.stat().st_size, "commits": len(groups), "page_size": page_size or 4096}


def child_row(code: Path, n_tasks: int) -> dict:
    cmd = [sys.executable, __file__, "--tasks", str(n_tasks), "--memtui-only", "--code", str(code.resolve())]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(code.resolve())})
    if out.returncode:
        raise SystemExit(f"baseline run failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def describe(code: str | Path) -> str:
    out = subprocess.run(["git", "-C", str(code), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return out.stdout.strip() or str(code)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--baseline", type=Path, help="another checkout whose memtui records the same sequence")
    ap.add_argument("--code", help=argparse.SUPPRESS)
    ap.add_argument("--memtui-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memtui-bench-recorder-"))
    try:
        if args.memtui_only:
            print(json.dumps(memtui_row(args.tasks, work)))
            return 0
        rows = []
        if args.baseline is not None:
            rows.append((f"memtui @ {describe(args.baseline)} (baseline)", child_row(args.baseline, args.tasks)))
        ours = memtui_row(args.tasks, work)
        rows.append((f"memtui @ {describe(_CODE)}", ours))
        anchor = anchor_row(Path(ours["db"]), work)
        rows.append(("anchor: same rows, sqlite3 executemany", anchor))
        if ours["page_size"] != 4096:  # how much of the difference is the page size alone
            rows.append(("  the same, with memtui's page size", anchor_row(Path(ours["db"]), work, ours["page_size"])))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    mib = 2**20
    print(f"{args.tasks} tasks, {ours['commits']} commits (one per recorded call); content + step payload"
          f" {ours['payload'] / mib:.1f} MiB")
    print(f"{'writer':<44}{'schema':>7}{'page':>6}{'commits':>9}{'written MiB':>12}{'file MiB':>10}"
          f"{'written/file':>13}{'KiB/commit':>11}{'vs anchor':>10}")
    anchor_ratio = anchor["written"] / anchor["file"]
    for name, r in rows:
        ratio = r["written"] / r["file"]
        print(f"{name:<44}{r.get('schema', ''):>7}{r.get('page_size', 4096):>6}{r['commits']:>9}"
              f"{r['written'] / mib:>12.1f}{r['file'] / mib:>10.2f}{ratio:>13.2f}"
              f"{r['written'] / r['commits'] / 1024:>11.1f}{ratio / anchor_ratio:>10.2f}")
    print("written = bytes passed to write()/pwrite() (WAL frames and checkpoint copies), final checkpoint"
          " included; file = the database after it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
