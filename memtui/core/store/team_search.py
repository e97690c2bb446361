r"""Search on the team store's server: the records memory search finds (task titles and
summaries, messages, step tool/arguments/result/error) matched by PostgreSQL itself, through
indexes over the very text the SQLite index keeps of them — never copied to this machine.

A query term matches as a case-insensitive substring, as it does in the SQLite index
(memtui.core.memory.search_plan): `config` finds `getConfig`, `parse_config` the identifier.

- With `pg_trgm` (PostgreSQL's contrib, trusted: a role that may create in the database
  installs it): GIN trigram indexes over each kind's text answer `ILIKE '%term%'` for every
  term of 3 characters or more; shorter ones and punctuation are checked on the rows the other
  terms found, or by reading the kind's rows newest first until the page is full.
- Without it (the writer could not create it, see the README): GIN full-text indexes
  (`to_tsvector('simple')`) over the same text find the rows holding a word that starts with a
  word term (`conf` finds `config` and `Configure`, not `getConfig`: the one difference from the
  SQLite index), the term then checked with ILIKE on those rows. A term with punctuation
  (`parse_config`, `->`) is checked with ILIKE on every row, newest first, until the page is full.
Which of the two a store has is read from the server when it is opened (`search_by`).

The text of a record is made by IMMUTABLE SQL functions of immutable parts only (`||`, not the
STABLE concat_ws), so that the planner inlines them: the index expressions and the statements'
conditions are then the same expression, and a row is checked without a function call (a call
of a SQL function not inlined cost 0.35 ms a row: 80 ms for a page of 200 steps): a step's arguments and
result with their JSON escapes undone (`\n`, `\t`, `\"`…) and clipped as the SQLite index
clips them (memtui.core.memory.search_records.json_text; a JSON string keeps its quotes here, and
`\uXXXX` escapes stay as written: a term with a `"` at its end may also match there), a message's
content, a task's title and summary.
"""

from __future__ import annotations

import re
from contextlib import _GeneratorContextManager
from typing import TYPE_CHECKING, Any

from memtui.core.record_tables import RecordSearch

__all__ = ["SEARCH_FUNCTIONS", "TRIGRAM_INDEXES", "WORD_INDEXES", "KIND_SQL", "TeamSearch", "install_search"]

MAX_FIELD_CHARS = 32_000  # as memtui.core.memory.search_records.MAX_FIELD_CHARS (a lower layer: kept in step)
MAX_MESSAGE_CHARS = 200_000
"""A message's text indexed (a tsvector holds at most 1 MiB: a longer message would refuse its insert)."""
SEQ_BITS = 40
"""A step's or message's place in the newest-first order, one integer: task id << SEQ_BITS | seq (or id)."""

SEARCH_FUNCTIONS = (
    # Each argument is used once in a body: the planner inlines an argument used twice as the
    # expression it stands for, evaluated twice (a step's text then cost 0.2 ms a row).
    r"""CREATE OR REPLACE FUNCTION memtui_json_text(v text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT replace(replace(replace(replace(replace(replace(nullif(v, 'null'),
      '\\', chr(1)), '\n', chr(10)), '\t', chr(9)), '\r', chr(13)), '\"', '"'), chr(1), '\') $f$""",
    rf"""CREATE OR REPLACE FUNCTION memtui_step_text(tool text, args text, result text, error text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
    SELECT coalesce(tool, '') || chr(10) || coalesce(memtui_json_text(left(args, {MAX_FIELD_CHARS})), '') || chr(10)
           || coalesce(memtui_json_text(left(result, {MAX_FIELD_CHARS})), '') || chr(10) || coalesce(error, '')
    $f$""",
    r"""CREATE OR REPLACE FUNCTION memtui_task_text(title text, summary text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT coalesce(title, '') || chr(10) || coalesce(summary, '') $f$""",
    f"""CREATE OR REPLACE FUNCTION memtui_message_text(content text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT left(content, {MAX_MESSAGE_CHARS}) $f$""",
)

TEXT = {
    "task": "memtui_task_text(t.title, t.summary)",
    "message": "memtui_message_text(m.content)",
    "step": "memtui_step_text(s.tool, s.args, s.result, s.error)",
}
"""Each kind's searched text, as its indexes name it (the alias is the statement's)."""
_INDEXED = {"task": ("task", "memtui_task_text(title, summary)"),
            "message": ("message", "memtui_message_text(content)"),
            "step": ("step", "memtui_step_text(tool, args, result, error)")}
TRIGRAM_INDEXES = tuple(f"CREATE INDEX IF NOT EXISTS {kind}_search_trgm ON {table} USING gin ({expr} gin_trgm_ops)"
                        for kind, (table, expr) in _INDEXED.items())
WORD_INDEXES = tuple(f"CREATE INDEX IF NOT EXISTS {kind}_search_words ON {table}"
                     f" USING gin (to_tsvector('simple'::regconfig, {expr}))" for kind, (table, expr) in _INDEXED.items())

KIND_SQL = {
    # (FROM and the kind's own condition, its newest-first order, its place in that order, the columns of a hit)
    "task": ("task t WHERE (t.title <> '' OR COALESCE(t.summary, '') <> '')", "t.id DESC", "t.id",
             "t.id, t.title, t.summary"),
    "message": ("message m JOIN task t ON t.id = m.task_id WHERE m.content <> ''"
                " AND m.content IS DISTINCT FROM t.summary",  # the summary is the task's hit already
                "m.task_id DESC, m.id DESC", f"(m.task_id * {1 << SEQ_BITS} + m.id)", "m.task_id, m.content"),
    "step": ("step s WHERE TRUE", "s.task_id DESC, s.seq DESC", f"(s.task_id * {1 << SEQ_BITS} + s.seq)",
             "s.task_id, s.id, s.seq, s.tool, s.args, s.result, s.error"),
}
_AFTER = {"task": "t.id < ?", "message": "(m.task_id, m.id) < (?, ?)", "step": "(s.task_id, s.seq) < (?, ?)"}
_WORD = re.compile(r"[^\W_]+")
_ID = {"task": "t.id", "message": "m.id", "step": "s.id"}
_INDEXABLE = re.compile(r"[^\W_]{3}")
"""A term the trigram index narrows: 3 letters or digits in a row (for `->` or `io` it would
read its whole self, then every row: 13 s at 300,000 steps)."""
FEW = 500
"""Matches of a kind few enough to be found in no order and ordered after (see _few_matching);
more, and the page is read in order (the newest rows hold some soon)."""


def install_search(execute, trigrams: bool = True) -> str:
    """The search functions and indexes, in the transaction `execute` runs in: trigram indexes
    when pg_trgm is there or can be created (in a savepoint: a role that may not create it
    leaves the transaction usable), else full-text ones. Returns what the store searches by."""
    for statement in SEARCH_FUNCTIONS:
        execute(statement)
    by = "words"
    if trigrams:
        execute("SAVEPOINT memtui_trgm")
        try:
            execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            execute("RELEASE SAVEPOINT memtui_trgm")
            by = "trigrams"
        except Exception:  # noqa: BLE001 - any refusal (privilege, not installed): the fallback
            execute("ROLLBACK TO SAVEPOINT memtui_trgm")
    for statement in TRIGRAM_INDEXES if by == "trigrams" else WORD_INDEXES:
        execute(statement)
    return by


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class TeamSearch(RecordSearch):
    """The team store's side of memory search (first among its bases: its `searched_on_server`
    answers before RecordTables' None) (memtui.core.memory.search_server turns its rows
    into hits). Needs `_sql` (AgentStore's) and `search_by`: "trigrams", "words" or None (a store
    of an older schema, searched through a local index as before)."""

    search_by: str | None

    if TYPE_CHECKING:  # AgentStore's

        def _sql(self, sql: str, params: tuple | list = ()) -> list[tuple]: ...

        def snapshot(self) -> _GeneratorContextManager[Any]: ...  # AgentStore's (a @contextmanager)

    def searched_on_server(self) -> RecordSearch | None:
        return self if self.search_by else None

    def _where(self, kind: str, terms: list[str], after: int | None) -> tuple[str, list[Any]]:
        text = TEXT[kind]
        where: list[str] = []
        params: list[Any] = []
        for term in terms:
            if self.search_by == "words" and _WORD.fullmatch(term):
                # The rows holding a word that starts with the term (no index finds it inside a word)
                where.append(f"to_tsvector('simple'::regconfig, {text}) @@ to_tsquery('simple', ?)")
                params.append("'" + term.lower().replace("'", "''") + "':*")
            where.append(f"{text} ILIKE ?")
            params.append(_like(term))
        if after is not None:
            where.append(_AFTER[kind])
            params.extend((after,) if kind == "task" else divmod(after, 1 << SEQ_BITS))
        return " AND ".join(where), params

    def matching_records(self, kind: str, terms: list[str], limit: int | None, after: int | None = None) -> list[tuple]:
        """The records of `kind` holding every term, newest first (after place `after`), at most
        `limit` (None: all): (place, *columns of KIND_SQL)."""
        source, order, place, columns = KIND_SQL[kind]
        where, params = self._where(kind, terms, after)
        if limit is not None and self.search_by == "trigrams" and any(map(_INDEXABLE.search, terms)):
            few = self._few_matching(kind, where, params)
            if few is not None:  # every match, found through the index: ordered here
                top = [key for _, key in sorted(few, reverse=True)[:limit]]
                alias = _ID[kind].split(".")[0]
                return self._sql(f"SELECT {place}, {columns} FROM {source} AND {alias}.id IN ({','.join('?' * len(top))})"
                                 f" ORDER BY {order}", top) if top else []
        return self._sql(f"SELECT {place}, {columns} FROM {source} AND {where} ORDER BY {order} LIMIT ?",
                         [*params, limit])

    def _few_matching(self, kind: str, where: str, params: list[Any]) -> list[tuple] | None:
        """(place, id) of every match when there are at most FEW, else None. Asked for in no order
        and with the rows read newest first ruled out, so that the server takes the trigram index:
        asked in order, it would rather read the rows newest first until the page is full —
        every row of the kind for a rare or absent word (0.8-1 s at 300,000 steps)."""
        source, _, place, _ = KIND_SQL[kind]
        with self.snapshot():
            self._sql("SELECT set_config('enable_indexscan', 'off', true)")
            try:
                rows = self._sql(f"SELECT {place}, {_ID[kind]} FROM {source} AND {where} LIMIT ?", [*params, FEW + 1])
            finally:
                self._sql("SELECT set_config('enable_indexscan', 'on', true)")
        return rows if len(rows) <= FEW else None

    def count_matching(self, kind: str, terms: list[str], limit: int, after: int | None = None) -> int:
        """How many records `matching_records` would give, counted up to `limit` (no text read out)."""
        source = KIND_SQL[kind][0]
        where, params = self._where(kind, terms, after)
        # In no order: the planner then takes the trigram index rather than reading the kind's
        # rows newest first until `limit` match (every row, when fewer do: 18 s at 300,000 steps).
        return self._sql(f"SELECT COUNT(*) FROM (SELECT 1 FROM {source} AND {where} LIMIT ?) AS n",
                         [*params, limit])[0][0]
