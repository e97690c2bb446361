"""Line diffs of two texts, fast whatever their shape, plus the row model a diff view draws.

No UI here. The algorithm is a patience diff with bounded fallbacks:

1. trim the common prefix and suffix;
2. map lines to ints, anchor on lines that occur exactly once on each side, keep the longest
   increasing run of those anchors, and recurse into the gaps between them (a line that is
   repeated in the whole file is often unique inside a gap);
3. a gap with no unique common line is cut into chunks of CHUNK_LINES if it is bigger, and
   goes to a Myers diff with a work budget; past the budget the gap is reported as one
   replaced block rather than spending seconds on it.

Every step is linear or O(n log n) on real source, so 50,000 lines take well under a second in
pure Python, and no input makes it quadratic. Intra-line highlighting is separate and lazy:
`inline_changes` is called per visible pair of lines and gives up on long or unlike lines.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cached_property
from typing import Literal, NamedTuple, Sequence

Tag = Literal["equal", "replace", "delete", "insert"]

#: Work units (inner-loop steps) a single Myers fallback may spend before it gives up.
MYERS_BUDGET = 100_000
#: Regions without unique lines bigger than this are cut into chunks of about this size.
CHUNK_LINES = 500
#: Replaced blocks up to this many old×new line pairs are aligned by similarity.
PAIR_CELLS = 1024
#: Lines paired for intra-line highlighting must be at least this similar (0..1).
PAIR_SIMILARITY = 0.5
#: Lines longer than this get no intra-line highlighting.
INLINE_MAX_CHARS = 1000
#: Character changes below this similarity are not worth highlighting: the whole line changed.
INLINE_MIN_SIMILARITY = 0.4


class Op(NamedTuple):
    """One opcode, as in difflib: a[i1:i2] becomes b[j1:j2]."""

    tag: Tag
    i1: int
    i2: int
    j1: int
    j2: int


class DiffStats(NamedTuple):
    """Lines added and removed, for the +/- counts of a file list."""

    added: int
    removed: int


@dataclass(frozen=True)
class Hunk:
    """A run of changes with its context lines. Starts are 0-based line indexes."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    ops: tuple[Op, ...]

    @property
    def header(self) -> str:
        """The unified-diff header, with 1-based line numbers as git prints them."""
        old = _range_text(self.old_start, self.old_count)
        new = _range_text(self.new_start, self.new_count)
        return f"@@ -{old} +{new} @@"


def _range_text(start: int, count: int) -> str:
    first = start + 1 if count else start
    return str(first) if count == 1 else f"{first},{count}"


# --------------------------------------------------------------------------- the line diff


def diff_lines(a: Sequence[str], b: Sequence[str]) -> list[Op]:
    """Opcodes that turn `a` into `b` (lists of lines), merged and in order.

    Equal ranges are really equal; the rest is as small as the bounded search finds.
    """
    n, m = len(a), len(b)
    # Map each distinct line to a small int once: later comparisons are int compares.
    ids = {line: k for k, line in enumerate(set(a).union(b))}
    ia = list(map(ids.__getitem__, a))
    ib = list(map(ids.__getitem__, b))
    matches: list[tuple[int, int, int]] = []  # (i, j, length) of equal blocks
    _diff_region(ia, ib, 0, n, 0, m, matches)
    return _ops_from_matches(matches, n, m)


def _diff_region(
    a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int, out: list[tuple[int, int, int]]
) -> None:
    """Append the equal blocks of a[alo:ahi] vs b[blo:bhi] to `out`, in order."""
    # An explicit stack instead of recursion: deep inputs must not hit the recursion limit.
    # Items are regions to diff, or already-found equal blocks to emit, popped in order.
    stack: list[tuple[int, int, int, int] | tuple[int, int, int]] = [(alo, ahi, blo, bhi)]
    while stack:
        item = stack.pop()
        if len(item) == 3:
            i, j, size = item  # type: ignore[misc]
            if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
                last = out.pop()
                item = (last[0], last[1], last[2] + size)
            out.append(item)  # type: ignore[arg-type]
            continue
        alo, ahi, blo, bhi = item  # type: ignore[misc]
        # Common prefix and suffix.
        start_a, start_b = alo, blo
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo += 1
            blo += 1
        prefix = alo - start_a
        end_a = ahi
        while ahi > alo and bhi > blo and a[ahi - 1] == b[bhi - 1]:
            ahi -= 1
            bhi -= 1
        suffix = end_a - ahi
        pending: list[tuple[int, int, int, int] | tuple[int, int, int]] = []
        if prefix:
            pending.append((start_a, start_b, prefix))
        if alo < ahi and blo < bhi and (ahi - alo == 1 or bhi - blo == 1):
            # One line on a side: it matches once at most; no search needed.
            if ahi - alo == 1:
                if a[alo] in b[blo:bhi]:
                    pending.append((alo, b.index(a[alo], blo, bhi), 1))
            elif b[blo] in a[alo:ahi]:
                pending.append((a.index(b[blo], alo, ahi), blo, 1))
        elif alo < ahi and blo < bhi:
            anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
            if anchors:
                # Consecutive anchors form one equal run; the gaps between runs recurse.
                pi, pj = alo, blo
                run_i, run_j, run = alo, blo, 0
                for i, j in anchors:
                    if i == pi and j == pj and run:
                        run += 1
                    else:
                        if run:
                            pending.append((run_i, run_j, run))
                        if pi < i or pj < j:
                            pending.append((pi, i, pj, j))
                        run_i, run_j, run = i, j, 1
                    pi, pj = i + 1, j + 1
                pending.append((run_i, run_j, run))
                if pi < ahi or pj < bhi:
                    pending.append((pi, ahi, pj, bhi))
            elif max(ahi - alo, bhi - blo) > CHUNK_LINES:
                # A big region without a single unique line (data, generated or repetitive
                # text): cut both sides into proportional chunks and diff those. Not minimal
                # where lines moved across chunk edges, but still correct and linear.
                chunks = -(-max(ahi - alo, bhi - blo) // CHUNK_LINES)
                n, m = ahi - alo, bhi - blo
                for k in range(chunks):
                    pending.append(
                        (
                            alo + n * k // chunks,
                            alo + n * (k + 1) // chunks,
                            blo + m * k // chunks,
                            blo + m * (k + 1) // chunks,
                        )
                    )
            else:
                for block in _myers(a, b, alo, ahi, blo, bhi):
                    pending.append(block)
        if suffix:
            pending.append((ahi, bhi, suffix))
        stack.extend(reversed(pending))


def _unique_anchors(
    a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines unique on both sides, longest increasing run (patience)."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    unique = {x for x, c in count_a.items() if c == 1 and count_b.get(x) == 1}
    if not unique:
        return []
    pos_a = {x: i for i, x in enumerate(a[alo:ahi], alo) if x in unique}
    # In b order, the a positions of lines unique to both sides.
    seq = [(pos_a[x], j) for j, x in enumerate(b[blo:bhi], blo) if x in unique]
    if not seq:
        return []
    # Longest increasing subsequence on the a positions (patience sorting).
    tails: list[int] = []  # a position at the end of the best run of each length
    tail_index: list[int] = []
    back: list[int] = [-1] * len(seq)
    for k, (i, _j) in enumerate(seq):
        p = bisect_left(tails, i)
        if p == len(tails):
            tails.append(i)
            tail_index.append(k)
        else:
            tails[p] = i
            tail_index[p] = k
        back[k] = tail_index[p - 1] if p else -1
    result: list[tuple[int, int]] = []
    k = tail_index[-1]
    while k != -1:
        result.append(seq[k])
        k = back[k]
    result.reverse()
    return result


def _myers(
    a: list[int], b: list[int], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int, int]]:
    """Equal blocks of a small region by Myers' greedy O(ND) search; [] when over budget."""
    n, m = ahi - alo, bhi - blo
    # At most `common` lines can match, so at least n + m - 2 * common edits are needed, and
    # Myers' search costs about d²/2 steps for d edits: skip searches that cannot finish.
    common = sum((Counter(a[alo:ahi]) & Counter(b[blo:bhi])).values())
    least_edits = n + m - 2 * common
    if not common or least_edits * least_edits // 2 > MYERS_BUDGET:
        return []
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    work = 0
    found = False
    for d in range(n + m + 1):
        trace.append(v[offset - d : offset + d + 1] if d else [v[offset]])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[alo + x] == b[blo + y]:
                x += 1
                y += 1
                work += 1
            v[offset + k] = x
            work += 1
            if x >= n and y >= m:
                found = True
                break
        if found:
            break
        if work > MYERS_BUDGET:
            return []
    # Walk the trace back from (n, m) to collect the diagonal runs.
    blocks: list[tuple[int, int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        prev = trace[d]  # v as it was before step d
        k = x - y

        def pv(kk: int, _prev: list[int] = prev, _d: int = d) -> int:
            return _prev[kk + _d]  # trace[d] holds k = -d .. d

        if k == -d or (k != d and pv(k - 1) < pv(k + 1)):
            pk = k + 1
        else:
            pk = k - 1
        px = pv(pk)
        py = px - pk
        # The snake from the end of the edit to (x, y).
        sx = px if pk == k + 1 else px + 1
        sy = sx - k
        if x > sx:
            blocks.append((alo + sx, blo + sy, x - sx))
        x, y = px, py
    if x > 0:
        blocks.append((alo, blo, x))
    blocks.reverse()
    return blocks


def _ops_from_matches(matches: list[tuple[int, int, int]], n: int, m: int) -> list[Op]:
    """Turn ordered equal blocks into merged opcodes covering both sequences."""
    ops: list[Op] = []
    i = j = 0

    def add(tag: Tag, i1: int, i2: int, j1: int, j2: int) -> None:
        if ops and ops[-1].tag == tag and ops[-1].i2 == i1 and ops[-1].j2 == j1:
            last = ops.pop()
            ops.append(Op(tag, last.i1, i2, last.j1, j2))
        else:
            ops.append(Op(tag, i1, i2, j1, j2))

    for mi, mj, size in matches:
        if size <= 0:
            continue
        if i < mi or j < mj:
            add(_change_tag(mi - i, mj - j), i, mi, j, mj)
        add("equal", mi, mi + size, mj, mj + size)
        i, j = mi + size, mj + size
    if i < n or j < m:
        add(_change_tag(n - i, m - j), i, n, j, m)
    return ops


def _change_tag(removed: int, added: int) -> Tag:
    if removed and added:
        return "replace"
    return "delete" if removed else "insert"


# --------------------------------------------------------------------------- hunks and stats


def make_hunks(ops: Sequence[Op], context: int = 3) -> list[Hunk]:
    """Group opcodes into hunks with `context` equal lines around each change."""
    hunks: list[Hunk] = []
    group: list[Op] = []
    for op in ops:
        if op.tag != "equal":
            group.append(op)
            continue
        size = op.i2 - op.i1
        if not group:
            # Leading context of the first change: only the tail matters.
            if size > context:
                op = Op("equal", op.i2 - context, op.i2, op.j2 - context, op.j2)
            if context:
                group.append(op)
            continue
        if size > 2 * context:
            if context:
                group.append(Op("equal", op.i1, op.i1 + context, op.j1, op.j1 + context))
            _close(group, hunks, context)
            group = []
            if context:
                group.append(Op("equal", op.i2 - context, op.i2, op.j2 - context, op.j2))
        else:
            group.append(op)
    _close(group, hunks, context)
    return hunks


def _close(group: list[Op], hunks: list[Hunk], context: int) -> None:
    """Make a hunk of `group` unless it holds no change; trailing context is cut to size."""
    if not any(op.tag != "equal" for op in group):
        return
    last = group[-1]
    if last.tag == "equal" and last.i2 - last.i1 > context:
        group[-1] = last = Op("equal", last.i1, last.i1 + context, last.j1, last.j1 + context)
    first = group[0]
    hunks.append(
        Hunk(first.i1, last.i2 - first.i1, first.j1, last.j2 - first.j1, tuple(group))
    )


def ops_stats(ops: Sequence[Op]) -> DiffStats:
    """Lines added and removed by these opcodes."""
    added = removed = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return DiffStats(added, removed)


def diff_stats(before: bytes | None, after: bytes | None) -> DiffStats | None:
    """+/- line counts between two file contents; None where either side is binary."""
    old, new = decode_text(before), decode_text(after)
    if (before is not None and old is None) or (after is not None and new is None):
        return None
    return ops_stats(_text_ops(old or "", new or "")[2])


# --------------------------------------------------------------------------- text handling


def decode_text(data: bytes | None) -> str | None:
    """The text of `data`, or None when it is absent, binary (NUL bytes) or not UTF-8."""
    if data is None or b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[1:] if text.startswith("\ufeff") else text


def split_lines(text: str) -> list[str]:
    """Lines without their "\\n"; a "\\r" stays, so CRLF↔LF changes show as changes.

    Only "\\n" ends a line, as for git (str.splitlines also splits on \\f, \\x1c, U+2028 …).
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


# Control characters shown as their Unicode "control pictures" (␀ ␛ ␍ …), DEL as ␡, C1
# controls and bidirectional overrides (the "Trojan source" ones) as �: never interpreted.
_CONTROL_MAP: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c != 0x09}
_CONTROL_MAP[0x7F] = "\u2421"
_CONTROL_MAP.update({c: "\ufffd" for c in range(0x80, 0xA0)})
_CONTROL_MAP.update({c: "\ufffd" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})
_NEEDS_SANITIZING = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def display_line(line: str, tab_size: int = 4, strip_cr: bool = False) -> str:
    """A line as it may be shown in a terminal: tabs expanded, control characters visible.

    strip_cr drops a final "\r" (the file's CRLF convention) instead of showing it as ␍.
    """
    if strip_cr and line.endswith("\r"):
        line = line[:-1]
    if "\t" in line:
        line = line.expandtabs(tab_size)
    if _NEEDS_SANITIZING.search(line):
        line = line.translate(_CONTROL_MAP)
    return line


@dataclass(frozen=True)
class BlobSummary:
    """What is shown instead of a diff for binary content: size and sha256, or absent."""

    size: int | None
    sha256: str | None

    @classmethod
    def of(cls, data: bytes | None) -> BlobSummary:
        if data is None:
            return cls(None, None)
        return cls(len(data), hashlib.sha256(data).hexdigest())

    def describe(self) -> str:
        if self.size is None:
            return "absent"
        return f"{self.size:,} bytes  sha256 {self.sha256}"


# --------------------------------------------------------------------------- intra-line changes

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
    limit = min(len(old), len(new))
    p = 0
    while p < limit and old[p] == new[p]:
        p += 1
    s = 0
    while s < limit - p and old[-1 - s] == new[-1 - s]:
        s += 1
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


# --------------------------------------------------------------------------- the row model

RowKind = Literal["@", " ", "-", "+", "~"]


class Row(NamedTuple):
    """One screen row of a diff. Indexes are 0-based line indexes, -1 where a side is empty.

    kind: "@" hunk header, " " context, "-" removed, "+" added, "~" a removed and an added
    line side by side (split view only). `pair` is the index of the line on the other side
    this one is paired with for intra-line highlighting, else -1: for "-" a new index, for
    "+" an old index, for "~" the new index when `pair_lines` paired the two lines (else the
    two merely share a row).
    """

    kind: RowKind
    old: int
    new: int
    hunk: int
    pair: int = -1


@dataclass
class FileDiff:
    """Everything a diff view needs for one file, computed off the UI thread.

    Build it with `prepare_file_diff`. Row lists for the unified and side-by-side layouts are
    computed on first use (linear in the number of changed lines plus context).
    """

    path: str
    before: BlobSummary
    after: BlobSummary
    binary: bool
    old_lines: list[str]
    new_lines: list[str]
    ops: list[Op]
    hunks: list[Hunk]
    stats: DiffStats | None
    #: Whether most lines of each side end in CRLF: when both do, a view can hide the "\r".
    old_crlf: bool = False
    new_crlf: bool = False
    #: Whether each side ends with a newline (an empty side counts as ending with one).
    final_newline: tuple[bool, bool] = (True, True)

    @property
    def final_newline_note(self) -> str:
        """"" or what happened to the newline at the end of the file, for the last hunk."""
        old, new = self.final_newline
        if old == new or not self.old_lines or not self.new_lines:
            return ""
        return "newline at end of file added" if new else "no newline at end of file"
    pairs: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _hunk_rows: dict[bool, list[int]] = field(default_factory=dict, repr=False)

    @property
    def identical(self) -> bool:
        return not self.binary and not self.hunks

    @cached_property
    def old_changed(self) -> bytearray:
        """1 for each old line that was removed or replaced."""
        flags = bytearray(len(self.old_lines))
        for tag, i1, i2, _j1, _j2 in self.ops:
            if tag != "equal":
                flags[i1:i2] = b"\1" * (i2 - i1)
        return flags

    @cached_property
    def new_changed(self) -> bytearray:
        """1 for each new line that was added or replaced."""
        flags = bytearray(len(self.new_lines))
        for tag, _i1, _i2, j1, j2 in self.ops:
            if tag != "equal":
                flags[j1:j2] = b"\1" * (j2 - j1)
        return flags

    def _pairs_of(self, op: Op) -> list[tuple[int, int]]:
        key = op.i1 * (len(self.new_lines) + 1) + op.j1
        pairs = self.pairs.get(key)
        if pairs is None:
            pairs = pair_lines(self.old_lines[op.i1 : op.i2], self.new_lines[op.j1 : op.j2])
            self.pairs[key] = pairs
        return pairs

    @cached_property
    def unified_rows(self) -> list[Row]:
        """Rows of the unified layout: a header per hunk, context, removed then added lines."""
        rows: list[Row] = []
        append = rows.append
        for h, hunk in enumerate(self.hunks):
            append(Row("@", hunk.old_start, hunk.new_start, h))
            for op in hunk.ops:
                tag, i1, i2, j1, j2 = op
                if tag == "equal":
                    for k in range(i2 - i1):
                        append(Row(" ", i1 + k, j1 + k, h))
                    continue
                partner_of_old: dict[int, int] = {}
                partner_of_new: dict[int, int] = {}
                if tag == "replace":
                    for pi, pj in self._pairs_of(op):
                        partner_of_old[i1 + pi] = j1 + pj
                        partner_of_new[j1 + pj] = i1 + pi
                for i in range(i1, i2):
                    append(Row("-", i, -1, h, partner_of_old.get(i, -1)))
                for j in range(j1, j2):
                    append(Row("+", -1, j, h, partner_of_new.get(j, -1)))
        return rows

    @cached_property
    def split_rows(self) -> list[Row]:
        """Rows of the side-by-side layout: paired lines share a row, others face a gap."""
        rows: list[Row] = []
        append = rows.append
        for h, hunk in enumerate(self.hunks):
            append(Row("@", hunk.old_start, hunk.new_start, h))
            for op in hunk.ops:
                tag, i1, i2, j1, j2 = op
                if tag == "equal":
                    for k in range(i2 - i1):
                        append(Row(" ", i1 + k, j1 + k, h))
                    continue
                i, j = i1, j1
                pairs = self._pairs_of(op) if tag == "replace" else []
                for pi, pj in (*pairs, (i2 - i1, j2 - j1)):
                    pi += i1
                    pj += j1
                    # Unpaired lines before the pair: side by side without highlighting.
                    while i < pi and j < pj:
                        append(Row("~", i, j, h))
                        i += 1
                        j += 1
                    while i < pi:
                        append(Row("-", i, -1, h))
                        i += 1
                    while j < pj:
                        append(Row("+", -1, j, h))
                        j += 1
                    if pi < i2 and pj < j2:
                        append(Row("~", pi, pj, h, pj))
                        i, j = pi + 1, pj + 1
        return rows

    def hunk_rows(self, split: bool) -> list[int]:
        """Row numbers of the hunk headers in the unified or split layout."""
        cached = self._hunk_rows.get(split)
        if cached is None:
            rows = self.split_rows if split else self.unified_rows
            cached = self._hunk_rows[split] = [y for y, row in enumerate(rows) if row.kind == "@"]
        return cached

    def hunk_lines(self, side: Literal["old", "new"]) -> list[int]:
        """For the whole-file views: the first changed line of each hunk on one side."""
        result = []
        for hunk in self.hunks:
            for op in hunk.ops:
                if op.tag != "equal":
                    result.append(op.i1 if side == "old" else op.j1)
                    break
        return result


def prepare_file_diff(
    path: str, before: bytes | None, after: bytes | None, context: int = 3
) -> FileDiff:
    """Decode, diff and group two contents of one file. Pure and thread-safe: call it from a
    worker for big files, then hand the result to the view."""
    old_text, new_text = decode_text(before), decode_text(after)
    binary = (before is not None and old_text is None) or (after is not None and new_text is None)
    summary_before, summary_after = BlobSummary.of(before), BlobSummary.of(after)
    if binary:
        return FileDiff(path, summary_before, summary_after, True, [], [], [], [], None)
    old_text, new_text = old_text or "", new_text or ""
    old_lines, new_lines, ops = _text_ops(old_text, new_text)
    old_eol, new_eol = _ends_with_newline(old_text), _ends_with_newline(new_text)
    hunks = make_hunks(ops, context)
    return FileDiff(
        path,
        summary_before,
        summary_after,
        False,
        old_lines,
        new_lines,
        ops,
        hunks,
        ops_stats(ops),
        old_crlf=_mostly_crlf(old_text),
        new_crlf=_mostly_crlf(new_text),
        final_newline=(old_eol, new_eol),
    )


def _text_ops(old_text: str, new_text: str) -> tuple[list[str], list[str], list[Op]]:
    """Lines of both texts and the opcodes between them, a changed final newline included."""
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    old_eol, new_eol = _ends_with_newline(old_text), _ends_with_newline(new_text)
    if old_eol == new_eol or not old_lines or not new_lines:
        return old_lines, new_lines, diff_lines(old_lines, new_lines)
    # Only the final newline differs on the last line: compare it with a marker (NUL cannot
    # occur in decoded text) so that it shows as a change, as git shows it.
    old_cmp, new_cmp = list(old_lines), list(new_lines)
    if not old_eol:
        old_cmp[-1] += "\0"
    else:
        new_cmp[-1] += "\0"
    return old_lines, new_lines, diff_lines(old_cmp, new_cmp)


def _ends_with_newline(text: str) -> bool:
    return not text or text.endswith("\n")


def _mostly_crlf(text: str) -> bool:
    return text.count("\r\n") * 2 > text.count("\n")
