"""Each session's priced replies kept between runs, so a usage report over a home read before
reads no transcript, no usage table of the index and no price table.

One SQLite file per store (`$XDG_CACHE_HOME/memtui/usage/<kind>-<name>-<key>.db`, keyed as the
home's index is, in the same 0700 cache folder; nothing is written in the agent's home). Per
session it keeps the session's `files_key` — the digest of the stat keys (size, mtime, inode)
of every file of the session: its transcript, sub-agents' transcripts, tool results — and its
replies as `price(session_replies(...))` gave them: turn, time, model, tokens by kind, the cost
its store recorded and the cost priced. A session whose files changed (a new reply, a cleanup),
or one its store gives no files key for (memtui's own store, an archived session), is read
through the source again and kept anew; a session no longer listed is dropped. The file is
emptied when memtui's code or the price table's version differs from the one that wrote it.

What is not the session's own is not kept: its title (Claude Code may take it from the
prompt history, another file) and which home and agent it is of come from the listing.
Writes are one SQLite transaction (kill -9 leaves the previous rows); a cache that cannot be
read or written is done without.
"""

from __future__ import annotations

import json
import pickle
import sqlite3
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from memtui.core.usage.collect import ORPHANS, session_replies
from memtui.core.usage.prices import PriceTable, Pricer, price_start_dates, price_table, shared_pricer, table_version
from memtui.core.usage.report import Group, Priced, Reply, price
from memtui.core.usage.tokens import Tokens

if TYPE_CHECKING:
    from memtui.core.memory_source import MemorySource
    from memtui.core.model import Id, SessionInfo

FOLDER = "usage"
LAYOUT = "1"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(id TEXT PRIMARY KEY, files_key TEXT NOT NULL, rows BLOB NOT NULL);
"""

SAVE_EVERY = 100
"""Sessions read through the source that are kept in one transaction as soon as they are read
(the rest at the end): a report or a Cost column stopped half-way keeps what it priced."""

Row = tuple[Any, ...]
"""(task id, time, model, the six token counts, recorded cost, priced cost, project)."""


@cache
def _code() -> str:
    """A digest of the code that makes a session's replies: the core, its sources and usage
    engines, and every agent's package."""
    from memtui.core.sources.part_store import code_key

    core = Path(__file__).resolve().parent.parent
    agents = sorted(p for p in (core / "agents").iterdir() if p.is_dir() and not p.name.startswith("_"))
    return code_key(core, core / "sources", core / "usage", core / "agents", *agents)


def _row(item: Priced) -> Row:
    r, t = item.reply, item.reply.tokens
    return (r.task_id, r.at, r.model, t.input, t.output, t.cache_read, t.cache_write_5m, t.cache_write_1h,
            t.reasoning, r.cost, item.cost, r.project)


def _items(rows: list[Row], agent: str, session: "SessionInfo", home: str, pricer: Pricer) -> list[Priced]:
    """A kept session's rows as its priced replies (a warm report makes one per reply: the
    session's own values are read once)."""
    sid, title = str(session.id), session.title
    out = []
    for task_id, at, model, i, o, cr, w5, w1, rs, recorded, cost, project in rows:
        reply = Reply(agent, sid, task_id, at, model, Tokens(i, o, cr, w5, w1, rs), recorded, project, title, home)
        if at is None and recorded is None:  # priced at the time of asking: not kept
            cost = pricer.cost(model, reply.tokens, None)
        out.append(Priced(reply, cost))
    return out


class KeptUsage:
    """The usage file of one store: its sessions' rows read whole at open, written at `save`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept: dict[str, tuple[str, bytes]] = {}
        self.starts: list[date] | None = None
        self._conn: sqlite3.Connection | None = None

    def open(self) -> None:
        """Read the kept rows; a file of other code or another price table is emptied."""
        conn = sqlite3.connect(str(self.path), timeout=5.0, isolation_level=None)
        self._conn = conn
        conn.executescript(SCHEMA)
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        if meta.get("layout") != LAYOUT or meta.get("code") != _code() or meta.get("prices") != table_version():
            return
        self.kept = {sid: (key, rows) for sid, key, rows in conn.execute("SELECT id, files_key, rows FROM sessions")}
        if "price_dates" in meta:
            self.starts = [date.fromisoformat(d) for d in json.loads(meta["price_dates"])]

    def save(self, fresh: dict[str, tuple[str, list[Row]]], listed: set[str] | None, starts: list[date] | None) -> None:
        """Keep the rows read now (`fresh`: session → (files key, rows)) and drop the sessions
        no longer `listed` (None: drop none), in one transaction."""
        conn = self._conn
        if conn is None:
            return
        gone = [sid for sid in self.kept if sid not in listed] if listed is not None else []
        stale = not self.kept and bool(conn.execute("SELECT 1 FROM sessions LIMIT 1").fetchone())
        if not fresh and not gone and not stale and (starts is None or self.starts is not None):
            return
        written = {sid: (key, pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)) for sid, (key, rows) in fresh.items()}
        conn.execute("BEGIN IMMEDIATE")
        try:
            if stale:  # written by other code or for another price table
                conn.execute("DELETE FROM sessions")
            conn.executemany("DELETE FROM sessions WHERE id = ?", [(sid,) for sid in gone])
            conn.executemany("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?)",
                             [(sid, key, blob) for sid, (key, blob) in written.items()])
            meta = [("layout", LAYOUT), ("code", _code()), ("prices", table_version())]
            if starts is not None:
                meta.append(("price_dates", json.dumps([d.isoformat() for d in starts])))
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        # What the file holds now (a later save in this run, of the sessions read after these,
        # takes them for its own, not for rows of other code to empty).
        for sid in gone:
            del self.kept[sid]
        self.kept.update(written)
        if starts is not None:
            self.starts = starts

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _kept_usage(source: "MemorySource") -> KeptUsage | None:
    from memtui.core.sources.part_store import index_path

    path = index_path(Path(source.path), source.kind, folder_name=FOLDER)
    if path is None:
        return None
    kept = KeptUsage(path)
    try:
        kept.open()
    except (sqlite3.Error, OSError, ValueError, pickle.UnpicklingError):
        kept.close()
        return None
    return kept


@dataclass(frozen=True)
class Usage:
    """What `kept_priced` found: the priced replies, the table that priced them, and where
    each session's replies came from."""

    items: list[Priced]
    read: int
    """Sessions whose replies were read through the source (none kept, or their files changed)."""
    kept: int
    """Sessions whose replies came from the usage file."""
    table: PriceTable
    """The price table that priced them, with its date."""


class _Reader:
    """Sessions' priced replies, each from the usage file while its files are unchanged, else
    through the source (and kept at `save`)."""

    def __init__(self, source: "MemorySource", pricer: Pricer | None) -> None:
        self.source = source
        self.pricer = pricer or shared_pricer()
        self.kept = _kept_usage(source)
        self.fresh: dict[str, tuple[str, list[Row]]] = {}
        self.read = self.served = 0

    def items(self, session: "SessionInfo | None") -> list[Priced]:
        """The session's replies, priced (None: the tasks of no session, never kept)."""
        if session is None:
            return price(session_replies(self.source, None), self.pricer)
        sid, key = str(session.id), session.files_key
        known = self.kept.kept.get(sid) if self.kept is not None and key else None
        if known is not None and known[0] == key:
            try:
                rows = pickle.loads(known[1])
            except Exception:  # a damaged row: read the session again
                rows = None
            if rows is not None:
                self.served += 1
                return _items(rows, self.source.kind, session, str(self.source.path), self.pricer)
        priced = price(session_replies(self.source, session), self.pricer)
        self.read += 1
        if key:
            self.fresh[sid] = (key, [_row(item) for item in priced])
            if len(self.fresh) >= SAVE_EVERY:  # what is read stays read, whatever ends this run
                self.save(None)
        return priced

    def table(self, today: date | None) -> PriceTable:
        return price_table(today, self.kept.starts if self.kept is not None else None)

    def save(self, listed: set[str] | None) -> None:
        """Keep what was read (`listed`: every session the source lists now, the others dropped;
        None: some of them, none dropped)."""
        if self.kept is None:
            return
        try:
            self.kept.save(self.fresh, listed, price_start_dates() if self.kept.starts is None else None)
        except (sqlite3.Error, OSError):
            return  # done without: the next run reads those sessions again
        self.fresh = {}

    def close(self) -> None:
        if self.kept is not None:
            self.kept.close()


def kept_priced(source: "MemorySource", pricer: Pricer | None = None, today: date | None = None) -> Usage:
    """Every reply `source` recorded, priced, in the order `price(source_replies(source))` gives
    them and equal to them: a session whose files are unchanged since a run kept its rows is
    read from memtui's cache folder, any other through the source (and kept)."""
    reader = _Reader(source, pricer)
    try:
        items: list[Priced] = []
        listed: set[str] = set()
        for session in source.sessions():
            listed.add(str(session.id))
            items.extend(reader.items(session))
        items.extend(reader.items(None))
        table = reader.table(today)
        reader.save(listed)
    finally:
        reader.close()
    return Usage(items, reader.read, reader.served, table)


def session_costs(source: "MemorySource", sessions: "Iterable[SessionInfo | None]", pricer: Pricer | None = None,
                  cancelled: "Callable[[], bool]" = lambda: False) -> "dict[Id | None, Group]":
    """Each session's tokens and cost (the sessions pane's Cost column, an export's index);
    None: the tasks of no session. Its replies are read as `kept_priced` reads them (and kept)."""
    reader = _Reader(source, pricer)
    out: dict = {}
    try:
        for session in sessions:
            if cancelled():
                break
            group = Group(ORPHANS if session is None else str(session.id))
            group.extend(reader.items(session))
            out[None if session is None else session.id] = group
        reader.save(None)
    finally:
        reader.close()
    return out


__all__ = ["FOLDER", "KeptUsage", "ORPHANS", "Usage", "kept_priced", "session_costs"]
