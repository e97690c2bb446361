"""`memtui.open(PATH)`: the one library entry point, choosing the store `memtui PATH` shows
(memtui's own first, else another agent's), read-only, with one-line errors of MemtuiError."""

from __future__ import annotations

import pytest

import memtui
from memtui.cli import main
from memtui.core.errors import NotAStore, StoreNotFound

from real_support import user_home


def test_an_agent_home_opens_as_its_agents_store_and_closes(tmp_path, monkeypatch):
    home = user_home(tmp_path, monkeypatch)
    with memtui.open(home / ".claude") as claude:
        assert claude.kind == "claude-code" and claude.sessions()
    with memtui.open(home / ".codex") as codex:
        assert codex.kind == "codex" and codex.sessions()


def test_memtuis_own_store_comes_before_other_agents(tmp_path, monkeypatch, capsys):
    user_home(tmp_path, monkeypatch)
    workspace = tmp_path / "ws"
    assert main(["demo", str(workspace), "--no-open"]) == 0
    made = int(capsys.readouterr().out.split("\n")[1].split()[0])  # "  10 sessions, 18 tasks …"
    with memtui.open(workspace) as source:
        assert source.kind == "memtui" and len(source.sessions()) == made
        with pytest.raises(memtui.MemtuiError, match="no task 999999"):
            source.task(999999)


def test_what_is_no_store_is_one_line_of_memtui_error(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(NotAStore, match="is not a SQLite database or a transcript"):
        memtui.open(tmp_path / "notes.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreNotFound, match="no memtui store and no other agent's store in"):
        memtui.open(tmp_path / "empty")
    with pytest.raises(memtui.MemtuiError, match="missing does not exist"):
        memtui.open(tmp_path / "missing")


def test_a_core_function_another_agents_store_cannot_serve_says_so_in_one_line(tmp_path, monkeypatch):
    """plan_gc, apply_gc, db_stats and vacuum on a Claude Code store: Unsupported naming the
    store and what to do instead (an AttributeError from deep inside before), nothing written."""
    from memtui.core.gc import apply_gc, plan_gc
    from memtui.core.memory_source import Unsupported
    from memtui.core.stats import db_stats
    from memtui.core.vacuum import incremental_vacuum, vacuum, wal_checkpoint

    home = user_home(tmp_path, monkeypatch)
    before = sorted((p, p.stat().st_mtime_ns) for p in home.rglob("*"))
    with memtui.open(home / ".claude") as claude:
        for call in (plan_gc, apply_gc, db_stats, vacuum, incremental_vacuum, wal_checkpoint):
            # db_stats also names the agents' SQLite files it reads (a Claude Code home keeps none).
            instead = "it keeps no SQLite file to measure" if call is db_stats else "it works on memtui's own store"
            with pytest.raises(Unsupported, match=rf"^the Claude Code store at .* can't .*: {instead}"):
                call(claude)
    assert sorted((p, p.stat().st_mtime_ns) for p in home.rglob("*")) == before
