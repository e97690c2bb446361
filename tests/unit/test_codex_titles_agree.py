"""One title rule for a Codex thread: `memtui cleanup` names each session as `memtui log` (and
the app) do — the name Codex gave it (session_index.jsonl, else state_*.sqlite), else its first
prompt as the reader finds it. Cleanup took a user message of injected instructions for the
prompt where the rollout also had the user_message event, and ignored the database's names."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from memtui.cli import main
from real_support import real_home

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live" / "codex-0.171.0"


def _titles(capsys, *argv) -> dict[str, str]:
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return {s["id"]: s["title"] for s in report["sessions"]}


def _agree(home: Path, capsys) -> dict[str, str]:
    shown = _titles(capsys, "log", str(home))
    assert shown
    assert _titles(capsys, "cleanup", str(home), "--dry-run") == shown
    return shown


@pytest.mark.parametrize("name", ["codex-0.66.0-agtrace", "codex-0.104-localpush"])
def test_cleanup_titles_real_rollouts_as_log_does(name, tmp_path, capsys):
    _agree(real_home(name, tmp_path), capsys)


@pytest.mark.parametrize("scenario", sorted(p.name for p in LIVE.iterdir()) if LIVE.is_dir() else [])
def test_cleanup_titles_codex_0_171_sessions_as_log_does(scenario, tmp_path, capsys):
    home = shutil.copytree(LIVE / scenario / "home" / ".codex", tmp_path / ".codex")
    _agree(home, capsys)


def test_a_name_only_codex_state_database_holds_is_the_title_in_both(tmp_path, capsys):
    home = real_home("codex-0.66.0-agtrace", tmp_path)
    (thread,) = _titles(capsys, "log", str(home))
    with sqlite3.connect(home / "state_5.sqlite") as db:
        db.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT)")
        db.execute("INSERT INTO threads VALUES (?, 'Named in the app')", (thread,))
    assert _agree(home, capsys) == {thread: "Named in the app"}
