"""memtui.core.diff: line diffs, hunks, stats, binary detection, intra-line changes, rows."""

from __future__ import annotations

import difflib
import hashlib
import random
import sysconfig
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.diff import (
    DiffStats,
    Op,
    decode_text,
    diff_lines,
    diff_stats,
    display_line,
    inline_changes,
    make_hunks,
    ops_stats,
    pair_lines,
    prepare_file_diff,
    split_lines,
)

STDLIB = Path(sysconfig.get_paths()["stdlib"])  # real source files to diff


def apply_ops(a: list[str], b: list[str], ops: list[Op]) -> list[str]:
    """Rebuild b from a and the opcodes, checking they tile both sides and equal means equal."""
    out: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j), "opcodes must be contiguous"
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            out += a[i1:i2]
        else:
            assert tag == {(True, True): "replace", (True, False): "delete", (False, True): "insert"}[
                (i2 > i1, j2 > j1)
            ]
            out += b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    return out


def changed_lines(ops: list[Op]) -> int:
    return sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


lines_strategy = st.lists(st.sampled_from(["a", "b", "c", "d", "", "x = 1", "}"]), max_size=40)


@given(lines_strategy, lines_strategy)
@settings(max_examples=300, deadline=None)
def test_ops_rebuild_b_from_a(a: list[str], b: list[str]) -> None:
    ops = diff_lines(a, b)
    assert apply_ops(a, b, ops) == b
    # No two neighbouring opcodes share a tag: they are merged.
    assert all(x.tag != y.tag for x, y in pairwise(ops))


@given(lines_strategy, st.data())
@settings(max_examples=200, deadline=None)
def test_small_edits_give_small_diffs(a: list[str], data: st.DataObject) -> None:
    b = list(a)
    edits = data.draw(st.integers(0, 3))
    for _ in range(edits):
        if b:
            b[data.draw(st.integers(0, len(b) - 1))] = "EDITED"
    ops = diff_lines(a, b)
    assert apply_ops(a, b, ops) == b
    assert changed_lines(ops) <= 2 * edits


def test_diff_is_about_as_small_as_difflib_on_random_edits() -> None:
    rng = random.Random(7)
    ours = theirs = 0
    for _ in range(100):
        a = [rng.choice("abcdefghijklmnop") for _ in range(60)]
        b = list(a)
        for _ in range(6):
            b[rng.randrange(len(b))] = rng.choice("xyz")
        ours += changed_lines(diff_lines(a, b))
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        theirs += changed_lines([Op(*op) for op in matcher.get_opcodes()])
    assert ours <= theirs * 1.1


def test_identical_empty_and_one_sided() -> None:
    assert diff_lines([], []) == []
    assert diff_lines(["a"], ["a"]) == [Op("equal", 0, 1, 0, 1)]
    assert diff_lines([], ["a", "b"]) == [Op("insert", 0, 0, 0, 2)]
    assert diff_lines(["a", "b"], []) == [Op("delete", 0, 2, 0, 0)]


def test_a_moved_function_is_one_delete_and_one_insert_not_a_rewrite() -> None:
    head = [f"line {k}" for k in range(50)]
    func = ["def f():", "    return 1", ""]
    a = func + head
    b = head + func
    ops = diff_lines(a, b)
    assert apply_ops(a, b, ops) == b
    assert changed_lines(ops) == 6


def test_repetitive_input_with_no_unique_lines_stays_correct() -> None:
    a = ["x = 1", "", "}"] * 3000
    b = list(a)
    for k in range(0, len(b), 97):
        b[k] = "y = 2"
    ops = diff_lines(a, b)
    assert apply_ops(a, b, ops) == b
    # Chunked rather than one whole-file replacement: close to the 2 × 93 changed lines.
    assert changed_lines(ops) < 4 * 93


def test_big_replaced_block_on_real_source() -> None:
    source = (STDLIB / "textwrap.py").read_text().split("\n")
    other = (STDLIB / "argparse.py").read_text().split("\n")
    a = source + other[:3000]
    b = source[:100] + other[1000:1500] + source[600:] + other[:3000]
    ops = diff_lines(a, b)
    assert apply_ops(a, b, ops) == b


def test_hunks_have_three_lines_of_context_and_git_headers() -> None:
    a = [f"line {k}" for k in range(1, 41)]
    b = list(a)
    b[9] = "changed 10"
    b[30] = "changed 31"
    hunks = make_hunks(diff_lines(a, b))
    assert [h.header for h in hunks] == ["@@ -7,7 +7,7 @@", "@@ -28,7 +28,7 @@"]
    expected = list(difflib.unified_diff(a, b, lineterm="", n=3))
    assert [line for line in expected if line.startswith("@@")] == [h.header for h in hunks]


def test_close_changes_share_a_hunk_and_file_edges_clip_context() -> None:
    a = [str(k) for k in range(20)]
    b = list(a)
    b[0] = "first"
    b[5] = "sixth"
    b[19] = "last"
    hunks = make_hunks(diff_lines(a, b))
    assert [(h.old_start, h.old_count) for h in hunks] == [(0, 9), (16, 4)]
    assert make_hunks(diff_lines(a, a)) == []
    assert [h.header for h in make_hunks(diff_lines([], ["new"]))] == ["@@ -0,0 +1 @@"]


def test_stats_count_added_and_removed_lines() -> None:
    before = b"a\nb\nc\n"
    after = b"a\nB\nc\nd\n"
    assert diff_stats(before, after) == DiffStats(added=2, removed=1)
    assert diff_stats(None, b"x\ny\n") == DiffStats(added=2, removed=0)
    assert diff_stats(b"x\n", None) == DiffStats(added=0, removed=1)
    assert diff_stats(b"\x00\x01", b"text") is None
    assert ops_stats([]) == DiffStats(0, 0)


def test_binary_and_undecodable_content_is_detected() -> None:
    assert decode_text(None) is None
    assert decode_text(b"PNG\x00\x01") is None
    assert decode_text(b"caf\xe9") is None  # Latin-1, not UTF-8
    assert decode_text("café\n".encode()) == "café\n"
    assert decode_text(b"\xef\xbb\xbfbom") == "bom"
    blob = bytes(range(256))
    diff = prepare_file_diff("logo.png", None, blob)
    assert diff.binary and diff.stats is None and diff.hunks == []
    assert diff.before.size is None
    assert diff.after.size == 256
    assert diff.after.sha256 == hashlib.sha256(blob).hexdigest()


def test_lines_split_on_newline_only_and_keep_carriage_returns() -> None:
    assert split_lines("") == []
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\r\nb\n") == ["a\r", "b"]
    assert split_lines("form\x0cfeed\u2028x\n") == ["form\x0cfeed\u2028x"]
    # A CRLF → LF conversion is a change of every line.
    assert diff_stats(b"a\r\nb\r\n", b"a\nb\n") == DiffStats(2, 2)


def test_display_line_makes_control_characters_visible() -> None:
    assert display_line("\x1b[31mred\x1b[0m") == "\u241b[31mred\u241b[0m"
    assert display_line("a\tb") == "a   b"
    assert display_line("bell\x07 del\x7f cr\r") == "bell\u2407 del\u2421 cr\u240d"
    assert "\u202e" not in display_line("access\u202e level")
    assert display_line("[bold red]markup[/]") == "[bold red]markup[/]"


def test_inline_changes_mark_only_what_changed() -> None:
    old, new = "    return foo(a, b)", "    return foo(a, c, d)"
    spans_old, spans_new = inline_changes(old, new)
    assert [old[s:e] for s, e in spans_old] == ["b"]
    assert [new[s:e] for s, e in spans_new] == ["c, d"]
    assert inline_changes("same", "same") == ([], [])
    assert inline_changes("x = 1", "x = 12") == ([], [(5, 6)])


def test_inline_changes_give_up_on_unlike_or_huge_lines() -> None:
    assert inline_changes("import os", "class Foo(Bar):") is None
    assert inline_changes("a" * 5000, "a" * 4999 + "b") is None


def test_pairing_follows_similarity_not_position() -> None:
    old = ["    total = price * count"]
    new = ["    # apply the discount first", "    total = price * count * discount"]
    assert pair_lines(old, new) == [(0, 1)]
    assert pair_lines(["import os", "x"], ["class Foo(Bar):", "y = 2"]) == []


def test_intra_line_work_on_a_500_line_replaced_block_is_bounded() -> None:
    source = (STDLIB / "argparse.py").read_text().split("\n")
    a = source[:2000]
    b = source[:700] + [line.replace("e", "E") + " # x" for line in source[1000:1500]] + source[1200:2000]
    diff = prepare_file_diff("argparse.py", "\n".join(a).encode(), "\n".join(b).encode())
    replaced = [op for op in diff.ops if op.tag == "replace" and op.j2 - op.j1 >= 400]
    assert replaced, "the block should be one replaced region"
    rows = diff.unified_rows
    # Pairs are positional for a block this size: every pair is a single (k, k) step.
    paired = [row for row in rows if row.kind == "-" and row.pair >= 0]
    assert all(row.pair - replaced[0].j1 == row.old - replaced[0].i1 for row in paired)
    # And computing the visible part's intra-line changes is cheap and bounded per line.
    for row in paired[:48]:
        inline_changes(diff.old_lines[row.old], diff.new_lines[row.pair])


def _check_rows(diff, rows, split: bool) -> None:
    old_seen, new_seen = [], []
    for row in rows:
        if row.kind == "@":
            continue
        if row.old >= 0:
            old_seen.append(row.old)
        if row.new >= 0:
            new_seen.append(row.new)
        if split and row.kind in "-+":
            assert (row.old >= 0) != (row.new >= 0)
    # Within the hunks every line appears once, in order.
    hunk_old = [i for h in diff.hunks for i in range(h.old_start, h.old_start + h.old_count)]
    hunk_new = [j for h in diff.hunks for j in range(h.new_start, h.new_start + h.new_count)]
    assert old_seen == hunk_old
    assert new_seen == hunk_new


@given(lines_strategy, lines_strategy)
@settings(max_examples=150, deadline=None)
def test_unified_and_split_rows_cover_each_hunk_line_once(a: list[str], b: list[str]) -> None:
    diff = prepare_file_diff("f.txt", "\n".join(a).encode() if a else None, "\n".join(b).encode())
    _check_rows(diff, diff.unified_rows, split=False)
    _check_rows(diff, diff.split_rows, split=True)
    assert len(diff.hunk_rows(False)) == len(diff.hunk_rows(True)) == len(diff.hunks)


def test_whole_file_flags_mark_changed_lines() -> None:
    diff = prepare_file_diff("a.py", b"a\nb\nc\n", b"a\nB\nc\nd\n")
    assert list(diff.old_changed) == [0, 1, 0]
    assert list(diff.new_changed) == [0, 1, 0, 1]
    assert diff.hunk_lines("old") == [1]
    assert diff.hunk_lines("new") == [1]


def test_a_changed_final_newline_is_a_change() -> None:
    diff = prepare_file_diff("a.txt", b"a\nb", b"a\nb\n")
    assert diff.stats == DiffStats(1, 1)
    assert diff.final_newline_note == "newline at end of file added"
    assert diff.old_lines == diff.new_lines == ["a", "b"]
    removed = prepare_file_diff("a.txt", b"a\n", b"a")
    assert removed.final_newline_note == "no newline at end of file"
    assert prepare_file_diff("a.txt", b"", b"a").final_newline_note == ""
    assert diff_stats(b"a\nb", b"a\nb\n") == DiffStats(1, 1)


def _unmarked(text: str, spans: list[tuple[int, int]]) -> str:
    keep, pos = [], 0
    for start, end in spans:
        assert pos <= start < end <= len(text)
        keep.append(text[pos:start])
        pos = end
    return "".join(keep) + text[pos:]


@given(st.text("ab _(),.x1\t", max_size=30), st.text("ab _(),.x1\t", max_size=30))
@settings(max_examples=300, deadline=None)
def test_inline_changes_leave_the_same_text_unmarked_on_both_sides(old: str, new: str) -> None:
    result = inline_changes(old, new)
    if result is not None:
        spans_old, spans_new = result
        assert _unmarked(old, spans_old) == _unmarked(new, spans_new)
