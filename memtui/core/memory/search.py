"""Full-text search over memory documents and the store: files line by line, task titles
and summaries, messages, step arguments and results.

The index is SQLite FTS5 (trigram tokenizer, so substrings, identifiers and CJK match) in
its own file, `<store dir>/.memtui/search.db` (normally `.agent/.memtui/search.db`); agent.db
is only ever read. Files are re-indexed when their size or mtime changes; when agent.db (or
its WAL) changed, the tasks whose signature (updated_at, step count, status, summary,
messages) changed are re-indexed. Where that folder is not writable, the index
is built in memory for the one search.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from memtui.core.memory.discover import MemoryDocument, discover_documents

SCHEMA_VERSION = "2"
INDEX_NAME = ".memtui/search.db"
MAX_FIELD_CHARS = 32_000  # per step argument/result: enough to find it, bounded in size
KINDS = ("file", "task", "step", "message")


@dataclass(frozen=True)
class SearchRecord:
    """One searchable unit. Files: one per line. Store records: `line` is 0, except steps,
    whose `line` is the step's sequence number in its task."""

    kind: str
    text: str
    file: str | None = None
    task: str | None = None
    step: str | None = None
    line: int = 0


@dataclass(frozen=True)
class SearchHit:
    kind: str
    text: str  # the matching line, or an excerpt around the match
    file: str | None = None
    task: str | None = None
    step: str | None = None
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        """{kind, file or task, line, text} (+ step for step hits)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.file is not None:
            out["file"] = self.file
        if self.task is not None:
            out["task"] = _id(self.task)
        if self.step is not None:
            out["step"] = _id(self.step)
        out["line"] = self.line
        out["text"] = self.text
        return out


def _id(value: str) -> int | str:
    """Ids are kept as text in the index; the native store's are integers in --json."""
    return int(value) if value.isdigit() else value


def file_records(doc: MemoryDocument) -> Iterator[SearchRecord]:
    """One record per non-blank line of a document (undecodable bytes replaced)."""
    text = doc.path.read_bytes().decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield SearchRecord("file", line, file=doc.rel, line=number)


def task_records(store, task, messages) -> Iterator[SearchRecord]:
    """The records of one task: its title and summary, its messages, its steps."""
    key = str(task.id)
    text = "\n".join(part for part in (task.title, task.summary) if part)
    if text:
        yield SearchRecord("task", text, task=key)
    for message in messages:
        # The store also keeps the summary as a message: one hit for it is enough.
        if message.content and message.content != task.summary:
            yield SearchRecord("message", message.content, task=key)
    for step in store.steps(task.id):
        parts = [step.tool, _clip(step.args), _clip(step.result), step.error or ""]
        yield SearchRecord("step", "\n".join(p for p in parts if p), task=key, step=str(step.id), line=step.seq)


def task_signature(task, messages) -> str:
    """Changes when anything indexed of the task changes (a step, a checkpoint, the
    status, the summary, GC, a message)."""
    digest = hashlib.sha256(f"{task.title}\0{task.summary}".encode()).hexdigest()[:16]
    return f"{task.updated_at}|{task.step_count}|{task.status}|{task.collected}|{len(messages)}|{digest}"


class SearchIndex:
    """An FTS5 index of one workspace (and its store, if any)."""

    def __init__(self, root: Path, store=None, path: Path | str | None = None) -> None:
        self.root = Path(root).resolve()
        self.store = store
        self.path = str(path) if path is not None else default_index_path(self.root, store)
        self.conn = self._connect()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- keeping it current -----------------------------------------------------------------

    def refresh(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """Re-index changed, new and removed documents, and the store if it changed."""
        with self.conn:
            self._refresh_files(cancelled)
            if self.store is not None and not cancelled():
                self._refresh_store(cancelled)

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
            self._drop_file(rel)
        for rel, (doc, mtime_ns) in current.items():
            if cancelled():
                return
            if known.get(rel) == (doc.size, mtime_ns):
                continue
            self._drop_file(rel)
            self._insert(file_records(doc))
            self.conn.execute("INSERT INTO files(rel, size, mtime_ns) VALUES (?, ?, ?)", (rel, doc.size, mtime_ns))

    def _refresh_store(self, cancelled: Callable[[], bool]) -> None:
        """Re-index only the tasks whose signature changed since the last refresh (a
        running agent touches a few tasks; a full rebuild of a large store takes seconds)."""
        signature = store_signature(self.store)
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'store'").fetchone()
        if row and row[0] == signature:
            return
        known = dict(self.conn.execute("SELECT task, sig FROM tasks"))
        present: set[str] = set()
        for task in _all_tasks(self.store):
            if cancelled():
                return  # the transaction is still committed: what was indexed stays valid
            key = str(task.id)
            if key in present:
                continue
            present.add(key)
            messages = self.store.messages(task.id)
            sig = task_signature(task, messages)
            if known.get(key) == sig:
                continue
            if key in known:
                self.conn.execute("DELETE FROM entries WHERE kind != 'file' AND task = ?", (key,))
            self._insert(task_records(self.store, task, messages))
            self.conn.execute("INSERT OR REPLACE INTO tasks(task, sig) VALUES (?, ?)", (key, sig))
        for key in set(known) - present:
            self.conn.execute("DELETE FROM entries WHERE kind != 'file' AND task = ?", (key,))
            self.conn.execute("DELETE FROM tasks WHERE task = ?", (key,))
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('store', ?)", (signature,))

    def _drop_file(self, rel: str) -> None:
        self.conn.execute("DELETE FROM entries WHERE kind = 'file' AND file = ?", (rel,))
        self.conn.execute("DELETE FROM files WHERE rel = ?", (rel,))

    def _insert(self, records: Iterable[SearchRecord]) -> None:
        self.conn.executemany(
            "INSERT INTO entries(kind, file, task, step, line, text) VALUES (?, ?, ?, ?, ?, ?)",
            ((r.kind, r.file, r.task, r.step, r.line, r.text) for r in records),
        )

    # -- querying -----------------------------------------------------------------------------

    def search(self, query: str, limit: int = 200, kinds: Iterable[str] = KINDS) -> list[SearchHit]:
        """Records containing every word of `query` (quoted phrases kept together),
        best matches first. Case-insensitive substring matching."""
        terms = query_terms(query)
        if not terms:
            return []
        kinds = tuple(kinds)
        marks = ",".join("?" * len(kinds))
        if all(len(t) >= 3 for t in terms):
            match = " ".join('"' + t.replace('"', '""') + '"' for t in terms)
            sql = (
                f"SELECT kind, file, task, step, line, text FROM entries WHERE entries MATCH ? "
                f"AND kind IN ({marks}) ORDER BY rank LIMIT ?"
            )
            rows = self.conn.execute(sql, (match, *kinds, limit)).fetchall()
        else:
            # The trigram tokenizer cannot match terms shorter than 3 characters: scan.
            where = " AND ".join("instr(lower(text), ?) > 0" for _ in terms)
            sql = (
                f"SELECT kind, file, task, step, line, text FROM entries WHERE {where} "
                f"AND kind IN ({marks}) LIMIT ?"
            )
            rows = self.conn.execute(sql, (*[t.lower() for t in terms], *kinds, limit)).fetchall()
        return [
            SearchHit(kind, excerpt(text, terms), file=file, task=task, step=step, line=line or 0)
            for kind, file, task, step, line, text in rows
        ]

    # -- setup --------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = self._open(self.path)
        except sqlite3.DatabaseError:
            # A damaged index is only a cache: start it again.
            if self.path != ":memory:":
                Path(self.path).unlink(missing_ok=True)
            conn = self._open(self.path)
        return conn

    def _open(self, path: str) -> sqlite3.Connection:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, check_same_thread=False)
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row and row[0] != SCHEMA_VERSION:
                conn.executescript("DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS tasks; DELETE FROM meta;")
            conn.executescript(
                """
                CREATE TABLE IF NOT EXISTS files(rel TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER);
                CREATE TABLE IF NOT EXISTS tasks(task TEXT PRIMARY KEY, sig TEXT);
                CREATE VIRTUAL TABLE IF NOT EXISTS entries USING fts5(
                    kind UNINDEXED, file UNINDEXED, task UNINDEXED, step UNINDEXED, line UNINDEXED,
                    text, tokenize = 'trigram');
                """
            )
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
            conn.commit()
        except BaseException:
            conn.close()
            raise
        return conn


def search_workspace(root: Path, query: str, store=None, limit: int = 200) -> list[SearchHit]:
    """Refresh the workspace's index and search it: the one call the CLI and UI make."""
    with SearchIndex(root, store) as index:
        index.refresh()
        return index.search(query, limit)


def default_index_path(root: Path, store=None) -> str:
    """The index file beside the store, or ":memory:" where that folder is not writable."""
    folder = Path(getattr(store, "db_path", root / ".agent" / "agent.db")).parent
    if not folder.is_dir():
        return ":memory:"
    target = folder / INDEX_NAME
    if target.exists():
        return str(target) if os.access(target, os.W_OK) and os.access(target.parent, os.W_OK) else ":memory:"
    probe = target.parent if target.parent.is_dir() else folder
    return str(target) if os.access(probe, os.W_OK) else ":memory:"


def store_signature(store) -> str:
    """Changes whenever the store's database (or its write-ahead log) is written."""
    db_path = getattr(store, "db_path", None)
    if db_path is None:
        return "no-file"
    parts = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(f"{db_path}{suffix}")
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def query_terms(query: str) -> list[str]:
    """Words of a query; "quoted phrases" stay one term."""
    return [a or b for a, b in re.findall(r'"([^"]+)"|(\S+)', query) if (a or b).strip()]


def excerpt(text: str, terms: list[str], width: int = 160) -> str:
    """One line around the first match of any term (whole text if it is short)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    positions = [p for p in (lower.find(t.lower()) for t in terms) if p >= 0]
    start = max(0, min(positions, default=0) - width // 3)
    end = min(len(flat), start + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def _clip(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text[:MAX_FIELD_CHARS]


def _all_tasks(store) -> list:
    tasks = []
    for session in store.sessions():
        tasks.extend(store.tasks(session.id))
    try:
        tasks.extend(store.tasks(None))  # orphans
    except (TypeError, ValueError, LookupError):
        pass
    return tasks
