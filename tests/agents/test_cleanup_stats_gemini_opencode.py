"""Cleaning up a Gemini CLI home (a chat file per session) made of the real CLI's chats: the
inventory titles each session by its first prompt, an old chat is archived and restored byte for
byte, and nothing else of the home is touched. OpenCode keeps every session in one database: its
cleanup is refused with the reason, and `memtui stats` reads opencode.db's figures without
writing a byte."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.homes import take_inventory

from .live_support import LIVE, fingerprint, truth_of

GEMINI = sorted(p.parent for p in LIVE.glob("gemini-cli-*/*/truth.json"))
OPENCODE = sorted(p.parent for p in LIVE.glob("opencode-*/*/truth.json"))
DAY = 86400


def gemini_home(tmp: Path) -> tuple[Path, dict[str, dict]]:
    """One Gemini home holding the chats of every fixture (one project folder each); the
    create-edit chat's file made 60 days old, the others just written (live: cleanup keeps
    them). Returns the home and each session's truth by chat."""
    home = tmp / ".gemini"
    truths = {}
    for n, fixture in enumerate(GEMINI):
        source = fixture / "home" / ".gemini"
        if n == 0:
            shutil.copytree(source, home, symlinks=True)
            shutil.rmtree(home / "tmp")
        project = home / "tmp" / f"{fixture.name}"
        project.mkdir(parents=True)
        (project / ".project_root").write_text(truth_of(fixture)["workspace"])
        [chat] = (source / "tmp").glob("*/chats/session-*")
        copied = project / "chats" / chat.name
        copied.parent.mkdir()
        shutil.copy2(chat, copied)
        truths[str(copied)] = truth_of(fixture)
        when = time.time() - (60 * DAY if fixture.name == "create-edit" else 0)
        os.utime(copied, (when, when))
    return home, truths


def env(monkeypatch, tmp: Path) -> None:
    for var in ("HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(var, str(tmp / var.lower()))


@pytest.mark.skipif(not GEMINI, reason="no Gemini CLI live fixtures")
def test_the_inventory_names_every_chat_by_its_first_prompt(tmp_path):
    home, truths = gemini_home(tmp_path)
    inventory = take_inventory(home)
    assert inventory.agent == "gemini-cli" and inventory.orphans == []
    found = {str(s.files[0].path): s for s in inventory.sessions}
    assert set(found) == set(truths)
    for chat, truth in truths.items():
        session = found[chat]
        assert truth["prompts"][0].startswith(session.title.rstrip("…"))
        assert session.project == truth["workspace"]
        assert session.bytes == Path(chat).stat().st_size
        assert session.id in Path(chat).read_text().split("\n", 1)[0]  # the header's sessionId


@pytest.mark.skipif(not GEMINI, reason="no Gemini CLI live fixtures")
def test_an_old_chat_is_archived_and_restored_byte_for_byte(tmp_path, monkeypatch, capsys):
    env(monkeypatch, tmp_path)
    home, truths = gemini_home(tmp_path)
    [old] = [c for c in truths if "create-edit" in c]
    content, stat = Path(old).read_bytes(), os.stat(old)
    everything_else = {k: v for k, v in fingerprint(home).items() if Path(home / k) != Path(old)}
    args = ["cleanup", str(home), "--keep-days", "0", "--keep-last", "0"]
    assert main([*args, "--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    going = [s for s in plan["sessions"] if s["action"] != "keep"]
    assert [s["title"] for s in going] and len(going) == 1
    assert main([*args, "--archive", "--yes", "--json"]) == 0
    capsys.readouterr()
    assert not Path(old).exists()
    assert fingerprint(home) == everything_else  # projects.json, history/, the other chats: untouched
    [session_id] = [s["id"] for s in going]
    assert main(["restore", "--session", session_id]) == 0
    out = capsys.readouterr().out
    assert "sessionRetention" in out  # 60 days old: Gemini CLI would delete it again at its next start
    assert Path(old).read_bytes() == content and hashlib.sha256(content).hexdigest()
    assert os.stat(old).st_mode == stat.st_mode and os.stat(old).st_mtime_ns == stat.st_mtime_ns


def data_folder(fixture: Path) -> Path:
    return fixture / "home" / ".local" / "share" / "opencode"


@pytest.mark.skipif(not OPENCODE, reason="no OpenCode live fixtures")
def test_opencode_cleanup_is_refused_with_the_reason(tmp_path, monkeypatch, capsys):
    env(monkeypatch, tmp_path)
    folder = data_folder(OPENCODE[0])
    before = fingerprint(folder)
    assert main(["cleanup", str(folder), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "one SQLite database" in err and "\n" == err[-1] and err.count("\n") == 1
    assert fingerprint(folder) == before


@pytest.mark.skipif(not OPENCODE, reason="no OpenCode live fixtures")
@pytest.mark.parametrize("fixture", OPENCODE, ids=lambda f: f.name)
def test_opencode_stats_agree_with_sqlite_and_write_nothing(fixture, tmp_path, monkeypatch, capsys):
    env(monkeypatch, tmp_path)
    folder = data_folder(fixture)
    before = fingerprint(folder)
    assert main(["stats", str(folder), "--json"]) == 0
    [stats] = json.loads(capsys.readouterr().out)["files"]
    assert fingerprint(folder) == before and not list(folder.glob("opencode.db-*"))
    db = folder / "opencode.db"
    with sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True) as conn:  # an independent count
        rows = {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in ("session", "message", "part")}
        pages, size = conn.execute("PRAGMA page_count").fetchone()[0], conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    tables = {t["name"]: t for t in stats["tables"]}
    assert {t: tables[t]["rows"] for t in rows} == rows
    assert stats["file_bytes"] == db.stat().st_size == pages * size
    counted = sum(t["bytes"] for t in stats["tables"]) + sum(i["bytes"] for i in stats["indexes"])
    assert counted + stats["freelist_bytes"] <= stats["file_bytes"]


@pytest.mark.skipif(not OPENCODE, reason="no OpenCode live fixtures")
def test_opencode_stats_show_the_pages_a_delete_freed(tmp_path, monkeypatch, capsys):
    env(monkeypatch, tmp_path)
    folder = tmp_path / "opencode"
    shutil.copytree(data_folder(OPENCODE[-1]), folder)
    with sqlite3.connect(folder / "opencode.db") as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("DELETE FROM event")
    conn.close()
    with sqlite3.connect(f"file:{folder / 'opencode.db'}?mode=ro&immutable=1", uri=True) as conn:
        freed = conn.execute("PRAGMA freelist_count").fetchone()[0]
    conn.close()
    assert main(["stats", str(folder), "--json"]) == 0
    [stats] = json.loads(capsys.readouterr().out)["files"]
    assert freed > 0 and stats["freelist_count"] == freed
    assert next(t for t in stats["tables"] if t["name"] == "event")["rows"] == 0


CODEX = sorted(p.parent for p in LIVE.glob("codex-*/*/truth.json"))


@pytest.mark.skipif(not CODEX, reason="no Codex live fixtures")
def test_codex_stats_cover_every_sqlite_file_of_its_home(tmp_path, monkeypatch, capsys):
    """`memtui stats ~/.codex`: each SQLite file Codex keeps (state_*, logs_*, thread_history_*, …),
    its rows agreeing with SQLite's own count, nothing written."""
    env(monkeypatch, tmp_path)
    home = CODEX[0] / "home" / ".codex"
    before = fingerprint(home)
    assert main(["stats", str(home), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["files"]
    assert [Path(f["path"]).name for f in found] == sorted(p.name for p in home.glob("*.sqlite"))
    assert any(Path(f["path"]).name.startswith("state_") for f in found)
    for f in found:
        with sqlite3.connect(f"file:{f['path']}?mode=ro&immutable=1", uri=True) as conn:
            for table in f["tables"]:
                name = "sqlite_master" if table["name"] == "sqlite_schema" else table["name"]
                if table["rows"] and not name.startswith("sqlite_"):
                    assert conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] == table["rows"], name
        conn.close()
    assert fingerprint(home) == before


@pytest.mark.skipif(not any(f.name == "subagent" for f in GEMINI), reason="no Gemini CLI sub-agent fixture")
def test_a_session_takes_its_sub_agents_chats_along(tmp_path, monkeypatch, capsys):
    """A session's sub-agent chats (chats/<session id>/) are its files: archived with it and
    restored byte for byte."""
    env(monkeypatch, tmp_path)
    home = shutil.copytree(next(f for f in GEMINI if f.name == "subagent") / "home" / ".gemini", tmp_path / ".gemini")
    old = time.time() - 90 * DAY
    for chat in home.glob("tmp/*/chats/**/*.jsonl"):
        os.utime(chat, (old, old))
    before = fingerprint(home)
    [session] = take_inventory(home).sessions
    assert sorted(f.path.name for f in session.files) == sorted(p.name for p in home.glob("tmp/*/chats/**/*.jsonl"))
    assert len(session.files) == 2
    assert main(["cleanup", str(home), "--archive", "--yes", "--keep-days", "0", "--keep-last", "0"]) == 0
    assert not list(home.glob("tmp/*/chats/**/*.jsonl"))
    assert main(["restore", "--session", session.id]) == 0
    capsys.readouterr()
    assert fingerprint(home) == before


@pytest.mark.skipif(not GEMINI, reason="no Gemini CLI live fixtures")
def test_stats_of_a_store_without_sqlite_say_what_it_reads(tmp_path, monkeypatch, capsys):
    env(monkeypatch, tmp_path)
    assert main(["stats", str(GEMINI[0] / "home" / ".gemini")]) == 2
    err = capsys.readouterr().err
    assert "keeps no SQLite file" in err and "opencode.db" in err and err.count("\n") == 1
