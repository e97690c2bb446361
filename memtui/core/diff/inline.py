"""Intra-line changes: which lines of a replaced block pair up, and which spans of a pair differ.

Lazy by design: called per visible pair, and gives up on long or unlike lines."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Sequence

#: Replaced blocks up to this many old×new line pairs are aligned by similarity.
PAIR_CELLS = 1024
#: Lines paired for intra-line highlighting must be at least this similar (0..1).
PAIR_SIMILARITY = 0.5
#: Lines longer than this get no intra-line highlighting.
INLINE_MAX_CHARS = 1000
#: Character changes below this similarity are not worth highlighting: the whole line changed.
INLINE_MIN_SIMILARITY = 0.4

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
Spans = list[tuple[int, int]]


def inline_changes(old: str, new: str) -> tuple[Spans, Spans] | None:
    """Character ranges that changed between two paired lines, as (start, end) offsets.

    Changes are found word by word (a word with a small change inside shows just the changed
    characters). None when highlighting would not help: a line is longer than INLINE_MAX_CHARS
    or the lines share too little (then the whole line is the change). Cost is bounded by the
    line lengths.
    """
    if old == new:
        return [], []
    if len(old) > INLINE_MAX_CHARS or len(new) > INLINE_MAX_CHARS:
        return None
    p, s = _common_ends(old, new)
    # Snap the ends to word boundaries so that the middle is made of whole words.
    while p and _is_word(old[p - 1]) and (_is_word(old, p) or _is_word(new, p)):
        p -= 1
    while s and _is_word(old[-s]) and (_is_word(old, len(old) - s - 1) or _is_word(new, len(new) - s - 1)):
        s -= 1
    old_mid, new_mid = old[p : len(old) - s], new[p : len(new) - s]
    if not old_mid or not new_mid:
        spans_old = [(p, p + len(old_mid))] if old_mid else []
        spans_new = [(p, p + len(new_mid))] if new_mid else []
        return spans_old, spans_new
    tok_old, tok_new = _TOKEN.findall(old_mid), _TOKEN.findall(new_mid)
    offsets_old, offsets_new = _offsets(tok_old, p), _offsets(tok_new, p)
    matcher = SequenceMatcher(None, tok_old, tok_new, autojunk=False)
    spans_old: Spans = []
    spans_new: Spans = []
    same = p + s
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same += offsets_old[i2] - offsets_old[i1]
            continue
        if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1:
            # One word for another: if most of it is kept, mark only the changed characters.
            a, b = tok_old[i1], tok_new[j1]
            wp, ws = _common_ends(a, b)
            if 2 * (wp + ws) >= max(len(a), len(b)):
                same += wp + ws
                if wp + ws < len(a):
                    _add_span(spans_old, offsets_old[i1] + wp, offsets_old[i2] - ws)
                if wp + ws < len(b):
                    _add_span(spans_new, offsets_new[j1] + wp, offsets_new[j2] - ws)
                continue
        if i2 > i1:
            _add_span(spans_old, offsets_old[i1], offsets_old[i2])
        if j2 > j1:
            _add_span(spans_new, offsets_new[j1], offsets_new[j2])
    if 2 * same / (len(old) + len(new)) < INLINE_MIN_SIMILARITY:
        return None
    return spans_old, spans_new


def _common_ends(old: str, new: str) -> tuple[int, int]:
    """Lengths of the common prefix and of the common suffix (not overlapping it)."""
    limit = min(len(old), len(new))
    p = 0
    while p < limit and old[p] == new[p]:
        p += 1
    s = 0
    while s < limit - p and old[-1 - s] == new[-1 - s]:
        s += 1
    return p, s


def _is_word(text: str, index: int = 0) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def _offsets(tokens: list[str], start: int) -> list[int]:
    offsets = [start]
    for token in tokens:
        start += len(token)
        offsets.append(start)
    return offsets


def _add_span(spans: Spans, start: int, end: int) -> None:
    if spans and spans[-1][1] == start:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def _similarity(old: str, new: str) -> float:
    """A cheap similarity (0..1) for pairing lines: common prefix and suffix, else char overlap."""
    if not old and not new:
        return 1.0
    total = len(old) + len(new)
    old_s, new_s = old.strip(), new.strip()
    if old_s == new_s:
        return 1.0
    p, s = _common_ends(old, new)
    edge = 2 * (p + s) / total
    if edge >= PAIR_SIMILARITY or total > 2 * INLINE_MAX_CHARS:
        return edge
    return max(edge, SequenceMatcher(None, old, new, autojunk=False).quick_ratio() * 0.8)


def pair_lines(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Which old line pairs with which new line inside one replaced block, in order.

    Small blocks are aligned by similarity (a weighted LCS over at most PAIR_CELLS pairs),
    large ones positionally; pairs only decide what sits side by side and which lines get
    intra-line highlighting, which itself checks similarity again, lazily.
    """
    n, m = len(old), len(new)
    if n == 0 or m == 0:
        return []
    if n == m == 1:
        return [(0, 0)]  # nothing to choose; inline_changes still judges the similarity
    if n * m > PAIR_CELLS:
        return [(k, k) for k in range(min(n, m))]
    sim = [[_similarity(o, w) for w in new] for o in old]
    # best[i][j]: best total similarity of pairs within old[i:], new[j:]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            score = below[j]
            if row[j + 1] > score:
                score = row[j + 1]
            s = sim[i][j]
            if s >= PAIR_SIMILARITY and s + below[j + 1] > score:
                score = s + below[j + 1]
            row[j] = score
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        s = sim[i][j]
        if s >= PAIR_SIMILARITY and best[i][j] == s + best[i + 1][j + 1]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs
