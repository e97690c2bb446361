"""The row model a diff view draws: unified and side-by-side rows over one file's diff."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Literal, NamedTuple

from memtui.core.diff.inline import pair_lines
from memtui.core.diff.lines import DiffStats, Hunk, Op, diff_lines, make_hunks, ops_stats, unified_text
from memtui.core.diff.text import BlobSummary, decode_text, split_lines

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

    def _layout(self, changed: Callable[[Callable[[Row], None], Op, int], None]) -> list[Row]:
        """A header per hunk and its context rows; `changed(append, op, hunk)` lays out each change."""
        rows: list[Row] = []
        append = rows.append
        for h, hunk in enumerate(self.hunks):
            append(Row("@", hunk.old_start, hunk.new_start, h))
            for op in hunk.ops:
                if op.tag == "equal":
                    for k in range(op.i2 - op.i1):
                        append(Row(" ", op.i1 + k, op.j1 + k, h))
                else:
                    changed(append, op, h)
        return rows

    @cached_property
    def unified_rows(self) -> list[Row]:
        """Rows of the unified layout: a header per hunk, context, removed then added lines."""
        return self._layout(self._unified_change)

    def _unified_change(self, append: Callable[[Row], None], op: Op, h: int) -> None:
        tag, i1, i2, j1, j2 = op
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

    def unified_lines(self) -> list[str]:
        """The diff as `diff -u` prints its hunks: "@@" headers, then " ", "-" and "+" lines.

        Lines are the files' own text, not sanitised: whoever shows them makes them safe.
        """
        lines: list[str] = []
        for row in self.unified_rows:
            if row.kind == "@":
                lines.append(self.hunks[row.hunk].header)
            elif row.kind == "-":
                lines.append("-" + self.old_lines[row.old])
            elif row.kind == "+":
                lines.append("+" + self.new_lines[row.new])
            else:
                lines.append(" " + self.old_lines[row.old])
        return lines

    @cached_property
    def split_rows(self) -> list[Row]:
        """Rows of the side-by-side layout: paired lines share a row, others face a gap."""
        return self._layout(self._split_change)

    def _split_change(self, append: Callable[[Row], None], op: Op, h: int) -> None:
        tag, i1, i2, j1, j2 = op
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

def diff_stats(before: bytes | None, after: bytes | None) -> DiffStats | None:
    """+/- line counts between two file contents; None where either side is binary."""
    old, new = decode_text(before), decode_text(after)
    if (before is not None and old is None) or (after is not None and new is None):
        return None
    return ops_stats(_text_ops(old or "", new or "")[2])


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


def unified_diff(before: bytes | None, after: bytes | None, path: str) -> str:
    """The unified diff of one file change, with a/ b/ names (/dev/null for an absent side);
    binary or undecodable content is one line saying so."""
    old_name = "/dev/null" if before is None else f"a/{path.lstrip('/')}"  # /abs/p: a/abs/p, as git writes it
    new_name = "/dev/null" if after is None else f"b/{path.lstrip('/')}"
    old_text = "" if before is None else decode_text(before)
    new_text = "" if after is None else decode_text(after)
    if old_text is None or new_text is None:
        return f"Binary files {old_name} and {new_name} differ\n" if before != after else ""
    return unified_text(split_lines(old_text), split_lines(new_text), old_name, new_name)
