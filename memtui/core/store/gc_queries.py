"""The store's side of lifecycle GC (memtui.core.gc): the facts a plan reads and the deletes a
pass makes, as methods of AgentStore with typed results.

GC decides — what is a root, which references keep a task live, what a task frees, in which
order blobs go; the store knows where each fact is kept in each schema (counters on the task
row from schema 3, how entries reference contents, packs from schema 7). A new schema changes
these methods, not GC.
"""

from __future__ import annotations

import json
from typing import Any, Callable, NamedTuple

# The submodule itself: `from memtui.core.store import packs` asks the package's lazy __getattr__,
# which loads agent_store, which imports this module (ImportError when this one is imported first).
import memtui.core.store.packs as packs
from memtui.core.store.dialect import Dialect
from memtui.core.store.schema import SUM_LEGACY_SQL, BlobColumns

BlobKey = int | bytes
"""How a store references a content: a blob id (schema 4 on) or its 32-byte hash (2–3)."""

EdgeRow = tuple[int, int, str]
"""(from task, to task, kind) of a reference. A plain tuple: the live-set walk reads one per edge."""


class RootRow(NamedTuple):
    """A task that is a root for one reason: "current" (of an open session), "running",
    "waiting" (for the user) or "pinned"."""

    task: int
    kind: str


TaskCounters = tuple[int, "int | None", str, "float | None", int, int, int, int, int, "str | None"]
"""A task and what GC would remove of it: (task, session, status, collected_at, steps, step
payload bytes, checkpoints, entries, bytes of the entries' inline (legacy) contents, title or
None unless asked for). A plain tuple, not a named one: a plan reads one per task, and naming
100,000 of them cost a tenth of `gc --dry-run`."""


class FreedBlob(NamedTuple):
    """A blob no live task keeps: its key, its delta base, its stored bytes and the task of the
    first entry that references it (None: no entry does)."""

    key: BlobKey
    base: BlobKey | None
    stored: int
    task: int | None


TaskMark = tuple[int, "int | None", str, str, int]
"""What the GC preview shows of a task besides its state: (task, session, title, status,
pinned). A plain tuple, as TaskCounters is."""


class SessionMark(NamedTuple):
    """What the GC preview shows of a session."""

    session: int
    title: str
    status: str


class HeavyRows(NamedTuple):
    """Rows of the tables GC empties."""

    steps: int
    checkpoints: int
    entries: int
    blobs: int


class RootState(NamedTuple):
    """Whether a task is a root now (read inside GC's transaction for the task)."""

    status: str
    pinned: bool
    current: bool  # the current task of an open session
    collected: bool = False  # another pass collected it since this one's plan


class Referrer(NamedTuple):
    """A task referencing another through a live edge, with whether it is a root now."""

    task: int
    status: str
    pinned: bool
    current: bool


class CollectedRows(NamedTuple):
    """What collecting one task removed."""

    entries: int
    checkpoints: int
    steps: int
    payload_bytes: int  # step payloads and inline contents (the task's counters)
    contents: frozenset  # the blob keys its entries referenced: candidates for the sweep


class DeletedBlob(NamedTuple):
    key: BlobKey
    base: BlobKey | None
    stored: int


Hook = Callable[[str, int], None]

# The recursive live set in one statement: the same roots and edges as memtui.core.gc's walk.
OPEN_STATUSES = "('open', 'unknown')"
"""The session statuses whose current task is a root: open, and unknown — a transcript pushed to
a team store from another agent's home records no status, so memtui cannot tell it finished."""

LIVE_SET_SQL = f"""
WITH RECURSIVE
  roots(id) AS (
    SELECT current_task_id FROM session WHERE status IN {OPEN_STATUSES} AND current_task_id IS NOT NULL
    UNION
    SELECT id FROM task WHERE status IN ('running', 'waiting_user')
    UNION
    SELECT id FROM task WHERE pinned = TRUE
  ),
  live(id) AS (
    SELECT id FROM roots
    UNION
    SELECT r.to_task FROM task_ref r JOIN live ON r.from_task = live.id
    WHERE r.kind IN ('handoff', 'depends')
  )
SELECT live.id FROM live JOIN task t ON t.id = live.id
"""

# Blobs the live tasks keep: their entries' contents and, transitively, delta bases. `{key}`,
# `{before}`, `{after}`: how the store's schema references a blob (blob_columns).
_KEEP_CTE = """
  live(id) AS (SELECT value FROM json_each(?)),
  keep(h) AS (
    SELECT e.{before} FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id
     WHERE c.task_id IN (SELECT id FROM live) AND e.{before} IS NOT NULL
    UNION
    SELECT e.{after} FROM checkpoint c JOIN checkpoint_entry e ON e.checkpoint_id = c.id
     WHERE c.task_id IN (SELECT id FROM live) AND e.{after} IS NOT NULL
    UNION
    SELECT b.base FROM keep JOIN blob b ON b.{key} = keep.h WHERE b.base IS NOT NULL
  )
"""


class GcQueries:
    """GC's reads and writes. Needs `_sql(sql, params)`, `execute(sql, params)`, `now()`,
    `schema_version` and `blob_cols` (as AgentStore has them)."""

    schema_version: int
    blob_cols: BlobColumns
    _dialect: Dialect

    def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        raise NotImplementedError

    def execute(self, sql: str, params: tuple | list = ()) -> Any:
        raise NotImplementedError

    def now(self) -> float:
        raise NotImplementedError

    # ------------------------------------------------------------------ the live set
    def root_rows(self) -> list[RootRow]:
        """Every reason each root task is one: current tasks of open sessions first, then
        running and waiting tasks, then pinned ones (covering-index lookups only)."""
        rows = [RootRow(task, "current") for (task,) in self._sql(
            "SELECT s.current_task_id FROM session s JOIN task t ON t.id = s.current_task_id"
            f" WHERE s.status IN {OPEN_STATUSES}")]
        rows += [RootRow(task, "running" if status == "running" else "waiting") for task, status in self._sql(
            "SELECT id, status FROM task WHERE status IN ('running', 'waiting_user')")]
        rows += [RootRow(task, "pinned") for (task,) in self._sql("SELECT id FROM task WHERE pinned = TRUE")]
        return rows

    def references_from(self, tasks: list[int], kinds: tuple[str, ...]) -> list[EdgeRow]:
        """The references of these kinds from these tasks, by from and to (one indexed query:
        the edges of one level of the live-set walk)."""
        marks = ",".join("?" * len(kinds))
        return self._sql("SELECT from_task, to_task, kind FROM task_ref"
                         f" WHERE from_task IN (SELECT value FROM json_each(?)) AND kind IN ({marks})"
                         " ORDER BY from_task, to_task", (json.dumps(tasks), *kinds))

    def references_of_kinds(self, kinds: tuple[str, ...]) -> list[EdgeRow]:
        """Every reference of these kinds, by from and to."""
        marks = ",".join("?" * len(kinds))
        return self._sql(f"SELECT from_task, to_task, kind FROM task_ref WHERE kind IN ({marks})"
                         " ORDER BY from_task, to_task", kinds)

    def reference_rows(self) -> list[EdgeRow]:
        """Every reference, in the order they were recorded."""
        return self._sql("SELECT from_task, to_task, kind FROM task_ref ORDER BY id")

    def live_task_ids(self) -> set[int]:
        """The live set from one recursive statement (no reasons): GC's yardstick."""
        return {r[0] for r in self._sql(LIVE_SET_SQL)}

    def current_task_sessions(self) -> dict[int, int]:
        """{task: session} for every session's current task, open or closed."""
        return dict(self._sql("SELECT current_task_id, id FROM session WHERE current_task_id IS NOT NULL"))

    # ------------------------------------------------------------------ what a pass frees
    def task_counters(self, titles: bool = False) -> list[TaskCounters]:
        """Every task with what GC would remove of it, in id order (with its title if asked).
        From the counters on the task row (schema 3) in one query; an older store browsed
        read-only is counted by grouped scans."""
        title = "title" if titles else "NULL"
        if self.schema_version >= 3:
            return self._sql(f"SELECT id, session_id, status, collected_at, step_count, step_bytes,"
                             f" checkpoint_count, entry_count, legacy_bytes, {title} FROM task ORDER BY id")
        nothing = (0, 0)
        steps = {t: (n, b) for t, n, b in self._sql(
            "SELECT task_id, COUNT(*), COALESCE(SUM(payload_bytes), 0) FROM step GROUP BY task_id")}
        cps = dict(self._sql("SELECT task_id, COUNT(*) FROM checkpoint GROUP BY task_id"))
        entries = {t: (n, b) for t, n, b in self._sql(
            f"SELECT c.task_id, COUNT(*), {SUM_LEGACY_SQL} FROM checkpoint c"
            " JOIN checkpoint_entry e ON e.checkpoint_id = c.id GROUP BY c.task_id")}
        return [(t, s, st, c, *steps.get(t, nothing), cps.get(t, 0), *entries.get(t, nothing), tt)
                for t, s, st, c, tt in self._sql(f"SELECT id, session_id, status, collected_at, {title}"
                                                 " FROM task ORDER BY id")]

    def _keep_cte(self) -> str:
        return _KEEP_CTE.format(**self.blob_cols._asdict())

    def blobs_freed_without(self, live: list[int]) -> list[FreedBlob]:
        """The blobs that the `live` tasks do not keep — neither their entries' contents nor,
        transitively, a delta base of those — each with the task of the first entry referencing
        it (one index seek per side). None on a store without blobs (schema 1)."""
        key, before, after = self.blob_cols
        if key is None:
            return []
        rows = self._sql(
            f"""WITH RECURSIVE {self._keep_cte()},
              freed(hash, base, stored, first) AS (
                SELECT b.{key}, b.base, b.stored,
                       (SELECT MIN(id) FROM (SELECT MIN(e.id) AS id FROM checkpoint_entry e WHERE e.{before} = b.{key}
                                             UNION ALL
                                             SELECT MIN(e.id) FROM checkpoint_entry e WHERE e.{after} = b.{key}) AS u)
                FROM blob b WHERE b.{key} NOT IN (SELECT h FROM keep))
            SELECT f.hash, f.base, f.stored,
                   (SELECT c.task_id FROM checkpoint_entry e JOIN checkpoint c ON c.id = e.checkpoint_id
                     WHERE e.id = f.first)
            FROM freed f""", (json.dumps(live),))
        return list(map(FreedBlob._make, rows))

    def blob_bytes_freed_without(self, live: list[int]) -> int:
        """The stored bytes of the blobs `blobs_freed_without(live)` lists, from one query."""
        key = self.blob_cols.key
        if key is None:
            return 0
        return self._sql(f"WITH RECURSIVE {self._keep_cte()} SELECT COALESCE(SUM(b.stored), 0) FROM blob b"
                         f" WHERE b.{key} NOT IN (SELECT h FROM keep)", (json.dumps(live),))[0][0]

    def stored_blob_bytes(self) -> int:
        """The stored bytes of every blob (0 on a store without blobs)."""
        if self.blob_cols.key is None:
            return 0
        return self._sql("SELECT COALESCE(SUM(stored), 0) FROM blob")[0][0]

    # ------------------------------------------------------------------ the preview
    def task_marks(self) -> list[TaskMark]:
        """Every task's session, title, status and pin, in id order."""
        return self._sql("SELECT id, session_id, title, status, pinned FROM task ORDER BY id")

    def session_marks(self) -> list[SessionMark]:
        """Every session's title and status, newest activity first."""
        return list(map(SessionMark._make, self._sql(
            "SELECT id, title, status FROM session ORDER BY updated_at DESC, id DESC")))

    def heavy_rows(self) -> HeavyRows:
        """Rows of the tables GC empties: steps, checkpoints, entries, blobs."""
        blobs = "(SELECT COUNT(*) FROM blob)" if self.blob_cols.key is not None else "0"
        return HeavyRows(*self._sql(f"SELECT (SELECT COUNT(*) FROM step), (SELECT COUNT(*) FROM checkpoint),"
                                    f" (SELECT COUNT(*) FROM checkpoint_entry), {blobs}")[0])

    # ------------------------------------------------------------------ a pass (on a writer)
    def root_state(self, task: int) -> RootState | None:
        """Whether `task` is a root now, and whether it was collected meanwhile (None: no such
        task, or another GC holds it: PostgreSQL's SKIP LOCKED)."""
        rows = self._sql(f"SELECT t.status, t.pinned, COALESCE(s.status IN {OPEN_STATUSES} AND s.current_task_id = t.id, FALSE),"
                         " t.collected_at IS NOT NULL FROM task t LEFT JOIN session s ON s.id = t.session_id WHERE t.id = ?" + self._dialect.skip_locked,
                         (task,))
        return RootState(rows[0][0], bool(rows[0][1]), bool(rows[0][2]), bool(rows[0][3])) if rows else None

    def referrers(self, task: int, kinds: tuple[str, ...]) -> list[Referrer]:
        """The tasks referencing `task` by these kinds, with whether each is a root now."""
        marks = ",".join("?" * len(kinds))
        return [Referrer(t, status, bool(pinned), bool(current)) for t, status, pinned, current in self._sql(
            f"SELECT p.id, p.status, p.pinned, COALESCE(s.status IN {OPEN_STATUSES} AND s.current_task_id = p.id, FALSE)"
            " FROM task_ref r JOIN task p ON p.id = r.from_task LEFT JOIN session s ON s.id = p.session_id"
            f" WHERE r.to_task = ? AND r.kind IN ({marks})", (task, *kinds))]

    def collect_task_rows(self, task: int, hook: Hook | None = None) -> CollectedRows:
        """Delete a task's entries, checkpoints and steps and mark it collected (its row,
        references, messages and questions stay). Call inside the caller's transaction: a
        writer's store is at the current schema, so the task's counters hold what goes.
        `hook(stage, task)` runs between the deletes (fault injection in tests)."""
        payload = self._sql("SELECT step_bytes + legacy_bytes FROM task WHERE id = ?", (task,))[0][0]
        key, before, after = self.blob_cols
        contents = frozenset(h for pair in self._sql(
            f"SELECT e.{before}, e.{after} FROM checkpoint c JOIN checkpoint_entry e"
            " ON e.checkpoint_id = c.id WHERE c.task_id = ?", (task,)) for h in pair if h is not None
        ) if key else frozenset()
        if hook:
            hook("entries", task)
        entries = self.execute("DELETE FROM checkpoint_entry WHERE checkpoint_id IN"
                               " (SELECT id FROM checkpoint WHERE task_id = ?)", (task,)).rowcount
        if hook:
            hook("checkpoints", task)
        checkpoints = self.execute("DELETE FROM checkpoint WHERE task_id = ?", (task,)).rowcount
        if hook:
            hook("steps", task)
        steps = self.execute("DELETE FROM step WHERE task_id = ?", (task,)).rowcount
        self.execute("UPDATE task SET collected_at = ?, step_count = 0, step_bytes = 0, checkpoint_count = 0,"
                     " entry_count = 0, entry_bytes = 0, legacy_bytes = 0 WHERE id = ?", (self.now(), task))
        if hook:
            hook("commit", task)
        return CollectedRows(entries, checkpoints, steps, payload, contents)

    def _unused(self) -> str:
        key, before, after = self.blob_cols
        return (f" AND NOT EXISTS (SELECT 1 FROM checkpoint_entry e WHERE e.{before} = blob.{key})"
                f" AND NOT EXISTS (SELECT 1 FROM checkpoint_entry e WHERE e.{after} = blob.{key})"
                f" AND NOT EXISTS (SELECT 1 FROM blob d WHERE d.base = blob.{key})")

    def unused_blobs(self) -> set[BlobKey]:
        """Blobs no entry references and no delta uses as its base (loose: left by an
        interrupted pass)."""
        key = self.blob_cols.key
        if key is None:
            return set()
        return {h for (h,) in self._sql(f"SELECT {key} FROM blob WHERE TRUE" + self._unused())}

    def blob_depths(self, keys: list[BlobKey]) -> dict[int, list[BlobKey]]:
        """{delta depth: keys} of these blobs (at most 500 a statement: bound parameters)."""
        key = self.blob_cols.key
        by_depth: dict[int, list[BlobKey]] = {}
        if key is None:
            return by_depth
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            for h, depth in self._sql(f"SELECT {key}, depth FROM blob WHERE {key} IN ({','.join('?' * len(chunk))})",
                                      chunk):
                by_depth.setdefault(depth, []).append(h)
        return by_depth

    def delete_unused_blobs(self, keys: list[BlobKey]) -> list[DeletedBlob]:
        """Delete those of these blobs that are still unused (checked in the statement), and
        repack the packs that held their frames (schema 7): inside the caller's transaction."""
        key = self.blob_cols.key
        if key is None or not keys:
            return []
        packed = self.schema_version >= 7
        gone = self.execute(f"DELETE FROM blob WHERE {key} IN ({','.join('?' * len(keys))})" + self._unused()
                            + f" RETURNING {key}, base, stored, {'pack' if packed else 'NULL'}", keys).fetchall()
        if packed:  # the packs that held their frames keep only the live ones
            packs.repack(self.execute, {p for *_, p in gone if p is not None}, self._dialect.lock_row)
        return [DeletedBlob(h, base, stored) for h, base, stored, _ in gone]

    def page_size(self) -> int:
        """Bytes of a database page."""
        return self._sql("PRAGMA page_size")[0][0]

    def freelist_pages(self) -> int:
        """Free pages in the database file (what a GC pass leaves there for reuse)."""
        return self._sql("PRAGMA freelist_count")[0][0]
