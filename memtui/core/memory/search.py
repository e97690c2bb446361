"""Full-text search over memory documents and the store (or an agent's own sessions, see
search_sessions): files line by line, task titles and summaries, messages, step arguments, results.

The index is its own SQLite file, beside the store (`.agent/.memtui/search.db`) or, for an
agent's own sessions, in memtui's cache folder (memtui.core.memory.search_location); agent.db
is only ever read. It holds each record once in an FTS5
`unicode61` table indexed by word without positions, and the vocabulary of indexed words with
a trigram index, so that a term still matches as a substring (memtui.core.memory.search_plan).
Files are re-indexed when their size or mtime changes; when agent.db (or its WAL) changed, the
tasks whose signature changed. One refresh is one transaction: an interrupted one (kill -9)
leaves SQLite's journal, which the next open rolls back, so the next refresh redoes it; a
damaged index file is started again.

A store whose server finds its records itself (the team store on PostgreSQL) keeps none of them
here: only its memory documents are indexed, its records come from memtui.core.memory.search_server.

Hits are read out a page at a time by memtui.core.memory.search_query, each kind from a
rowid band of its own (ranking tens of thousands of matches by relevance would take longer than
a keystroke).
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from itertools import count
from operator import itemgetter
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from memtui.core.errors import SearchIndexError, StoreLocked
from memtui.core.memory.discover import discover_documents
from memtui.core.memory.search_location import INDEX_NAME, PRIVATE, UNSAVED, default_index_path
from memtui.core.memory.search_file import is_busy, is_damaged, open_index
from memtui.core.memory.search_plan import TOKENIZER, SearchHit, excerpt, given_up_when, query_terms
from memtui.core.memory.search_query import KINDS, Position, SearchPage, band, search_page
from memtui.core.memory.search_records import MAX_FIELD_CHARS, SearchRecord, collector_paused, file_records, split_older
from memtui.core.memory.search_server import combined_page
from memtui.core.memory.search_sessions import PART, records_reader
from memtui.core.memory_source import MemorySource
from memtui.core.record_tables import RecordSearch

__all__ = ["INDEX_NAME", "KINDS", "PRIVATE", "MAX_FIELD_CHARS", "SearchHit", "SearchIndex", "SearchPage", "SearchRecord",
           "default_index_path", "excerpt", "query_terms", "search_workspace"]

BUSY_TIMEOUT = 5.0
"""Seconds a write of the index waits for another process's refresh of it to end."""
WHOLE_VOCABULARY_ROWS = 5_000
"""Records added by one refresh from which its new words are taken from the whole word index
(a scan of every term, ~0.2 s on a 430 MiB index) rather than by tokenising their text again
in a scratch index (~0.15 s per 5,000 records; 11 s for a heavy home's first build)."""

T = TypeVar("T")
Progress = Callable[[int, int, str], None]
"""Told (done, to do, what they are) as a refresh indexes a store's sessions or tasks."""


class SearchIndex:
    """The search index of one workspace (and its store, if any)."""

    def __init__(self, root: Path, store: MemorySource | None = None, path: Path | str | None = None) -> None:
        self.root = Path(root).resolve()
        self.store = store
        self.path = str(path) if path is not None else default_index_path(self.root, store)
        self.conn = self._connect()

    def close(self) -> None:
        self.conn.close()

    def _busy(self, exc: sqlite3.Error) -> Exception:
        """StoreLocked for an index another process is writing (waited BUSY_TIMEOUT), else `exc`."""
        if not is_busy(exc):
            return exc
        return StoreLocked(f"the search index {self.path} is being updated by another memtui process;"
                           " try again when it is done")

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- keeping it current -----------------------------------------------------------------

    def refresh(self, cancelled: Callable[[], bool] = lambda: False, progress: Progress | None = None) -> None:
        """Re-index changed, new and removed documents, and the store if it changed. A
        cancelled refresh keeps what it indexed (the next one goes on from there). `progress`
        is told (done, to do, what they are: "sessions", "tasks") as the store's changed
        sessions or tasks are indexed."""
        self._undamaged(lambda: self._refresh(cancelled, progress), cancelled)

    def _undamaged(self, run: Callable[[], T], cancelled: Callable[[], bool] | None = None) -> T:
        """`run()`; if it finds the index file damaged, the index is built again (it is only a
        cache) and `run()` is run again."""
        try:
            return run()
        except sqlite3.DatabaseError as exc:
            if self.path in UNSAVED or not is_damaged(exc):
                raise
        self.conn.close()
        self.conn = self._started_again()
        self._refresh(cancelled or (lambda: False), None)
        return run()

    def _refresh(self, cancelled: Callable[[], bool], progress: Progress | None) -> None:
        self._added: list[tuple[int, int]] = []
        self._edges: dict[str, tuple[int, int]] = {}  # (lowest, highest) rowid of each kind, as read or written
        try:
            with collector_paused(), self.conn:
                self.conn.execute("BEGIN")
                self._refresh_files(cancelled)
                if self.store is not None and not cancelled() and self._server() is None:
                    self._refresh_store(cancelled, progress)
                self._learn_words()
        except sqlite3.OperationalError as exc:
            raise self._busy(exc) from None

    def _refresh_files(self, cancelled: Callable[[], bool]) -> None:
        docs = discover_documents(self.root)
        known = {rel: (size, mtime) for rel, size, mtime in self.conn.execute("SELECT rel, size, mtime_ns FROM files")}
        current = {}
        for doc in docs:
            try:
                current[doc.rel] = (doc, os.stat(doc.path).st_mtime_ns)
            except OSError:
                continue
        for rel in set(known) - set(current):
            self._drop("file", rel)
        for rel, (doc, mtime_ns) in current.items():
            if cancelled():
                return
            if known.get(rel) == (doc.size, mtime_ns):
                continue
            self._drop("file", rel)
            self._insert("file", ((r.file, f"{r.line}:{r.file}", r.text) for r in file_records(doc)), up=True)
            self.conn.execute("INSERT INTO files(rel, size, mtime_ns) VALUES (?, ?, ?)", (rel, doc.size, mtime_ns))

    def _refresh_store(self, cancelled: Callable[[], bool], progress: Progress | None) -> None:
        """Re-index only the tasks (of an agent's own home: sessions) whose signature changed since
        the last refresh (a running agent touches a few; a full build of a large store takes seconds)."""
        reader = records_reader(self.store)
        # Asked before the sessions are listed: a session written in between makes the next
        # refresh list them again, never keeps it unindexed.
        quick = reader.quick_signature()
        meta = dict(self.conn.execute("SELECT key, value FROM meta WHERE key IN ('store', 'store_key')"))
        if quick is not None and "store" in meta and meta.get("store_key") == quick \
                and reader.quick_signature(again=True) == quick:
            return  # nothing the sessions are read from changed: none is listed
        if "store_key" in meta:  # a cancelled refresh keeps none
            self.conn.execute("DELETE FROM meta WHERE key = 'store_key'")
        signature = reader.signature()
        if meta.get("store") == signature:
            self._keep_quick(quick)
            return
        with reader.reading():
            rows = reader.rows()
            known: dict[str, str] = {}
            parts: dict[str, dict[str, str]] = {}  # session key → its tasks' keys and signatures
            for key, sig in self.conn.execute("SELECT task, sig FROM tasks"):
                session, part, _task = key.partition(PART)
                if part:
                    parts.setdefault(session, {})[key] = sig
                else:
                    known[key] = sig
            changed = [t for t in rows if known.get(t.key) != t.signature]
            for key in set(known) - {t.key for t in rows}:
                for gone in (key, *parts.get(key, ())):
                    self._drop("task", gone)
                    self.conn.execute("DELETE FROM tasks WHERE task = ?", (gone,))
            older, newer = split_older(changed, known)
            # Tasks older than every indexed one (all of them, the first time) go after the indexed
            # records, newest first, each row above the one before: FTS5 writes its pending index out
            # when a rowid is lower than the last, so the steps go in first and the titles and messages
            # of the tasks read so far after them (also when cancelled: a task is indexed whole or not
            # at all). Other tasks (sessions) go in before the indexed records, a batch below the last.
            later: dict[str, list[tuple]] = {"task": [], "message": []}
            done = 0
            if progress is not None:
                progress(done, len(changed), reader.unit)
            for up, tasks in ((True, older[::-1]), (False, newer)):
                for batch, records, kept in reader.batches(tasks, known, parts):
                    if cancelled():
                        break
                    for task in batch:
                        if task.key in known and task.key not in parts:  # indexed whole (a store's task)
                            self._drop("task", task.key)
                    indexed = {key for task in batch for key in parts.get(task.key, ())}
                    for key, sig in kept.items():  # a session's tasks: those that changed
                        if key in indexed:
                            self._drop("task", key)
                        if sig is None:
                            self.conn.execute("DELETE FROM tasks WHERE task = ?", (key,))
                    self.conn.executemany("INSERT OR REPLACE INTO tasks(task, sig) VALUES (?, ?)",
                                          ((key, sig) for key, sig in kept.items() if sig is not None))
                    for kind, kind_rows in records.items():
                        if up and kind in later:
                            later[kind].extend(kind_rows)
                        else:
                            self._insert(kind, kind_rows, up)
                    self.conn.executemany("INSERT OR REPLACE INTO tasks(task, sig) VALUES (?, ?)",
                                          ((t.key, t.signature) for t in batch))
                    if progress is not None:
                        done += len(batch)
                        progress(done, len(changed), reader.unit)
                for kind, kind_rows in later.items():
                    self._insert(kind, kind_rows, up=True)
                    kind_rows.clear()
                if cancelled():
                    return  # the transaction is still committed: what was indexed stays valid
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('store', ?)", (signature,))
        self._keep_quick(quick)

    def _keep_quick(self, quick: str | None) -> None:
        """Keep the quick signature the store's records were indexed as of (`_refresh_store`)."""
        if quick is not None:
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('store_key', ?)", (quick,))

    def _drop(self, owner: str, key: str) -> None:
        """Remove the records of one file (`owner` "file") or task ("task": all its kinds)."""
        for kind in (("file",) if owner == "file" else ("task", "message", "step")):
            span = self.conn.execute("SELECT first, last FROM spans WHERE owner = ?", (f"{kind}:{key}",)).fetchone()
            if span is not None:
                self.conn.execute("DELETE FROM records WHERE rowid BETWEEN ? AND ?", span)
                self.conn.execute("DELETE FROM spans WHERE owner = ?", (f"{kind}:{key}",))
                self._edges.pop(kind, None)
        if owner == "file":
            self.conn.execute("DELETE FROM files WHERE rel = ?", (key,))

    def _insert(self, kind: str, rows: Iterable[tuple], up: bool) -> None:
        """Add (owner key, owner, text) rows of one kind in the order they are read in
        (the lowest rowid first), above the kind's records (`up`) or below them, and note each
        owner's span (an owner's rows come one after another)."""
        rows = rows if isinstance(rows, list) else list(rows)
        if not rows:
            return
        low, high = self._edge(kind)
        start = high + 1 if up else low - len(rows)
        if not band(kind)[0] <= start <= start + len(rows) - 1 <= band(kind)[1]:
            raise sqlite3.DatabaseError(f"search index: the {kind} band is full")
        # FTS5 writes out its pending index whenever a rowid is lower than the one before:
        # rows go in in ascending order.
        self.conn.executemany("INSERT INTO records(rowid, owner, text) VALUES (?, ?, ?)",
                              zip(count(start), map(itemgetter(1), rows), map(itemgetter(2), rows)))
        end = start + len(rows) - 1
        self._edges[kind] = (min(low, start), max(high, end))
        spans, at = [], start
        for key, rows_of_key in Counter(map(itemgetter(0), rows)).items():  # in order
            spans.append((f"{kind}:{key}", at, at + rows_of_key - 1))
            at += rows_of_key
        self.conn.executemany("INSERT OR REPLACE INTO spans(owner, first, last) VALUES (?, ?, ?)", spans)
        self._added.append((start, end))

    def _edge(self, kind: str) -> tuple[int, int]:
        """The lowest and highest rowid of the kind's records; an empty band as if it held
        one record in its middle (files: just below its start), so that records go either
        way of it."""
        if kind not in self._edges:
            low, high = band(kind)
            lowest = self.conn.execute("SELECT rowid FROM records WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
                                       " LIMIT 1", (low, high)).fetchone()
            if lowest is None:
                middle = low - 1 if kind == "file" else (low + high) // 2
                self._edges[kind] = (middle + 1, middle)
            else:
                highest = self.conn.execute("SELECT rowid FROM records WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
                                            " DESC LIMIT 1", (low, high)).fetchone()
                self._edges[kind] = (lowest[0], highest[0])
        return self._edges[kind]

    def _learn_words(self) -> None:
        """Add the words of the records added by this refresh to the vocabulary: from the
        whole word index after a first build or when many records were added (a first build
        that was cancelled and goes on: the app's search as you type), else through a scratch
        index of the new text (which tokenises that text again: a few sessions that grew)."""
        if not self._added:
            return
        before = self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM terms").fetchone()[0]
        added = sum(last - first + 1 for first, last in self._added)
        if before == 0 or added >= WHOLE_VOCABULARY_ROWS:
            self.conn.execute("INSERT OR IGNORE INTO terms(term) SELECT term FROM records_v")
        else:
            self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.new_words USING fts5(text, "
                              f"tokenize='{TOKENIZER}', detail=none)")
            self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.new_words_v USING fts5vocab(temp, new_words, row)")
            for first, last in self._added:
                self.conn.execute("INSERT INTO temp.new_words(text) SELECT text FROM records"
                                  " WHERE rowid BETWEEN ? AND ?", (first, last))
            self.conn.execute("INSERT OR IGNORE INTO terms(term) SELECT term FROM temp.new_words_v")
            self.conn.execute("DELETE FROM temp.new_words")
        self.conn.execute("INSERT INTO terms_tri(rowid, term) SELECT id, term FROM terms WHERE id > ?", (before,))
        self._added = []

    # -- querying -----------------------------------------------------------------------------

    def search(self, query: str, limit: int | None = 200, kinds: Iterable[str] = KINDS) -> list[SearchHit]:
        """Records containing every term of `query` (quoted phrases kept together): files
        first in document order, then task titles, messages and steps, newest first (at most
        `limit`; None: every one). Case-insensitive; a term matches inside words too."""
        return self.page(query, limit, 0, kinds).hits

    def search_counted(self, query: str, shown: int, cap: int, kinds: Iterable[str] = KINDS,
                       cancelled: Callable[[], bool] | None = None) -> tuple[list[SearchHit], int]:
        """The first `shown` hits, and how many there are counted up to `cap` (at least len(hits)).
        Once `cancelled()`, it stops at once: ([], 0)."""
        page = self.page(query, shown, max(0, cap - shown), kinds, cancelled=cancelled)
        return page.hits, len(page.hits) + page.more

    def page(self, query: str, shown: int | None, cap: int, kinds: Iterable[str] = KINDS,
             after: Position | None = None, cancelled: Callable[[], bool] | None = None) -> SearchPage:
        """search_query.search_page: `shown` hits after `after`, the matches after them counted up
        to `cap`. Once `cancelled()`, it stops at once: an empty page."""
        def local(query: str, shown: int | None, cap: int, kinds: Iterable[str], after: Position | None) -> SearchPage:
            return self._undamaged(lambda: self._local_page(query, shown, cap, kinds, after, cancelled), cancelled)
        server = self._server()
        if server is not None:  # memory documents here, the store's records on its server
            return combined_page(local, server, query, shown, cap, kinds, after, cancelled)
        return local(query, shown, cap, kinds, after)

    def _local_page(self, query: str, shown: int | None, cap: int, kinds: Iterable[str], after: Position | None,
                    cancelled: Callable[[], bool] | None) -> SearchPage:
        with given_up_when(self.conn, cancelled):
            return search_page(self.conn, query, shown, cap, kinds, after)
        return SearchPage(after=after)

    def _server(self) -> RecordSearch | None:
        """The store's server, when it finds the store's records itself (memtui.core.memory.search_server)."""
        tables = self.store.record_tables() if self.store is not None else None
        return tables.searched_on_server() if tables is not None else None

    # -- setup --------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            return self._open(self.path)
        except sqlite3.DatabaseError as exc:
            # A damaged index, or one of an older layout, is only a cache: start it again —
            # but not one another process is writing (its refresh would fail on a deleted file).
            if self.path in UNSAVED or is_busy(exc):
                raise self._busy(exc) from None
            return self._started_again()

    def _started_again(self) -> sqlite3.Connection:
        """A new, empty index in place of a damaged one (or one of an older layout)."""
        try:
            for path in (self.path, self.path + "-journal"):
                Path(path).unlink(missing_ok=True)
        except OSError as exc:
            raise SearchIndexError(f"the search index {self.path} is damaged and cannot be removed"
                                   f" ({exc.strerror or exc}): remove it, it is rebuilt") from None
        return self._open(self.path)

    def _open(self, path: str) -> sqlite3.Connection:
        return open_index(path, BUSY_TIMEOUT)


def search_workspace(root: Path, query: str, store: MemorySource | None = None, limit: int = 200) -> list[SearchHit]:
    """Refresh the workspace's index and search it: the one call the CLI and UI make."""
    with SearchIndex(root, store) as index:
        index.refresh()
        return index.search(query, limit)
