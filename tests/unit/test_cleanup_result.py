"""What `memtui cleanup --archive` prints once done: each session it archived, by the id
`memtui restore --session` takes. Without a terminal (or with --yes) no plan is shown first,
and the result said only "archived 2 sessions": which ones, and so how to put one back, was
nowhere."""

from __future__ import annotations

import os
import re

from memtui.cli import main

from real_support import real_home


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_archive_result_names_each_session_it_archived(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    home = real_home("claude-2.1.38-spotter-small", tmp_path)
    for p in home.rglob("*.jsonl"):
        os.utime(p, (1_770_000_000, 1_770_000_000))
    before = {p.stem for p in home.glob("projects/*/*.jsonl")}
    code, out, err = _run(capsys, "cleanup", str(home), "--archive", "--keep-last", "1", "--keep-days", "0", "--yes")
    assert code == 0, err
    gone = before - {p.stem for p in home.glob("projects/*/*.jsonl")}
    assert len(gone) == 2
    named = set(re.findall(r"^  archived ([0-9a-f-]{36})  \S", out, re.M))
    assert named == gone, out
    first = sorted(gone)[0]
    code, out, err = _run(capsys, "restore", "--session", first)
    assert code == 0, err
    assert first in {p.stem for p in home.glob("projects/*/*.jsonl")}


def test_a_long_session_title_is_cut_with_a_mark(tmp_path):
    """The cleanup plan's titles were cut at 120 characters mid-word with nothing to say so
    ("… find available subtasks. Star"): the cleanup screen's Why pane shows them whole."""
    from memtui.core.homes import take_inventory

    home = real_home("claude-2.1.39-spotter", tmp_path)
    titles = {s.id: s.title for s in take_inventory(home, "claude-code").sessions}
    long = titles["ae4a77f8-aedd-4bc1-888f-c94edc91af04"]
    assert len(long) == 120 and long.endswith("…"), long
    assert titles["258c7280-ae70-4798-800f-63464d01a85d"] == "Implement spotter-gqc"  # short ones whole
