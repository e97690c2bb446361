"""Damaged contents and damaged databases: memtui returns the exact bytes it stored or says
why it cannot (a one-line error) — never other bytes, never a traceback."""

from __future__ import annotations

import random
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import harness as h
import peewee
from fuzz_records import _site

from memtui.core.content import ZSTD_MAGIC
from memtui.core.errors import MemtuiError
from memtui.core.store import AgentStore


@dataclass
class StoreFuzz:
    cases: int = 0
    crashes: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # bytes returned that are not the stored ones
    errors: int = 0  # cases answered with a one-line error (the expected outcome for damage)
    db_errors: int = 0  # SQLite's own "malformed" errors: the CLI and the app print them as one line

    def line(self, label: str) -> str:
        return (f"| {label} | {self.cases} cases | {len(self.crashes)} tracebacks | {len(self.wrong)} silently wrong"
                f" | {self.errors} one-line errors, {self.db_errors} SQLite errors |")


# ----------------------------------------------------------------------------- blobs
def blob_store(root: Path) -> tuple[Path, dict[int, tuple[bytes | None, bytes | None]]]:
    """A store with raw, zstd and delta-chained contents; (db, every entry's true contents)."""
    from worlds import TickClock, text

    truth: dict[int, tuple[bytes | None, bytes | None]] = {}
    with AgentStore.open(root, clock=TickClock()) as store:
        s = store.start_session("s")
        t = store.start_task(s, "t")
        versions = [text(i, 80) for i in range(12)] + [b"tiny", bytes(range(256)) * 8]
        for i in range(1, len(versions)):
            cp = store.record_checkpoint(t, None, {"f.py": (versions[i - 1], versions[i]),
                                                   f"g{i % 3}.bin": (None, versions[-i])})
            for e in store.checkpoint_entries(cp):
                truth[e.id] = store.read_entry(e.id)
        return store.db_path, truth


MUTATIONS = ("flip", "truncate", "append", "codec", "size", "base-self", "base-other", "base-missing",
             "base-none", "depth", "data-null", "hash", "id", "delta-header")
# delta-header: the first byte of a delta frame written without zstd's magic number (schema 6) —
# its frame header descriptor. 0xc0 and 0xe4 make the header declare exabytes, which python-
# zstandard would try to allocate unless the reader checks the declared size first.
DELTA_HEADER_BYTES = (0xC0, 0xE4, 0x20, 0x60, 0xA0, 0xFF)


def mutate_blob(conn, rnd: random.Random, ids: list[int]) -> str:
    import sqlite3

    target = rnd.choice(ids)
    row = conn.execute("SELECT codec, data, size, base FROM blob WHERE id = ?", (target,)).fetchone()
    if row is None:
        return "no-op"  # moved by an earlier mutation of this case
    codec, data, size, base = row
    what = rnd.choice(MUTATIONS)
    data = bytes(data) if data is not None else b""
    sets: dict[str, object] = {}
    if what == "flip" and data:
        i = rnd.randrange(len(data))
        sets["data"] = data[:i] + bytes([data[i] ^ (1 << rnd.randrange(8))]) + data[i + 1:]
    elif what == "truncate":
        sets["data"] = data[:rnd.randrange(len(data) + 1)]
    elif what == "append":
        sets["data"] = data + rnd.randbytes(rnd.randrange(1, 40))
    elif what == "codec":
        sets["codec"] = rnd.choice(["raw", "zstd", "delta", "zlib", ""])
    elif what == "size":
        sets["size"] = rnd.choice([0, size - 1, size + 1, 2 ** 40, -1])
    elif what == "base-self":
        sets.update(codec="delta", base=target)
    elif what == "base-other":
        sets.update(codec="delta", base=rnd.choice(ids))
    elif what == "base-missing":
        sets.update(codec="delta", base=rnd.randrange(10**6, 10**7))
    elif what == "base-none":
        sets["base"] = None
    elif what == "depth":
        sets["depth"] = rnd.choice([0, 17, 1000, -1])
    elif what == "data-null":
        sets["data"] = None
    elif what == "hash":  # the content no longer matches its address
        sets["hash"] = rnd.randbytes(32)
    elif what == "id":  # the row moves to another id: entries now point at nothing
        sets["id"] = rnd.randrange(10**6, 10**7)
    elif what == "delta-header":
        deltas = [i for i, c, d in conn.execute("SELECT id, codec, data FROM blob")
                  if c == "delta" and d is not None and bytes(d)[:4] != ZSTD_MAGIC]
        if deltas:
            target = rnd.choice(deltas)
            (data,) = conn.execute("SELECT data FROM blob WHERE id = ?", (target,)).fetchone()
            sets["data"] = bytes([rnd.choice(DELTA_HEADER_BYTES)]) + bytes(data)[1:]
    if not sets:
        return "no-op"
    cols = ", ".join(f"{k} = ?" for k in sets)
    try:
        conn.execute(f"UPDATE blob SET {cols} WHERE id = ?", (*sets.values(), target))
    except sqlite3.IntegrityError:
        return "no-op"  # the schema refuses it (NOT NULL, CHECK): no writer can leave it so
    return f"{what} on #{target}"


def fuzz_blobs(tmp: Path, cases: int, seed: int = 0) -> StoreFuzz:
    import sqlite3

    db, truth = blob_store(tmp / "blobs")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    pristine = db.read_bytes()
    ids = [r[0] for r in sqlite3.connect(db).execute("SELECT id FROM blob")]
    rnd = random.Random(seed)
    out = StoreFuzz()
    for _ in range(cases):
        db.write_bytes(pristine)
        conn = sqlite3.connect(db)
        what = " + ".join(mutate_blob(conn, rnd, ids) for _ in range(rnd.choice((1, 1, 2))))
        conn.commit()
        conn.close()
        out.cases += 1
        try:
            with AgentStore.open(db, readonly=True) as store:
                for entry_id, expected in truth.items():
                    try:
                        got = store.read_entry(entry_id)
                    except MemtuiError:
                        out.errors += 1
                        continue
                    if got != expected:
                        out.wrong.append(f"{what}: entry {entry_id} read other bytes")
        except Exception as exc:  # noqa: BLE001
            out.crashes.append(f"{what}: {_site(exc)}: {str(exc)[:100]}")
    db.write_bytes(pristine)
    return out


# ----------------------------------------------------------------------------- DB files
def damage(data: bytes, rnd: random.Random) -> tuple[bytes, str]:
    """A damaged copy of a database file, and how it was damaged."""
    kind = rnd.choice(("flip-bytes", "flip-page", "truncate", "zero-page", "header", "empty", "garbage"))
    page = 4096
    buf = bytearray(data)
    if kind == "flip-bytes":
        for _ in range(rnd.randrange(1, 20)):
            i = rnd.randrange(len(buf))
            buf[i] ^= 1 << rnd.randrange(8)
    elif kind == "flip-page":
        p = rnd.randrange(1, max(2, len(buf) // page))
        for i in range(p * page, min(len(buf), (p + 1) * page), 7):
            buf[i] ^= 0xA5
    elif kind == "truncate":
        buf = buf[:rnd.randrange(len(buf))]
    elif kind == "zero-page":
        p = rnd.randrange(max(1, len(buf) // page))
        buf[p * page:(p + 1) * page] = bytes(min(page, len(buf) - p * page))
    elif kind == "header":
        i = rnd.randrange(100)
        buf[i] ^= 0xFF
    elif kind == "empty":
        buf = bytearray()
    else:
        buf = bytearray(rnd.randbytes(rnd.randrange(1, 3 * page)))
    return bytes(buf), kind


def read_store(db: Path) -> int:
    """Everything the panes read from a store, through the library."""
    from memtui.core.gc import plan_gc
    from memtui.core.stats import db_stats

    n = 0
    with AgentStore.open(db, readonly=True) as store:
        store.counts()
        for s in store.sessions():
            for t in store.tasks(s.id):
                n += len(store.steps(t.id)) + len(store.messages(t.id))
                for c in store.checkpoints(t.id):
                    for e in store.checkpoint_entries(c.id):
                        try:
                            store.read_entry(e.id)
                        except MemtuiError:
                            pass
                        n += 1
        plan_gc(store)
        db_stats(store)
    return n


def fuzz_db_files(tmp: Path, cases: int, seed: int = 0) -> StoreFuzz:
    """Damaged copies of the demo's agent.db read through the library: a MemtuiError (or a
    sound read) is fine; any other exception is a traceback the user would see in a pane."""
    from readonly import consolidated_demo

    root = consolidated_demo(tmp / "demo")
    pristine = (root / ".agent" / "agent.db").read_bytes()
    rnd = random.Random(seed)
    out = StoreFuzz()
    for i in range(cases):
        data, kind = damage(pristine, rnd)
        ws = tmp / f"d{i}"
        (ws / ".agent").mkdir(parents=True)
        (ws / ".agent" / "agent.db").write_bytes(data)
        out.cases += 1
        try:
            read_store(ws / ".agent" / "agent.db")
        except MemtuiError:
            out.errors += 1
        except (sqlite3.DatabaseError, peewee.DatabaseError):
            out.db_errors += 1
        except Exception as exc:  # noqa: BLE001
            out.crashes.append(f"{kind}: {_site(exc)}: {str(exc)[:100]}")
        shutil.rmtree(ws)
    return out


CLI_VERBS: tuple[tuple[str, ...], ...] = (
    ("gc", "{ws}"), ("gc", "{ws}", "--apply"), ("stats", "{ws}"), ("vacuum", "{ws}"), ("pin", "{ws}", "1"),
    ("rollback", "{ws}", "--task", "1", "--dry-run"), ("rollback", "{ws}", "--task", "1"), ("search", "{ws}", "x"),
    ("lint", "{ws}"), ("sources", "{ws}"),
)
WRITING = {"--apply", "vacuum", "pin"}


def fuzz_cli(tmp: Path, damaged: int, seed: int = 0) -> tuple[StoreFuzz, list[str]]:
    """`damaged` damaged databases × every verb of CLI_VERBS, as a user runs them: exit 0, 1
    or 2 with a message, never a traceback. Writing verbs must not turn an empty or foreign
    file into a store: (those found)."""
    from readonly import consolidated_demo

    root = consolidated_demo(tmp / "demo")
    pristine = (root / ".agent" / "agent.db").read_bytes()
    rnd = random.Random(seed)
    out = StoreFuzz()
    converted: list[str] = []
    for i in range(damaged):
        data, kind = damage(pristine, rnd) if i > 1 else ((b"", "empty") if i == 0 else (b"not a db\n" * 50, "text"))
        for verb in CLI_VERBS:
            ws = tmp / f"c{i}"
            shutil.rmtree(ws, ignore_errors=True)
            (ws / ".agent").mkdir(parents=True)
            db = ws / ".agent" / "agent.db"
            db.write_bytes(data)
            done = h.run(h.memtui(*[a.format(ws=ws) for a in verb]))
            out.cases += 1
            if "Traceback" in done.stderr or done.returncode not in (0, 1, 2):
                out.crashes.append(f"{kind} × {' '.join(verb)}: exit {done.returncode}: {done.stderr.strip()[-160:]}")
            elif done.returncode:
                out.errors += 1
            if kind in ("empty", "text") and WRITING & set(verb) and db.read_bytes() != data:
                converted.append(f"{' '.join(verb)} turned a {kind} agent.db into something else")
    return out, converted
