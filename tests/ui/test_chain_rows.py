"""The loaded-at-start view draws a document with the chain that was read for it; when the file
changed on disk after the chain was read (saved shorter, say), the stale cut-off is not drawn past
the file's end — the view shows the lines, and the rule comes back when the chain is read again."""

from __future__ import annotations

from pathlib import Path

from memtui.core.memory.chain_records import ChainFile
from memtui.ui.widgets.chain_text import chain_rows


def entry(size: int, loaded: int, lines: int) -> ChainFile:
    return ChainFile(path=Path("/w/MEMORY.md"), scope="project", order=0, bytes=size, lines=lines, tokens=0,
                     loaded_bytes=loaded, loaded_lines=200, on_demand=False, reason="the first 200 lines")


def test_a_cut_past_the_end_of_a_file_saved_shorter_draws_its_lines_without_a_rule():
    data = b"".join(b"line %03d\n" % i for i in range(1, 151))  # 150 lines now; the chain saw 250
    stale = entry(size=2250, loaded=1800, lines=250)
    rows = chain_rows(data, stale, "Claude Code")
    assert [r.text for r in rows] == [f"line {i:03d}" for i in range(1, 151)]


def test_the_cut_is_drawn_where_the_agent_stops_reading():
    data = b"".join(b"line %03d\n" % i for i in range(1, 251))
    rows = chain_rows(data, entry(size=len(data), loaded=1800, lines=250), "Claude Code")
    assert rows[200].text == "Claude Code stops reading here (line 200)" and rows[199].text == "line 200"
