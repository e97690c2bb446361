"""The line diff (patience with bounded fallbacks, see memtui.core.diff), hunks and stats."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import Literal, NamedTuple, Sequence

Tag = Literal["equal", "replace", "delete", "insert"]

#: Work units (inner-loop steps) a single Myers fallback may spend before it gives up.
MYERS_BUDGET = 100_000
#: Regions without unique lines bigger than this are cut into chunks of about this size.
CHUNK_LINES = 500


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


def unified_text(old: Sequence[str], new: Sequence[str], old_name: str, new_name: str, context: int = 3) -> str:
    """A unified diff of two line lists (without their newlines), as `git diff` prints one."""
    hunks = make_hunks(diff_lines(old, new), context)
    if not hunks:
        return ""
    out = [f"--- {old_name}", f"+++ {new_name}"]
    for hunk in hunks:
        out.append(hunk.header)
        for tag, i1, i2, j1, j2 in hunk.ops:
            if tag == "equal":
                out.extend(" " + line for line in old[i1:i2])
                continue
            out.extend("-" + line for line in old[i1:i2])
            out.extend("+" + line for line in new[j1:j2])
    return "\n".join(out) + "\n"
