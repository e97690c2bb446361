"""Hits from a store whose server finds its records (the team store on PostgreSQL:
memtui.core.store.team_search), a page at a time, in the order and with the counts the SQLite
index gives (memtui.core.memory.search_query): task titles and summaries, messages, steps, each
newest first; a page ends at a place (kind, the record's place) the next one starts after.

Memory documents are still found in the index on this machine (they are this machine's files):
`combined_page` lists them first, then the server's records.
"""

from __future__ import annotations

from typing import Callable, Iterable

from memtui.core.memory.search_plan import excerpt, owned_hit, query_terms, term_finder
from memtui.core.memory.search_query import KINDS, Position, SearchPage, paged_rows
from memtui.core.memory.search_records import step_rows
from memtui.core.record_tables import RecordSearch

SERVER_KINDS = ("task", "message", "step")
"""In the order their hits come (search_query.BANDS)."""

LocalPage = Callable[[str, "int | None", int, list[str], "Position | None"], SearchPage]


def server_page(server: RecordSearch, query: str, shown: int | None, cap: int, kinds: Iterable[str] = KINDS,
                after: Position | None = None, cancelled: Callable[[], bool] | None = None) -> SearchPage:
    """Up to `shown` hits (None: every one) of the server's records after `after`, and the
    matches after them counted up to `cap` (as search_query.search_page). Once `cancelled()`,
    between two statements: an empty page."""
    terms = query_terms(query)
    wanted = set(kinds)
    order = [k for k in SERVER_KINDS if k in wanted]
    if after is not None:
        order = order[order.index(after[0]):] if after[0] in order else []
    if not terms or shown == 0:
        return SearchPage(after=after)
    paged = paged_rows(order, shown, cap, after,
                       lambda kind, limit, start: server.matching_records(kind, terms, limit, start),
                       lambda kind, limit, start: server.count_matching(kind, terms, limit, start), cancelled)
    if paged is None or not paged[0]:  # cancelled, or nothing found
        return SearchPage(after=after)
    rows, more = paged
    finder = term_finder(terms)
    hits = [owned_hit(kind, owner, excerpt(text, terms, finder=finder), terms) for kind, owner, text in map(_record, rows)]
    return SearchPage(hits, more, (rows[-1][0], rows[-1][1]))


def _record(row: tuple) -> tuple[str, str, str]:
    """(kind, owner, text) of a server row, the text as the SQLite index keeps it (search_records)."""
    kind = row[0]
    if kind == "task":
        _, _, task, title, summary = row
        return kind, str(task), "\n".join(part for part in (title, summary) if part)
    if kind == "message":
        _, _, task, content = row
        return kind, str(task), content
    _, owner, text = step_rows([row[2:]])[0]
    return kind, owner, text


def combined_page(local: LocalPage, server: RecordSearch, query: str, shown: int | None, cap: int,
                  kinds: Iterable[str] = KINDS, after: Position | None = None,
                  cancelled: Callable[[], bool] | None = None) -> SearchPage:
    """Memory documents from the index on this machine (`local(query, shown, cap, kinds, after)`),
    then the server's records: one page across both, counted on across both."""
    wanted = set(kinds)
    rest = [k for k in SERVER_KINDS if k in wanted]
    if "file" not in wanted or (after is not None and after[0] != "file"):
        return server_page(server, query, shown, cap, rest, after, cancelled)
    files = local(query, shown, cap, ["file"], after)
    if shown is not None and len(files.hits) >= shown:  # a page of files: the records are only counted
        more = files.more
        if more < cap and rest and not (cancelled is not None and cancelled()):
            terms = query_terms(query)
            for kind in rest:
                more += server.count_matching(kind, terms, cap - more) if terms else 0
                if more >= cap:
                    break
        return SearchPage(files.hits, more, files.after)
    records = server_page(server, query, None if shown is None else shown - len(files.hits), cap, rest, None,
                          cancelled)
    return SearchPage(files.hits + records.hits, records.more, records.after if records.hits else files.after)
