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
