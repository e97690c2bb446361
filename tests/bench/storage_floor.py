"""How small could the store of a replayed history get by giving up metadata? A measured floor.

    python tests/bench/storage_floor.py PATH/TO/REPO [--commits 1500]

Replays the history's whole commits into a memtui store (as tests/bench/storage.py does),
VACUUMs a copy, then takes away, one after another, metadata the store keeps on purpose, and
prints the file after each step against the raw bytes and the stored content (both measured in
the same run). Each step is a what-if on the copy, not a supported schema: it shows what each
safeguard costs and how near a smaller file would come, so that choices are made on figures.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from storage import Git, edits, record  # noqa: E402

from memtui.core.store import AgentStore  # noqa: E402

# (what is given up, the statements that give it up), applied in this order, cumulatively.
WHAT_IFS = (
    ("codec as a small integer instead of its name", [
        "UPDATE blob SET codec = CASE codec WHEN 'raw' THEN 0 WHEN 'zstd' THEN 1 WHEN 'delta' THEN 2 ELSE 3 END"]),
    ("a reference count per blob instead of the indexes GC's foreign keys use", [
        "ALTER TABLE blob ADD COLUMN refs INTEGER DEFAULT 0",
        "UPDATE blob SET refs = (SELECT count(*) FROM checkpoint_entry e WHERE e.before_blob = blob.id)"
        " + (SELECT count(*) FROM checkpoint_entry e WHERE e.after_blob = blob.id)"
        " + (SELECT count(*) FROM blob b WHERE b.base = blob.id)",
        "DROP INDEX checkpoint_entry_before_blob", "DROP INDEX checkpoint_entry_after_blob", "DROP INDEX blob_base"]),
    ("entry sizes (read from the blob instead)", [
        "UPDATE checkpoint_entry SET before_size = NULL, after_size = NULL"]),
    ("the index of entries by checkpoint", ["DROP INDEX checkpoint_entry_checkpoint_id"]),
    ("the index of checkpoints by step", ["DROP INDEX checkpoint_step_id"]),
    ("half of each content hash (SHA-256 cut to 128 bits)", ["UPDATE blob SET hash = substr(hash, 1, 16)"]),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, default=1500)
    args = ap.parse_args()
    git = Git(args.repo)
    plan = list(edits(git, git.commits(args.commits), split=False))
    raw = sum(len(b or b"") + len(a or b"") for _, files in plan for _, b, a in files)
    work = Path(tempfile.mkdtemp(prefix="memtui-floor-"))
    try:
        with AgentStore.open(work / "memtui") as store:
            for _ in record(store, plan):
                pass
            content = store.query("SELECT COALESCE(SUM(stored), 0) FROM blob")[0][0]
            db_path = store.db_path
        copy = work / "floor.db"
        con = sqlite3.connect(db_path)
        con.execute(f"VACUUM INTO '{copy}'")
        con.close()
        con = sqlite3.connect(copy)
        con.execute("PRAGMA foreign_keys = OFF")
        print(f"{len(plan)} checkpoints, raw {raw / 2**20:.1f} MiB, content stored {content / 1024:.0f} KiB"
              f" ({100 * content / raw:.2f}% of raw)")
        print(f"{'given up (cumulative)':<72}{'file KiB':>9}{'% raw':>8}{'file/content':>13}")
        file_bytes = _vacuumed(con)
        print(f"{'nothing: the store as memtui writes it (anchor)':<72}{file_bytes / 1024:>9.0f}"
              f"{100 * file_bytes / raw:>7.3f}%{file_bytes / content:>13.2f}")
        for what, statements in WHAT_IFS:
            for sql in statements:
                con.execute(sql)
            con.commit()
            file_bytes = _vacuumed(con)
            print(f"{'+ ' + what:<72}{file_bytes / 1024:>9.0f}{100 * file_bytes / raw:>7.3f}%"
                  f"{file_bytes / content:>13.2f}")
        con.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _vacuumed(con: sqlite3.Connection) -> int:
    con.execute("VACUUM")
    return con.execute("PRAGMA page_count").fetchone()[0] * con.execute("PRAGMA page_size").fetchone()[0]


if __name__ == "__main__":
    raise SystemExit(main())
