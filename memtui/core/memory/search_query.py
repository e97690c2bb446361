"""Reading hits out of the search index (memtui.core.memory.search), a page at a time.

Hits come files first (in document order), then task titles and summaries, messages, steps,
each newest first: every kind is a rowid band of its own (BANDS, below), so a query reads only
the rows it returns, and a further page starts where the one before ended (`SearchPage.after`,
the last hit's kind and rowid): the thousandth hit costs what the first did.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from memtui.core.memory.search_plan import (Plan, SearchHit, excerpt, like_escape, owned_hit, plan_query, query_terms,
                                            term_finder)

KINDS = ("file", "task", "step", "message")
BAND = 1 << 40
BANDS = {"file": 1, "task": 2, "message": 3, "step": 4}
"""A record of kind K has a rowid in [BANDS[K] * BAND, (BANDS[K] + 1) * BAND). Files are
numbered up from the start of their band (document order). Tasks, messages and steps start in
the middle of theirs and are kept newest first: a task indexed later goes below the records
there are (a batch at a time), a task older than all of them (a first index) above. Every band
is then read in ascending rowid order, files in document order and the others newest first:
FTS5 seeks straight to the start of a band when reading up, while reading a band down walks
back over every row above it (~4 ms for an empty band at 5,000 tasks)."""

CONTENT_COLUMNS = {"rowid": "id", "owner": "c0", "text": "c1"}
"""FTS5 keeps the rows of `records` in `records_content(id, c0, c1…)`, the columns in order."""

Position = tuple[str, int]
"""Where a page ended: the last hit's kind and rowid (a further page starts after it)."""
AgentsPosition = tuple[int, Position]
"""Where a page of several stores' hits ended (memtui.core.memory.search_agents): the store's
place in their list, and where in its hits."""


def band(kind: str) -> tuple[int, int]:
    return BANDS[kind] * BAND, (BANDS[kind] + 1) * BAND - 1


@dataclass
class SearchPage:
    hits: list[SearchHit] = field(default_factory=list)
    more: int = 0
    """Matches after the page's last hit, counted up to the cap asked for (the cap itself
    when there may be more still)."""
    after: Position | AgentsPosition | None = None
    """Where the page ended (None: no hit in it): pass it to ask for the next page (of the
    index it came from)."""
    origins: dict[str, str] = field(default_factory=dict)
    """The agent each hit's task is of, by task id, where several agents' stores were searched
    (memtui.core.memory.search_agents); empty otherwise."""


def search_page(conn: sqlite3.Connection, query: str, shown: int | None, cap: int, kinds: Iterable[str] = KINDS,
                after: Position | None = None) -> SearchPage:
    """Up to `shown` hits (None: every one) after position `after` (None: from the first), and
    the matches after them counted up to `cap`. Only the hits' own text is read out; the rest
    are counted in SQLite, on from the last hit (a row checked with LIKE is checked once)."""
    terms = query_terms(query)
    plan = plan_query(conn, terms) if terms else None
    if plan is None or plan.empty or shown == 0:
        return SearchPage(after=after)
    kinds = [k for k in BANDS if k in set(kinds)]
    if after is not None:
        kinds = kinds[kinds.index(after[0]):] if after[0] in kinds else []
    rows, more = paged_rows(
        kinds, shown, cap, after,
        lambda kind, limit, start: select(conn, plan, kind, "rowid, owner, text", -1 if limit is None else limit, start),
        lambda kind, limit, start: count(conn, plan, kind, limit, start)) or ([], 0)
    if not rows:
        return SearchPage(after=after)
    finder = term_finder(terms)
    hits = [owned_hit(kind, owner, excerpt(text, terms, finder=finder), terms) for kind, _, owner, text in rows]
    return SearchPage(hits, more, (rows[-1][0], rows[-1][1]))


def paged_rows(kinds: list[str], shown: int | None, cap: int, after: Position | None,
               fetch: Callable[[str, int | None, int | None], list[tuple]],
               count_after: Callable[[str, int, int | None], int],
               cancelled: Callable[[], bool] | None = None) -> tuple[list[tuple], int] | None:
    """One page's rows across `kinds` in order, each led by its kind, and the matches after
    them counted up to `cap` — whoever finds the records (this index, or a team store's
    server). `fetch(kind, limit, after_place)`: at most `limit` (None: all) rows (place, …)
    after that place; `count_after(kind, limit, after_place)`: how many match after it, up to
    `limit`. None once `cancelled()` (asked between two calls)."""
    rows: list[tuple] = []
    for kind in kinds:
        if shown is not None and len(rows) >= shown:
            break
        if cancelled is not None and cancelled():
            return None
        rows.extend((kind, *row) for row in fetch(kind, None if shown is None else shown - len(rows),
                                                  after[1] if after is not None and kind == after[0] else None))
    more = 0
    if rows and len(rows) == shown and cap > 0:
        last_kind, last = rows[-1][0], rows[-1][1]
        for kind in kinds[kinds.index(last_kind):]:
            if cancelled is not None and cancelled():
                return None
            more += count_after(kind, cap - more, last if kind == last_kind else None)
            if more >= cap:
                break
    return rows, more


def select(conn: sqlite3.Connection, plan: Plan, kind: str, columns: str, limit: int,
           after: int | None = None) -> list[tuple]:
    """Rows of one kind matching the plan (at most `limit`; -1: all), files in document order,
    others newest first (those after rowid `after` in that order, if given). Text checked alone
    (no word to look up: `->`) is scanned in FTS5's table of the rows itself, not through FTS5:
    a third of the time per row (a band of 100,000 titles: 12 ms instead of 40)."""
    low, high = band(kind)
    if after is not None:
        low = after + 1
    table, names = ("records", {}) if plan.groups else ("records_content", CONTENT_COLUMNS)
    rowid, text = names.get("rowid", "rowid"), names.get("text", "text")
    where = [f"{rowid} BETWEEN ? AND ?"] + [f"{text} LIKE ? ESCAPE '\\'" for _ in plan.checks]
    params: list[Any] = [low, high, *(f"%{like_escape(c)}%" for c in plan.checks), limit]
    if plan.groups:
        where.insert(0, "records MATCH ?")
        params.insert(0, plan.match)
    selected = ", ".join(names.get(c, c) for c in map(str.strip, columns.split(",")))
    return conn.execute(f"SELECT {selected} FROM {table} WHERE {' AND '.join(where)}"
                        f" ORDER BY {rowid} LIMIT ?", params).fetchall()


def count(conn: sqlite3.Connection, plan: Plan, kind: str, limit: int, after: int | None) -> int:
    """How many rows `select` would give (no text read out)."""
    return len(select(conn, plan, kind, "rowid", limit, after))
