"""How long a new session takes to show in the sessions pane while following, for every source
that follows changes: the agent's first line is written the way the agent writes it (a real
tool's file copied into a real tool's home, rows inserted into OpenCode's database, a session
started in memtui's store), and the clock runs until the row is listed. The follower's own
timer does the looking: nothing is driven by the test."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Callable

from pilot_support import settle
from memtui.ui.widgets.sessions_table import SessionsTable

LIVE = Path(__file__).resolve().parent.parent / "fixtures" / "live"


def _first_line_only(src: Path, dest: Path) -> None:
    """A transcript as it is a moment after the agent started it: its first line."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    dest.write_text("".join(lines[:1]), encoding="utf-8")


def claude_code(tmp: Path) -> tuple[Path, Callable[[], str]]:
    base = LIVE / "claude-code-2.1.332"
    home = shutil.copytree(base / "resume" / "home" / ".claude", tmp / ".claude")
    [src] = (base / "create-edit" / "home" / ".claude" / "projects").glob("*/*.jsonl")

    def start() -> str:
        _first_line_only(src, home / "projects" / src.parent.name / src.name)
        return src.stem
    return home, start


def codex(tmp: Path) -> tuple[Path, Callable[[], str]]:
    base = LIVE / "codex-0.171.0"
    home = shutil.copytree(base / "resume" / "home" / ".codex", tmp / ".codex")
    [src] = (base / "create-edit" / "home" / ".codex" / "sessions").rglob("rollout-*.jsonl")

    def start() -> str:
        _first_line_only(src, home / "sessions" / "2027" / "01" / "02" / src.name)
        return src.stem[-36:]
    return home, start


def gemini_cli(tmp: Path) -> tuple[Path, Callable[[], str]]:
    base = LIVE / "gemini-cli-0.61.0"
    home = shutil.copytree(base / "resume" / "home" / ".gemini", tmp / ".gemini")
    [src] = (base / "create-edit" / "home" / ".gemini" / "tmp").glob("*/chats/*.jsonl")

    def start() -> str:
        _first_line_only(src, home / "tmp" / src.parent.parent.name / "chats" / src.name)
        return json.loads(src.read_text(encoding="utf-8").splitlines()[0])["sessionId"]
    return home, start


def opencode(tmp: Path) -> tuple[Path, Callable[[], str]]:
    base = LIVE / "opencode-1.18.33"
    share = shutil.copytree(base / "resume" / "home" / ".local" / "share" / "opencode", tmp / "opencode")
    other = shutil.copytree(base / "create-edit" / "home" / ".local" / "share" / "opencode", tmp / "other") / "opencode.db"

    def start() -> str:
        with sqlite3.connect(share / "opencode.db") as db:
            db.execute("ATTACH DATABASE ? AS other", (str(other),))
            for table in ("project", "session", "message", "part"):
                db.execute(f"INSERT OR IGNORE INTO main.{table} SELECT * FROM other.{table}")
            [(sid,)] = db.execute("SELECT id FROM other.session").fetchall()
        return sid
    return share, start


async def seconds_until_listed(app, start: Callable[[], str]) -> float:
    """Start a session (start() → its id), then the seconds until its row is listed."""
    table = app.screen.query_one(SessionsTable)
    await asyncio.sleep(0.6)  # past the first look's baseline
    began = time.monotonic()
    wanted = start()
    assert wanted not in {str(getattr(r, "id", "")) for r in table.records}
    while time.monotonic() - began < 10:
        if wanted in {str(getattr(r, "id", "")) for r in table.records}:
            return time.monotonic() - began
        await asyncio.sleep(0.01)
    return float("inf")


async def measure(app, start: Callable[[], str]) -> float:
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        return await seconds_until_listed(app, start)
