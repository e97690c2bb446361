"""Cleanup's guards against what is not the happy path: an unreadable pins file, a damaged
archive, file names that are not UTF-8, two cleanups at once, and the privacy of memtui's
own archive — each checked on real files through the same verbs the user runs."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.cleanup import load_pins, set_pinned
from memtui.core.cleanup.places import state_dir
from memtui.core.errors import MemtuiError
from tests.unit.cleanup_homes import build_claude_home, snapshot


@pytest.fixture
def claude(tmp_path):
    home = tmp_path / "claude"
    return home, build_claude_home(home)


def broken_pins(session_id: str) -> Path:
    """The pins file as a hand edit leaves it: a trailing comma."""
    path = state_dir() / "pins.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{\n  "claude-code": [\n    "%s",\n  ]\n}\n' % session_id)
    return path


# ---------------------------------------------------------------- A. pins
def test_an_unreadable_pins_file_stops_cleanup_instead_of_unpinning(claude, capsys):
    home, ids = claude
    old = ids["old1"]
    assert main(["pin", str(home), old]) == 0
    capsys.readouterr()
    pins = broken_pins(old)
    text = pins.read_bytes()
    before = snapshot(home)
    for verb in ("--dry-run", "--archive", "--delete"):
        assert main(["cleanup", str(home), "--keep-days", "1", "--keep-last", "0", verb]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, err  # one line, no plan that says "archive"
        assert str(pins) in err and "not valid JSON" in err and "fix or remove" in err
    assert snapshot(home) == before  # the pinned session (and every other) is still there
    assert pins.read_bytes() == text


def test_pinning_over_an_unreadable_pins_file_refuses_and_keeps_it(claude, capsys):
    home, ids = claude
    pins = broken_pins(ids["old1"])
    text = pins.read_bytes()
    assert main(["pin", str(home), ids["old2"]]) == 2
    assert str(pins) in capsys.readouterr().err
    with pytest.raises(MemtuiError, match="not valid JSON"):
        set_pinned("claude-code", ids["old2"], True)
    assert pins.read_bytes() == text  # not replaced by a file holding only the new pin


def test_pins_made_at_the_same_moment_all_land(tmp_path):
    folder = tmp_path / "state"
    ids = [f"{n:08d}" for n in range(24)]
    start = threading.Barrier(len(ids))

    def pin(session_id: str) -> None:
        start.wait()
        set_pinned("claude-code", session_id, True, folder)

    threads = [threading.Thread(target=pin, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert load_pins(folder) == {"claude-code": set(ids)}
    assert json.loads((folder / "pins.json").read_text()) == {"claude-code": ids}
    assert [p.name for p in folder.iterdir() if ".memtui-tmp" in p.name] == []
