"""The statistics screen (`s`) for the agents memtui reads beside its own store, on files the real
CLIs wrote: OpenCode's opencode.db, the Cline CLI 3.x's sessions.db and a Codex home's *.sqlite are
measured read-only
(pages, freelist and rows agree with SQLite's own count, nothing written); Gemini CLI and Aider
keep no SQLite file, so the app offers no Stats and `s` says why."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from memtui.core.memory_source import Capability
from memtui.ui.app import make_app
from memtui.ui.screens.stats import StatsScreen
from memtui.ui.widgets.stats_table import StatsTable

from .live_support import LIVE, fingerprint


def independent(db: Path, tables: tuple[str, ...]) -> tuple[int, int, dict[str, int]]:
    """page_count, freelist_count and row counts by SQLite itself (the file opened immutable)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        rows = {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()
    return pages, free, rows


def scratch(monkeypatch, tmp_path: Path) -> None:
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))


async def open_stats(folder: Path, shown) -> tuple[str, object, list[str], dict[str, int]]:
    """The footer before `s`, the screen `s` opened, the notes and screen text after, and the
    row counts the tables pane lists (if it opened)."""
    from pilot_support import settle

    app = make_app(folder)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        footer = shown(app).splitlines()[-1]
        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(str(message))  # what a toast would say
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        listed = ({r.name: r.rows for r in screen.query_one(StatsTable).records if r.kind == "table"}
                  if isinstance(screen, StatsScreen) else {})
        return footer, screen, notes + [shown(app)], listed


@pytest.mark.parametrize(("fixture", "data", "db", "tables"), [
    ("opencode-1.18.33/subagent", ".local/share/opencode", "opencode.db", ("session", "message", "part")),
    ("cline-3.0.65/create-edit", ".cline/data", "db/sessions.db", ("sessions",)),
    ("codex-0.171.0/create-edit", ".codex", "state_5.sqlite", ("threads",)),  # one of several: named by file
], ids=["opencode", "cline-cli-3", "codex"])
async def test_the_stats_screen_measures_the_agents_database(fixture, data, db, tables, tmp_path, monkeypatch,
                                                             shown) -> None:
    scratch(monkeypatch, tmp_path)
    folder = tmp_path / "data"
    shutil.copytree(LIVE / fixture / "home" / data, folder)
    with sqlite3.connect(folder / db) as conn:  # a deleted row leaves free pages to count
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute(f'DELETE FROM "{tables[0]}" WHERE rowid = (SELECT max(rowid) FROM "{tables[0]}")')
    conn.close()
    pages, free, rows = independent(folder / db, tables)
    if data == ".codex":  # every *.sqlite of the home, their pages summed
        each = [independent(f, ()) for f in sorted(folder.glob("*.sqlite")) if f.name != db]
        pages, free = pages + sum(e[0] for e in each), free + sum(e[1] for e in each)
    before = fingerprint(folder)
    footer, screen, (*notes, text), listed = await open_stats(folder, shown)
    assert "Stats" in footer
    assert isinstance(screen, StatsScreen) and screen.stats is not None, notes
    assert Path(db).name in text.splitlines()[0] + text  # the title names the file measured
    assert f"pages       {pages:,} ×" in text and f"freelist    {free:,} pages" in text
    prefix = "" if data != ".codex" else f"{Path(db).stem} · "
    assert {t: listed[prefix + t] for t in tables} == rows
    assert "VACUUM" not in text.splitlines()[-1]  # measured, never written: no vacuum keys
    # memtui's contents figures are its own store's: no "stored / raw  0.0%" bar for this file.
    assert "stored / raw" not in text and "contents" not in text
    assert fingerprint(folder) == before


@pytest.mark.parametrize("agent", ["gemini-cli", "aider"])
async def test_an_agent_without_a_database_offers_no_stats_and_says_why(agent, tmp_path, monkeypatch,
                                                                        shown) -> None:
    scratch(monkeypatch, tmp_path)
    if agent == "gemini-cli":
        folder = tmp_path / "gemini"
        shutil.copytree(LIVE / "gemini-cli-0.61.0" / "create-edit" / "home" / ".gemini", folder)
    else:
        folder = tmp_path / "repo"
        shutil.copytree(LIVE / "aider-0.86.2" / "create-edit" / "workspace", folder)
    from memtui.core.resolve import resolve

    with resolve(folder) as resolved:
        assert resolved.kind == agent
        assert not resolved.source.can(Capability.SQLITE_STATS) and not resolved.source.can(Capability.STATS)
    footer, screen, notes, _ = await open_stats(folder, shown)
    assert "Stats" not in footer and not isinstance(screen, StatsScreen)
    assert any("keeps no SQLite file" in n for n in notes[:-1]), notes[:-1]
