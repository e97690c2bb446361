"""A source read by the app's workers while follow mode reloads it: every public read sees the
listing as it was before the reload or as it is after it, never half of the new one (sessions
listed but their tasks not yet, a task listed but not found).

Real files (tests/fixtures/real, PROVENANCE.md): a Claude Code home (spotter, with sub-agents
and compactions), a Codex home (agtrace + localpush rollouts). The RA.Aid database and the
JSONL session store are formats no real tool publishes samples of: their generated fixtures.
Between reloads the files are touched (same bytes, new mtime), so every reload reads them all
again — the index is rebuilt while the reader reads — and the listing stays the same: a
reader that sees anything else saw a half-built one.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

import pytest
from real_support import real_home

from memtui.core.discovery import discover
from memtui.core.agents.jsonl.source import JsonlSessionsSource
from memtui.core.agents.ra_aid.source import RaAidSource

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SWITCH_S = 1e-5
"""Threads take turns this often while hammered (Python's default, 5 ms, lets a whole rebuild of a
small store run in one turn, hiding what a reader would see in the middle of it)."""


def _view(source) -> tuple:
    """What a reader sees through the public reads: each session's tasks and their step counts."""
    sessions = source.sessions()
    view = []
    for session in sessions:
        tasks = source.tasks(session.id)
        view.append((str(session.id), session.title, session.task_count,
                     tuple((str(t.id), t.step_count, len(source.steps(t.id, 0, 3))) for t in tasks)))
    return tuple(sorted(view)), tuple(sorted(source.counts().items()))


def _touch_all(root: Path) -> None:
    """Every file gets a new mtime, its bytes unchanged: the next reload reads each again."""
    for path in root.rglob("*"):
        if path.is_file():
            st = path.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def _hammered(source, root: Path, reloads: int) -> list[str]:
    """Reload `source` `reloads` times while another thread reads it; what the reader saw that
    was neither listing (the listing never changes: the files keep their bytes)."""
    expected = _view(source)
    assert expected[0], "the fixture lists sessions"
    done = threading.Event()
    seen: list[str] = []
    reads = [0]  # reads finished while the reloads ran

    def reader() -> None:
        while not done.is_set():
            try:
                got = _view(source)
            except Exception as exc:  # noqa: BLE001 - any failure of a read is what we look for
                seen.append(f"{type(exc).__name__}: {exc}")
                continue
            if got != expected:
                seen.append(f"another listing: {got!r:.300}")
            reads[0] += not done.is_set()

    thread = threading.Thread(target=reader)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_S)
    thread.start()
    try:
        for _ in range(reloads):
            _touch_all(root)
            source.reload()
            source.sessions()
    finally:
        done.set()
        thread.join()
        sys.setswitchinterval(interval)
    assert _view(source) == expected
    assert reads[0] > 0, "the reader never read while the source reloaded: nothing was checked"
    return seen


def _claude(tmp_path: Path):
    home = real_home("claude-2.1.39-spotter", tmp_path)
    shutil.copytree(real_home("claude-2.1.38-spotter-small", tmp_path / "small") / "projects",
                    home / "projects", dirs_exist_ok=True)
    return discover(home)[0].open(), home


def _codex(tmp_path: Path):
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    day = home / "sessions" / "2026" / "02" / "23"
    shutil.copytree(real_home("codex-0.104-localpush", tmp_path / "lp") / "sessions" / "2026" / "02" / "23", day)
    return discover(home)[0].open(), home


def _ra_aid(tmp_path: Path):
    root = tmp_path / "ra"
    shutil.copytree(FIXTURES / "ra_aid_project", root)
    return RaAidSource(root / ".ra-aid"), root


def _jsonl(tmp_path: Path):
    root = tmp_path / "jsonl"
    shutil.copytree(FIXTURES / "jsonl_store", root)
    return JsonlSessionsSource(root), root


@pytest.mark.parametrize(("make", "reloads"), [(_claude, 8), (_codex, 12), (_ra_aid, 100), (_jsonl, 100)],
                         ids=["claude-code", "codex", "ra-aid", "jsonl"])
def test_a_reader_sees_the_old_listing_or_the_new_one_never_a_mix(tmp_path: Path, make, reloads: int) -> None:
    """`reloads`: the Claude Code and Codex homes are big enough that, when sources built their
    index in place, a reader met a half-built one (KeyError on a turn, a session missing) in
    every run (5 runs in 5 for each at these counts, on that code); the
    small RA.Aid and JSONL stores rebuild so fast that only a rare run catches it (kept as a
    guard at a cost of about a second)."""
    source, root = make(tmp_path)
    assert _hammered(source, root, reloads) == []
