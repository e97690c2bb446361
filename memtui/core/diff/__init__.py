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

from memtui.core.diff.inline import (
    INLINE_MAX_CHARS,
    INLINE_MIN_SIMILARITY,
    PAIR_CELLS,
    PAIR_SIMILARITY,
    Spans,
    inline_changes,
    pair_lines,
)
from memtui.core.diff.lines import (
    CHUNK_LINES,
    MYERS_BUDGET,
    DiffStats,
    Hunk,
    Op,
    Tag,
    diff_lines,
    make_hunks,
    ops_stats,
    unified_text,
)
from memtui.core.diff.rows import FileDiff, Row, RowKind, diff_stats, prepare_file_diff, unified_diff
from memtui.core.diff.text import BlobSummary, decode_text, display_line, split_lines

__all__ = [
    "CHUNK_LINES",
    "INLINE_MAX_CHARS",
    "INLINE_MIN_SIMILARITY",
    "MYERS_BUDGET",
    "PAIR_CELLS",
    "PAIR_SIMILARITY",
    "BlobSummary",
    "DiffStats",
    "FileDiff",
    "Hunk",
    "Op",
    "Row",
    "RowKind",
    "Spans",
    "Tag",
    "decode_text",
    "diff_lines",
    "diff_stats",
    "display_line",
    "inline_changes",
    "make_hunks",
    "ops_stats",
    "pair_lines",
    "prepare_file_diff",
    "split_lines",
    "unified_diff",
    "unified_text",
]
