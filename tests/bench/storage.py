"""Storage benchmark: replay a real git history through the recorder.

    python tests/bench/storage.py PATH/TO/REPO [--commits 1500] [--split-hunks]

Each commit's changed text files become one checkpoint (before/after contents); with
--split-hunks every hunk becomes its own step and checkpoint, so a file is edited many
times. Prints raw bytes, stored content bytes, the database file after VACUUM, write and
read throughput — for memtui's store and, measured in the same run, for the older scheme
(per-entry zlib level 6 stored only when smaller) and git's own pack of the same blobs.
Every read back is checked byte for byte. Nothing of the replayed repository is kept.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

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


def vacuumed_size(db: Path) -> int:
    out = db.with_name(db.stem + "-vacuumed.db")
    con = sqlite3.connect(db)
    con.execute(f"VACUUM INTO '{out}'")
    con.close()
    size = out.stat().st_size
    out.unlink()
    return size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, default=1500)
    ap.add_argument("--split-hunks", action="store_true")
    ap.add_argument("--breakdown", action="store_true", help="print bytes per table and index")
    args = ap.parse_args()
    git = Git(args.repo)
    commits = git.commits(args.commits)
    work = Path(tempfile.mkdtemp(prefix="memtui-bench-"))
    try:
        return run(git, commits, args.split_hunks, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(git: Git, commits: list[str], split: bool, work: Path) -> int:
    # Collect the edits first so both schemes time only their own work.
    plan = list(edits(git, commits, split))
    raw = sum(len(b or b"") + len(a or b"") for _, files in plan for _, b, a in files)
    n_entries = sum(len(files) for _, files in plan)
    print(f"{len(commits)} commits, {len(plan)} checkpoints, {n_entries} entries, raw {raw / 2**20:.1f} MiB"
          f"{' (split hunks)' if split else ''}")

    # memtui: content-addressed, zstd, skip-delta
    expected: list[tuple[int, str | None, str | None]] = []
    t0 = time.perf_counter()
    with AgentStore.open(work / "memtui") as store:
        session = store.start_session("replay")
        task = store.start_task(session, "replay")
        with store.transaction():
            for n, files in plan:
                step = store.record_step(task, "commit", {"n": n}, None)
                cp = store.record_checkpoint(task, step, {p: (b, a) for p, b, a in files})
                for entry, (_, b, a) in zip(store.checkpoint_entries(cp), files, strict=True):
                    expected.append((entry.id, b and hashlib.sha256(b).hexdigest(), a and hashlib.sha256(a).hexdigest()))
        write_s = time.perf_counter() - t0
        store_db = store.db_path
        stored = store.query("SELECT COALESCE(SUM(stored), 0) FROM blob")[0][0]
        store.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    with AgentStore.open(work / "memtui", readonly=True) as store:
        t0 = time.perf_counter()
        for eid, bh, ah in expected:
            b, a = store.read_entry(eid)
            if (b and hashlib.sha256(b).hexdigest()) != bh or (a and hashlib.sha256(a).hexdigest()) != ah:
                raise SystemExit(f"entry {eid} did not read back exactly")
        read_s = time.perf_counter() - t0
    memtui_file = vacuumed_size(store_db)
    if "--breakdown" in sys.argv:
        con = sqlite3.connect(store_db)
        for name, size in con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
            print(f"  {name:<40}{size / 2**20:8.2f} MiB")
        con.close()

    # the older scheme: per-entry zlib 6 when smaller, inline in the entry row
    legacy_db = work / "legacy.db"
    con = sqlite3.connect(legacy_db)
    con.execute("CREATE TABLE checkpoint_entry (id INTEGER PRIMARY KEY, checkpoint_id INTEGER, path TEXT,"
                " before_legacy, after_legacy)")
    t0 = time.perf_counter()
    legacy_stored = 0
    for n, files in plan:
        for path, b, a in files:
            eb = None if b is None else encode_legacy(b)
            ea = None if a is None else encode_legacy(a)
            legacy_stored += sum(len(x) if isinstance(x, bytes) else len(x.encode()) for x in (eb, ea) if x is not None)
            con.execute("INSERT INTO checkpoint_entry (checkpoint_id, path, before_legacy, after_legacy)"
                        " VALUES (?, ?, ?, ?)", (n, path, eb, ea))
    con.commit()
    legacy_write_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for (_, bh, ah), (b, a) in zip(expected, con.execute("SELECT before_legacy, after_legacy FROM checkpoint_entry"
                                                          " ORDER BY id").fetchall(), strict=True):
        rb, ra = decode_legacy(b), decode_legacy(a)
        if (rb and hashlib.sha256(rb).hexdigest()) != bh or (ra and hashlib.sha256(ra).hexdigest()) != ah:
            raise SystemExit("legacy entry did not read back exactly")
    legacy_read_s = time.perf_counter() - t0
    con.close()
    legacy_file = vacuumed_size(legacy_db)

    # git's own pack of the same blobs (whole-file versions only; hunk splits have no git blobs)
    named: dict[str, str] = {}
    for commit in commits:
        for path, old, new in git.changes(commit):
            named.update((x, path) for x in (old, new) if x)
    # With path names, as git does, so that versions of one file are delta candidates.
    pack = subprocess.run(["git", "-C", str(git.repo), "pack-objects", "--stdout", "-q", "--window=50"],
                          input="".join(f"{sha} {path}\n" for sha, path in named.items()).encode(),
                          capture_output=True).stdout

    mib = 2**20
    rows = [
        ("memtui (dedup + zstd + skip-delta)", stored, memtui_file, write_s, read_s),
        ("older scheme (per-entry zlib 6)", legacy_stored, legacy_file, legacy_write_s, legacy_read_s),
    ]
    print(f"\n{'scheme':<36}{'stored MiB':>11}{'% raw':>8}{'file MiB*':>11}{'% raw':>8}{'write MiB/s':>13}{'read MiB/s':>12}")
    for name, st, fb, ws, rs in rows:
        print(f"{name:<36}{st / mib:>11.2f}{100 * st / raw:>7.2f}%{fb / mib:>11.2f}{100 * fb / raw:>7.2f}%"
              f"{raw / mib / ws:>13.1f}{raw / mib / rs:>12.1f}")
    print(f"{'git pack-objects (same commits)':<36}{len(pack) / mib:>11.2f}{100 * len(pack) / raw:>7.2f}%"
          f"{'':>11}{'':>8}   (anchor; blobs of the unsplit commits)")
    print("* database file after VACUUM, steps and indexes included")
    print(f"memtui file / older scheme file = {memtui_file / legacy_file:.3f}; "
          f"memtui file / git pack = {memtui_file / max(len(pack), 1):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
