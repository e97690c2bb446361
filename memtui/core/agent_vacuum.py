"""VACUUM of another agent's SQLite file (OpenCode's opencode.db, Codex's state_*, logs_*,
thread_history_* … .sqlite, the Cline CLI's sessions.db), only while the agent is not running.

The agent owns the file, so it is never rewritten in place: memtui takes the file's lock, makes
a compact copy beside it (`VACUUM INTO`), checks the copy (integrity check, the same rows in
every table, the same journal mode) and renames it over the file, all under that lock. Two
checks come first and either one refuses, changing nothing:

- by process: no process of the agent runs (its name or script, e.g. `opencode`, `codex`,
  `node …/codex.js`); an agent that is running may write at any moment, or hold the file open;
- by lock: the file's exclusive lock is taken at once (no wait). Another connection to a WAL
  database holds the lock for as long as it is open, so a program memtui does not know by name
  is caught too.

While the lock is held, a WAL database's log is folded in and the file switched to a rollback
journal (so that closing memtui's connection after the swap cannot delete a log of the new
file's); the copy is switched back to WAL before the swap. A kill at any moment leaves the
agent's file whole: before the rename, the old file (at worst in rollback-journal mode) and a
leftover copy whose name says the file was in WAL mode — the next vacuum removes it and puts
the file back in WAL mode; after the rename, the new file. memtui.core.vacuum has memtui's own store's.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

from memtui.core.atomic import check_writes_allowed, file_mode, fsync_dir
from memtui.core.errors import MemtuiError
from memtui.core.vacuum import VacuumResult

LAUNCHERS = {"node", "nodejs", "bun", "deno", "python", "python3", "sh", "bash"}
COPY_SUFFIX = ".memtui-vacuum"


def agent_processes(names: tuple[str, ...] | frozenset[str]) -> list[tuple[int, str]]:
    """(pid, command) of each process of the agent named `names` (its executable, or the script
    a launcher such as node runs: `opencode`, `node …/bin/codex.js`); this process left out."""
    import psutil

    wanted = {n.lower() for n in names}
    found = []
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        try:
            pid, name, argv = proc.info["pid"], proc.info["name"] or "", proc.info["cmdline"] or []
        except (psutil.Error, OSError):
            continue
        if pid == os.getpid():
            continue
        stems = [_stem(name)] + [_stem(a) for a in argv[:1]]
        if argv and _stem(argv[0]) in LAUNCHERS:  # the script it runs: its first argument not an option
            stems += [_stem(a) for a in argv[1:] if not a.startswith("-")][:1]
        if wanted.intersection(stems):
            found.append((pid, " ".join(argv) or name))
    return found


def _stem(text: str) -> str:
    base = os.path.basename(text).lower()
    for ext in (".js", ".mjs", ".cjs", ".exe", ".py"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def vacuum_agent_file(path: Path, agent: str, processes: tuple[str, ...] | frozenset[str]) -> VacuumResult:
    """VACUUM the agent's SQLite file `path` into a copy and swap it in (module docstring).
    `agent` names the agent in messages; `processes` are its process names. MemtuiError, with
    the file unchanged, when the agent runs, another process has the file open or the copy is
    not the same database."""
    path = Path(path)
    check_writes_allowed(path)
    running = agent_processes(processes) if processes else []
    if running:
        pid, command = running[0]
        raise MemtuiError(f"{agent} is running (pid {pid}: {command[:80]}): close it first; {path} is unchanged")
    started = time.monotonic()
    before_bytes = path.stat().st_size
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=rw", uri=True, timeout=0, isolation_level=None)
    mode, wal, swapped, was_wal, locked = "", False, False, False, False
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        try:
            conn.execute("BEGIN EXCLUSIVE")
            conn.execute("COMMIT")
        except sqlite3.OperationalError:
            raise MemtuiError(f"another process has {path} open (it holds the database's lock): close {agent}"
                              f" and whatever else reads it; the file is unchanged") from None
        locked = True
        left = _remove_copy(path)  # a killed vacuum's copy, once this one holds the lock (not another's at work)
        was_wal = left == "wal"
        if left is not None:
            _drop_dead_journal(path)
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0].lower()
        free_before = conn.execute("PRAGMA freelist_count").fetchone()[0]
        # The copy's name says the file was in WAL mode, before the mode is switched: a vacuum
        # killed in between leaves it, and the next one puts the file back in WAL mode.
        wal = mode == "wal" or (mode == "delete" and was_wal)
        copy = path.with_name(f".{path.name}{'.wal' if wal else ''}{COPY_SUFFIX}")
        os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # VACUUM INTO fills an empty file
        fsync_dir(path.parent)
        if mode == "wal" and conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0].lower() != "delete":
            raise MemtuiError(f"{path}: its write-ahead log could not be folded in; the file is unchanged")
        rows = _row_counts(conn)
        conn.execute("VACUUM INTO ?", (str(copy),))
        _check_copy(copy, rows, "wal" if wal else mode, path)
        kept = file_mode(path)
        if kept is not None:
            os.chmod(copy, kept)
        with open(copy, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(copy, path)
        swapped = True
        fsync_dir(path.parent)
    except BaseException:
        if locked and not swapped:  # the copy is this vacuum's only while it holds the lock
            _remove_copy(path)
            if wal:  # leave the agent's file in the mode it had
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                except sqlite3.Error:
                    pass
        raise
    finally:
        conn.close()
    after = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1", uri=True)
    try:
        free_after = after.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        after.close()
    return VacuumResult("vacuum", before_bytes, path.stat().st_size, free_before, free_after, 0,
                        time.monotonic() - started, {"path": str(path), "journal_mode": mode})


def _row_counts(conn: sqlite3.Connection) -> dict[str, int]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                         " AND name NOT LIKE 'sqlite_%'")]
    return {n: conn.execute(f'SELECT COUNT(*) FROM "{n.replace(chr(34), chr(34) * 2)}"').fetchone()[0] for n in names}


def _check_copy(copy: Path, rows: dict[str, int], mode: str, path: Path) -> None:
    """The copy is a sound database with the same rows per table, in the original's journal mode."""
    conn = sqlite3.connect(f"file:{quote(str(copy.resolve()))}?mode=rw", uri=True, isolation_level=None)
    try:
        if conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise MemtuiError(f"{path}: the vacuumed copy failed SQLite's integrity check; the file is unchanged")
        if _row_counts(conn) != rows:
            raise MemtuiError(f"{path}: the vacuumed copy does not hold the same rows; the file is unchanged")
        if mode == "wal" and conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise MemtuiError(f"{path}: the vacuumed copy could not be put in WAL mode; the file is unchanged")
    finally:
        conn.close()  # the last connection: its -wal and -shm go with it


def _remove_copy(path: Path) -> str | None:
    """Remove a copy a killed vacuum left beside `path` (and its side files): None when there
    was none, else the journal mode that vacuum had found the file in ("wal" or "")."""
    left = None
    for marker in ("", ".wal"):
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(path.with_name(f".{path.name}{marker}{COPY_SUFFIX}{suffix}"))
            except FileNotFoundError:
                continue
            if not suffix:
                left = "wal" if marker else ""
    return left


JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def _drop_dead_journal(path: Path) -> None:
    """The rollback journal a killed vacuum's connection left beside `path` (in exclusive
    locking mode SQLite zeroes a journal's header rather than deleting it). One without the
    journal magic is never replayed (it is not hot), so removing it, under the database's
    exclusive lock, loses nothing; one with it is left for SQLite."""
    journal = path.with_name(path.name + "-journal")
    try:
        with open(journal, "rb") as handle:
            head = handle.read(len(JOURNAL_MAGIC))
    except FileNotFoundError:
        return
    if head != JOURNAL_MAGIC:
        os.unlink(journal)
