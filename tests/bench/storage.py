"""Storage benchmark: replay a real git history through the recorder.

    python tests/bench/storage.py PATH/TO/REPO [--commits 1500] [--modes whole,split]
                                  [--baseline OTHER_CHECKOUT] [--breakdown]

Two replay modes: `whole` — each commit's changed text files become one checkpoint
(before/after contents); `split` — every hunk becomes its own step and checkpoint, so a file
is edited many times. For each mode it prints raw bytes, stored content bytes, the database
file after VACUUM, the metadata (file minus content) per entry and against the content, write
and read throughput — for memtui's store and, measured in the same run, for the older scheme
(per-entry zlib level 6 stored only when smaller) and git's own pack of the same blobs.
`--baseline DIR` replays the same history with the memtui code of another checkout (e.g. a
worktree of an older commit) in a child process, so before/after figures share one run.
Every read back is checked byte for byte. Nothing of the replayed repository is kept.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# --code DIR (the child process of --baseline): import memtui from another checkout.
_CODE = sys.argv[sys.argv.index("--code") + 1] if "--code" in sys.argv else str(Path(__file__).resolve().parents[2])
sys.path.insert(0, _CODE)

from memtui.core.content import decode_legacy, encode_legacy  # noqa: E402
from memtui.core.store import AgentStore  # noqa: E402

MAX_FILE = 1 << 20


class Git:
    """Reads blobs through one `git cat-file --batch` process."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def blob(self, sha: str) -> bytes:
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)
        return data

    def commits(self, n: int) -> list[str]:
        out = subprocess.run(["git", "-C", str(self.repo), "rev-list", "--first-parent", "--reverse", "-n", str(n),
                              "HEAD"], capture_output=True, text=True, check=True).stdout
        return out.split()

    def changes(self, commit: str) -> list[tuple[str, str | None, str | None]]:
        out = subprocess.run(["git", "-C", str(self.repo), "diff-tree", "-r", "--no-renames", "--root", "-z",
                              "--no-commit-id", *([f"{commit}^1", commit] if self._has_parent(commit) else [commit])],
                             capture_output=True, check=True).stdout.split(b"\0")
        result = []
        for meta, path in zip(out[0::2], out[1::2], strict=False):
            if not meta:
                continue
            _, _, old, new, _ = meta.decode().lstrip(":").split(" ")
            zero = "0" * 40
            result.append((path.decode("utf-8", "replace"), None if old == zero else old, None if new == zero else new))
        return result

    def _has_parent(self, commit: str) -> bool:
        return subprocess.run(["git", "-C", str(self.repo), "rev-parse", "-q", "--verify", f"{commit}^"],
                              capture_output=True).returncode == 0


def is_text(data: bytes | None) -> bool:
    return data is None or (len(data) <= MAX_FILE and b"\0" not in data[:8192])


def hunk_versions(before: bytes, after: bytes) -> list[bytes]:
    """Intermediate versions applying one hunk at a time (the last equals `after`)."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    versions, current, shift = [], list(a), 0
    for _, i1, i2, j1, j2 in ops:
        current[i1 + shift:i2 + shift] = b[j1:j2]
        shift += (j2 - j1) - (i2 - i1)
        versions.append(b"".join(current))
    return versions or [after]


def edits(git: Git, commits: list[str], split: bool):
    """Yield (commit index, [(path, before, after)]) per checkpoint."""
    for n, commit in enumerate(commits):
        files = []
        for path, old, new in git.changes(commit):
            before = git.blob(old) if old else None
            after = git.blob(new) if new else None
            if is_text(before) and is_text(after):
                files.append((path, before, after))
        if not split:
            if files:
                yield n, files
            continue
        for path, before, after in files:
            if before is None or after is None:
                yield n, [(path, before, after)]
                continue
            prev = before
            for version in hunk_versions(before, after):
                yield n, [(path, prev, version)]
                prev = version


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, default=1500)
    ap.add_argument("--modes", default="whole,split", help="whole, split or both (comma-separated)")
    ap.add_argument("--split-hunks", action="store_true", help="same as --modes split")
    ap.add_argument("--baseline", type=Path, help="another checkout whose memtui replays the same history")
    ap.add_argument("--breakdown", action="store_true", help="print bytes per table and index (after VACUUM)")
    ap.add_argument("--code", help=argparse.SUPPRESS)
    ap.add_argument("--memtui-only", action="store_true", help=argparse.SUPPRESS)  # the child: one JSON row
    args = ap.parse_args()
    modes = ["split"] if args.split_hunks else [m.strip() for m in args.modes.split(",") if m.strip()]
    git = Git(args.repo)
    commits = git.commits(args.commits)
    for mode in modes:
        work = Path(tempfile.mkdtemp(prefix="memtui-bench-"))
        try:
            if args.memtui_only:
                plan = list(edits(git, commits, mode == "split"))
                print(json.dumps(replay_memtui(plan, work, args.breakdown)))
            else:
                run(git, commits, mode, work, args.baseline, args.breakdown)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def describe(code: str | Path) -> str:
    out = subprocess.run(["git", "-C", str(code), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return out.stdout.strip() or str(code)


def replay_memtui(plan: list, work: Path, breakdown: bool = False) -> dict:
    """Record `plan` into a new memtui store, read every entry back (checked), and measure."""
    expected: list[tuple[int, str | None, str | None]] = []
    t0 = time.perf_counter()
    with AgentStore.open(work / "memtui") as store:
        for cp, files in record(store, plan):
            for entry, (_, b, a) in zip(store.checkpoint_entries(cp), files, strict=True):
                expected.append((entry.id, b and hashlib.sha256(b).hexdigest(), a and hashlib.sha256(a).hexdigest()))
        write_s = time.perf_counter() - t0
        store_db = store.db_path
        stored = store.query("SELECT COALESCE(SUM(stored), 0) FROM blob")[0][0]
        store.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    with AgentStore.open(work / "memtui", readonly=True) as store:
        schema = store.schema_version
        t0 = time.perf_counter()
        for eid, bh, ah in expected:
            b, a = store.read_entry(eid)
            if (b and hashlib.sha256(b).hexdigest()) != bh or (a and hashlib.sha256(a).hexdigest()) != ah:
                raise SystemExit(f"entry {eid} did not read back exactly")
        read_s = time.perf_counter() - t0
    file_bytes, parts = vacuumed(store_db, breakdown)
    return {"stored": stored, "file": file_bytes, "write_s": write_s, "read_s": read_s, "schema": schema,
            "entries": len(expected), "parts": parts}


def record(store: AgentStore, plan: list):
    """Record `plan` in `store` as one agent would: a step and a checkpoint per commit, in one
    transaction; yields (checkpoint id, files) as each is recorded."""
    session = store.start_session("replay")
    task = store.start_task(session, "replay")
    with store.transaction():
        for n, files in plan:
            step = store.record_step(task, "commit", {"n": n}, None)
            yield store.record_checkpoint(task, step, {p: (b, a) for p, b, a in files}), files


def vacuumed(db: Path, breakdown: bool) -> tuple[int, list[tuple[str, int]]]:
    """The size of `db` after VACUUM and, with `breakdown`, bytes per table and index."""
    out = db.with_name(db.stem + "-vacuumed.db")
    con = sqlite3.connect(db)
    con.execute(f"VACUUM INTO '{out}'")
    con.close()
    parts = []
    if breakdown:
        con = sqlite3.connect(out)
        parts = con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        con.close()
    size = out.stat().st_size
    out.unlink()
    return size, parts


def replay_legacy(plan: list, work: Path) -> dict:
    """The older scheme: per-entry zlib 6 when smaller, inline in the entry row."""
    legacy_db = work / "legacy.db"
    con = sqlite3.connect(legacy_db)
    con.execute("CREATE TABLE checkpoint_entry (id INTEGER PRIMARY KEY, checkpoint_id INTEGER, path TEXT,"
                " before_legacy, after_legacy)")
    t0 = time.perf_counter()
    stored = 0
    digests = []
    for n, files in plan:
        for path, b, a in files:
            eb = None if b is None else encode_legacy(b)
            ea = None if a is None else encode_legacy(a)
            stored += sum(len(x) if isinstance(x, bytes) else len(x.encode()) for x in (eb, ea) if x is not None)
            digests.append((b and hashlib.sha256(b).hexdigest(), a and hashlib.sha256(a).hexdigest()))
            con.execute("INSERT INTO checkpoint_entry (checkpoint_id, path, before_legacy, after_legacy)"
                        " VALUES (?, ?, ?, ?)", (n, path, eb, ea))
    con.commit()
    write_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for (bh, ah), (b, a) in zip(digests, con.execute("SELECT before_legacy, after_legacy FROM checkpoint_entry"
                                                      " ORDER BY id").fetchall(), strict=True):
        rb, ra = decode_legacy(b), decode_legacy(a)
        if (rb and hashlib.sha256(rb).hexdigest()) != bh or (ra and hashlib.sha256(ra).hexdigest()) != ah:
            raise SystemExit("legacy entry did not read back exactly")
    read_s = time.perf_counter() - t0
    con.close()
    return {"stored": stored, "file": vacuumed(legacy_db, False)[0], "write_s": write_s, "read_s": read_s,
            "entries": len(digests)}


def git_pack(git: Git, plan: list) -> int:
    """Bytes of git's own pack of exactly the contents replayed (text files, whole versions:
    the blobs of the hunk-split versions do not exist in git, so they are left out too)."""
    named: dict[str, str] = {}
    for _, files in plan:
        for path, before, after in files:
            for data in (before, after):
                if data is not None:
                    named[hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()] = path
    # With path names, as git does, so that versions of one file are delta candidates.
    pack = subprocess.run(["git", "-C", str(git.repo), "pack-objects", "--stdout", "-q", "--window=50"],
                          input="".join(f"{sha} {path}\n" for sha, path in named.items()).encode(),
                          capture_output=True)
    return len(pack.stdout) if pack.returncode == 0 else 0


def baseline_row(repo: Path, n_commits: int, mode: str, code: Path, breakdown: bool) -> dict:
    """The memtui row replayed by another checkout's code in a child process."""
    cmd = [sys.executable, __file__, str(repo), "--commits", str(n_commits), "--modes", mode, "--memtui-only",
           "--code", str(code.resolve()), *(["--breakdown"] if breakdown else [])]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(code.resolve())})
    if out.returncode:
        raise SystemExit(f"baseline replay failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(git: Git, commits: list[str], mode: str, work: Path, baseline: Path | None, breakdown: bool) -> None:
    # Collect the edits first so every scheme times only its own work.
    plan = list(edits(git, commits, mode == "split"))
    raw = sum(len(b or b"") + len(a or b"") for _, files in plan for _, b, a in files)
    n_entries = sum(len(files) for _, files in plan)
    print(f"\n== {mode} commits{' (each hunk a checkpoint)' if mode == 'split' else ''}: {len(commits)} commits,"
          f" {len(plan)} checkpoints, {n_entries} entries, raw {raw / 2**20:.1f} MiB")
    rows = []
    if baseline is not None:
        rows.append((f"memtui @ {describe(baseline)} (baseline)", baseline_row(git.repo, len(commits), mode,
                                                                              baseline, breakdown)))
    rows.append((f"memtui @ {describe(_CODE)}", replay_memtui(plan, work, breakdown)))
    rows.append(("older scheme (per-entry zlib 6)", replay_legacy(plan, work)))
    pack = git_pack(git, plan if mode == "whole" else list(edits(git, commits, False)))

    mib = 2**20
    print(f"{'scheme':<40}{'schema':>7}{'content MiB':>12}{'% raw':>7}{'file MiB*':>10}{'% raw':>7}"
          f"{'meta/content':>13}{'meta B/entry':>13}{'write MiB/s':>12}{'read MiB/s':>11}")
    for name, r in rows:
        meta = r["file"] - r["stored"]
        print(f"{name:<40}{r.get('schema', ''):>7}{r['stored'] / mib:>12.2f}{100 * r['stored'] / raw:>6.2f}%"
              f"{r['file'] / mib:>10.2f}{100 * r['file'] / raw:>6.2f}%{meta / max(r['stored'], 1):>13.2f}"
              f"{meta / max(r['entries'], 1):>13.0f}{raw / mib / r['write_s']:>12.1f}{raw / mib / r['read_s']:>11.1f}")
    print(f"{'git pack-objects (anchor)':<40}{'':>7}{pack / mib:>12.2f}{100 * pack / raw:>6.2f}%"
          "   the same text files' whole versions, --window=50")
    print("* database file after VACUUM, steps and indexes included; metadata = file - content")
    ours = rows[-2][1]
    print(f"memtui file / older scheme file = {ours['file'] / rows[-1][1]['file']:.3f};"
          f" memtui file / git pack = {ours['file'] / max(pack, 1):.2f}")
    if len(rows) == 3:
        before = rows[0][1]
        print(f"file after / before = {ours['file'] / before['file']:.3f};"
              f" metadata after / before = {(ours['file'] - ours['stored']) / (before['file'] - before['stored']):.3f}")
    for name, r in rows[:-1]:
        if r.get("parts"):
            print(f"\n{name}: bytes per table and index after VACUUM")
            for part, size in r["parts"]:
                if size > 4096:
                    print(f"  {part:<40}{size / 1024:10.1f} KiB")


if __name__ == "__main__":
    raise SystemExit(main())
