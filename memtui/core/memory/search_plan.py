"""Turning a query into a statement over the search index (memtui.core.memory.search).

The index holds words (FTS5 `unicode61`: letters and digits, case folded) and a
vocabulary of every word it has seen, itself indexed by trigrams. A query term matches the
way it always did, as a case-insensitive substring:

- a one-word term: every indexed word containing it (`unfinish` → `unfinished`, `config` →
  `getconfig`, `io` → `io`, `ratio`…, a CJK run inside a longer one), OR-ed in FTS5 (a term
  with punctuation around its word, `-foo`, is then checked with LIKE too);
- a term of several words (`parse_config`, `core/store/reads.py`, `"lock around"`): the rows
  holding its words (the first anywhere in a word, the last at the start of one, the others
  whole), checked for the term itself with LIKE;
- a term of punctuation only, or inside too many words (`->`, `e`): checked with LIKE over
  the rows the other terms found, or over every row (newest first, stopping at the limit)
  when no term narrows them.
LIKE folds the case of ASCII letters only: other letters match in the same case.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

TOKENIZER = "unicode61 remove_diacritics 0"
"""Letters and digits make words, case folded; accents are kept (as the trigram index did)."""
OWNER_SEP = "\t"
"""Between the task, step and seq of a session step's owner (their ids hold `:`)."""
MAX_EXPANSION = 200
"""Indexed words one term may stand for; above it the term is checked by scanning."""
CHECK_EVERY = 1_000
"""SQLite virtual-machine steps between two looks at whether a search was cancelled (~0.1 ms)."""


@dataclass
class Plan:
    groups: list[str] = field(default_factory=list)  # FTS5 expressions, all must match
    checks: list[str] = field(default_factory=list)  # substrings checked with LIKE (ASCII case folded)
    empty: bool = False  # a term matches nothing in the index

    @property
    def match(self) -> str:
        return " AND ".join(self.groups)


def query_terms(query: str) -> list[str]:
    """Words of a query; "quoted phrases" stay one term."""
    return [a or b for a, b in re.findall(r'"([^"]+)"|(\S+)', query) if (a or b).strip()]


def plan_query(conn: sqlite3.Connection, terms: list[str]) -> Plan:
    plan = Plan()
    for term in terms:
        words = tokens(conn, term)
        if len(words) == 1:
            found = containing(conn, words[0])
            if found is None:  # inside too many words: scan for it
                plan.checks.append(term)
            elif not found:
                plan.empty = True
            else:
                plan.groups.append(_any(_quote(w) for w in found))
                if words[0] != term.lower():  # `-foo`, `foo.`: the words are not all of it
                    plan.checks.append(term)
            continue
        plan.checks.append(term)
        if len(words) > 1:  # the rows holding its words, then the substring itself
            first = containing(conn, words[0])
            if first == []:
                plan.empty = True
            elif first is not None:
                plan.groups.append(_any(_quote(w) for w in first))
            plan.groups.extend(_quote(w) for w in words[1:-1])
            last = starting(conn, words[-1])
            if last == []:
                plan.empty = True
            elif last is not None:
                plan.groups.append(_any(_quote(w) for w in last))
    return plan


@contextmanager
def given_up_when(conn: sqlite3.Connection, cancelled: Callable[[], bool] | None) -> Iterator[None]:
    """Run the statements inside until `cancelled()` turns true, then abort the one running
    and leave the block quietly (a scan of every row for `<=>` takes a while; the query typed
    since should not wait for it)."""
    if cancelled is None:
        yield
        return
    conn.set_progress_handler(lambda: 1 if cancelled() else 0, CHECK_EVERY)
    try:
        yield
    except sqlite3.OperationalError:
        if not cancelled():
            raise
    finally:
        conn.set_progress_handler(None, 0)


def like_escape(text: str) -> str:
    """`text` as a literal inside a LIKE pattern with ESCAPE '\\'."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def tokens(conn: sqlite3.Connection, text: str) -> list[str]:
    """The index's words of `text`, in order (SQLite's own tokenizer, so they fold alike)."""
    conn.execute("DELETE FROM temp.query_words")
    conn.execute("INSERT INTO temp.query_words(text) VALUES (?)", (text,))
    return [t for (t,) in conn.execute("SELECT term FROM temp.query_words_v ORDER BY offset")]


def prepare(conn: sqlite3.Connection) -> None:
    """The scratch tables `tokens` uses (in memory, gone with the connection)."""
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words USING fts5(text, tokenize='{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words_v USING fts5vocab(temp, query_words, instance)")


def containing(conn: sqlite3.Connection, word: str) -> list[str] | None:
    """Indexed words containing `word` (by trigrams from 3 characters on, else by scanning the
    vocabulary); None when there are too many."""
    if len(word) >= 3:
        rows = conn.execute("SELECT term FROM terms_tri WHERE terms_tri MATCH ? LIMIT ?",
                            (_quote(word), MAX_EXPANSION + 1)).fetchall()
    else:
        rows = conn.execute("SELECT term FROM terms WHERE instr(term, ?) > 0 LIMIT ?",
                            (word, MAX_EXPANSION + 1)).fetchall()
    return None if len(rows) > MAX_EXPANSION else [t for (t,) in rows]


def starting(conn: sqlite3.Connection, word: str) -> list[str] | None:
    """Indexed words starting with `word` (a range of the vocabulary's unique index; FTS5's
    own `word*` merges every such word's rows first); None when there are too many."""
    rows = conn.execute("SELECT term FROM terms WHERE term >= ? AND term < ? LIMIT ?",
                        (word, word + "\U0010ffff", MAX_EXPANSION + 1)).fetchall()
    return None if len(rows) > MAX_EXPANSION else [t for (t,) in rows]


def _any(parts) -> str:
    return "(" + " OR ".join(parts) + ")"


def _quote(word: str) -> str:
    return '"' + _esc(word) + '"'


def _esc(word: str) -> str:
    return word.replace('"', '""')


def term_finder(terms: list[str]) -> Callable[[str], int]:
    """Where the first match of any term is in a text, case-insensitively (-1: none). A text
    is lower-cased only up to the first match as typed in lower case, when there is one (a
    hit's text may be 32 KB; the position is the same as in the whole text lower-cased)."""
    lowered = [t.lower() for t in terms]
    longest = max(map(len, lowered), default=0)

    def find(text: str) -> int:
        typed = [p for t in lowered if (p := text.find(t)) >= 0]
        lower = text[:max(typed) + longest].lower() if typed else text.lower()
        return min((p for p in (lower.find(t) for t in lowered) if p >= 0), default=-1)
    return find


def excerpt(text: str, terms: list[str], width: int = 160, finder: Callable[[str], int] | None = None) -> str:
    """One line around the first match of any term (the whole text if it is short). Only a
    window around the match is flattened: a hit's text may be 32 KB of output."""
    if len(text) <= width:
        return " ".join(text.split())
    find = finder or term_finder(terms)
    found = max(find(text), 0)
    low, high = max(0, found - width), min(len(text), found + 2 * width)
    flat = " ".join(text[low:high].split())
    if low == 0 and high == len(text) and len(flat) <= width:
        return flat
    found = max(find(flat), 0)
    start = max(0, found - width // 3)
    end = min(len(flat), start + width)
    more_before = start > 0 or bool(text[:low].strip())
    more_after = end < len(flat) or bool(text[high:].strip())
    return ("…" if more_before else "") + flat[start:end] + ("…" if more_after else "")


def match_spans(text: str, terms: Iterable[str]) -> tuple[tuple[int, int], ...]:
    """Where the terms occur in `text` (an excerpt: whitespace runs are one space), as
    (start, end) character offsets in order, overlapping ones merged; case-insensitive."""
    words = sorted({" ".join(t.split()) for t in terms} - {""}, key=len, reverse=True)
    if not words:
        return ()
    spans: list[tuple[int, int]] = []
    for found in re.finditer("|".join(map(re.escape, words)), text, re.IGNORECASE):
        start, end = found.span()
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return tuple(spans)


@dataclass(frozen=True)
class SearchHit:
    kind: str
    text: str  # the matching line, or an excerpt around the match
    file: str | None = None
    task: str | None = None
    step: str | None = None
    line: int = 0
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)  # where the terms are in `text`

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


def owned_hit(kind: str, owner: str, text: str, terms: Iterable[str] = ()) -> SearchHit:
    """The hit of a record of `kind` from its `owner` (search_file.OWNER), `text` being its
    excerpt, with where `terms` are in it."""
    spans = match_spans(text, terms)
    if kind == "file":
        line, _, rel = owner.partition(":")
        return SearchHit(kind, text, file=rel, line=int(line), spans=spans)
    if kind == "step":
        task, step, seq = owner.split(OWNER_SEP if OWNER_SEP in owner else ":")  # a session's ids hold ":"
        return SearchHit(kind, text, task=task, step=step, line=int(seq), spans=spans)
    return SearchHit(kind, text, task=owner, spans=spans)
