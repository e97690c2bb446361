"""Pins of foreign sessions (Claude Code, Codex): kept in memtui's own state folder, never
in the agent's home. A pinned session is never archived or deleted by cleanup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from memtui.core.atomic import write_atomic
from memtui.core.cleanup.places import state_dir
from memtui.core.errors import MemtuiError
from memtui.core.ids import unique_start

PINS_FILE = "pins.json"


def load_pins(folder: Path | None = None) -> dict[str, set[str]]:
    """{agent: {session id, …}} from `pins.json` (empty when there is none or it is unreadable)."""
    path = Path(folder or state_dir()) / PINS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {agent: {str(i) for i in ids} for agent, ids in data.items() if isinstance(ids, list)}


def set_pinned(agent: str, session_id: str, pinned: bool, folder: Path | None = None) -> bool:
    """Pin (or unpin) one session of `agent`; returns whether it is pinned now.
    The file is replaced atomically, so a crash leaves the old pins or the new ones."""
    folder = Path(folder or state_dir())
    pins = load_pins(folder)
    ids = pins.setdefault(agent, set())
    (ids.add if pinned else ids.discard)(session_id)
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps({a: sorted(v) for a, v in sorted(pins.items()) if v}, indent=2) + "\n"
    write_atomic(folder / PINS_FILE, text.encode("utf-8"))
    return pinned


def resolve_session(given: str, known: Iterable[str], agent: str, home: Path) -> str:
    """The one id of `known` that is `given` or starts with it (`memtui cleanup` prints ids
    shortened); MemtuiError when none or several are."""
    named = unique_start(given, sorted(known), f"{agent} sessions in {home}")
    if named is None:
        raise MemtuiError(f"no {agent} session {given!r} in {home} or memtui's archive"
                          f" (`memtui log {home}` lists the session ids)")
    return named
