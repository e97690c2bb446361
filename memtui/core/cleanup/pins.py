"""Pins of foreign sessions (Claude Code, Codex): kept in memtui's own state folder, never
in the agent's home. A pinned session is never archived or deleted by cleanup.

A pins file that exists but cannot be read is an error, never "no pins": cleanup would
otherwise archive (or delete) the sessions it protects, and the next pin would replace it.
A pin is a read-modify-write under an flock on `pins.json.lock`, so a pin from the app and
one from the CLI at the same moment both land; the file itself is replaced atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from memtui.core.atomic import write_atomic
from memtui.core.places import private_folder, state_dir
from memtui.core.errors import MemtuiError
from memtui.core.file_lock import held
from memtui.core.ids import unique_start

PINS_FILE = "pins.json"


def load_pins(folder: Path | None = None) -> dict[str, set[str]]:
    """{agent: {session id, …}} from `pins.json` (empty when there is none); MemtuiError
    when the file exists but cannot be read as memtui's pins."""
    path = Path(folder or state_dir()) / PINS_FILE
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise _unreadable(path, "not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _unreadable(path, f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not all(isinstance(ids, list) for ids in data.values()):
        raise _unreadable(path, "not a map of agent to a list of session ids")
    return {str(agent): {str(i) for i in ids} for agent, ids in data.items()}


def _unreadable(path: Path, what: str) -> MemtuiError:
    return MemtuiError(f"cannot read memtui's pins {path}: {what}; fix or remove the file"
                       " (removing it unpins every session) — nothing was cleaned up or pinned")


def set_pinned(agent: str, session_id: str, pinned: bool, folder: Path | None = None) -> bool:
    """Pin (or unpin) one session of `agent`; returns whether it is pinned now.
    The file is replaced atomically, so a crash leaves the old pins or the new ones; an
    unreadable pins file is refused (MemtuiError), never replaced."""
    folder = private_folder(Path(folder or state_dir()))
    with held(folder / f"{PINS_FILE}.lock"):
        pins = load_pins(folder)
        ids = pins.setdefault(agent, set())
        (ids.add if pinned else ids.discard)(session_id)
        text = json.dumps({a: sorted(v) for a, v in sorted(pins.items()) if v}, indent=2) + "\n"
        write_atomic(folder / PINS_FILE, text.encode("utf-8"), mode=0o600)
    return pinned


def resolve_session(given: str, known: Iterable[str], agent: str, home: Path) -> str:
    """The one id of `known` that is `given` or starts with it (`memtui cleanup` prints ids
    shortened); MemtuiError when none or several are."""
    named = unique_start(given, sorted(known), f"{agent} sessions in {home}")
    if named is None:
        raise MemtuiError(f"no {agent} session {given!r} in {home} or memtui's archive"
                          f" (`memtui log {home}` lists the session ids)")
    return named
