"""What a Claude Code, Codex or JSONL session's status says. Their transcripts record no end of a
session (a session can always be resumed), so "closed" was a guess shown for every session —
also for one a running agent has open. A status is said only where a file tells: Claude Code
registers each running process in `sessions/<pid>.json` (its session id); a session named
there by a live process is "open", and once such a registry exists, one it does not name is
"closed". Without one — older Claude Code, every Codex home, JSONL stores — it is "unknown"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from real_support import real_home
from sources_support import copy_fixture

from memtui.core.resolve import open_source

SPOTTER = ("258c7280-ae70-4798-800f-63464d01a85d", "ae4a77f8-aedd-4bc1-888f-c94edc91af04")


def _statuses(path: Path, kind: str) -> dict[str, str]:
    with open_source(path, kind) as source:
        return {str(s.id): s.status for s in source.sessions()}


def _gone_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _register(home: Path, pid: int, session: str) -> None:
    (home / "sessions").mkdir(exist_ok=True)
    (home / "sessions" / f"{pid}.json").write_text(json.dumps(
        {"pid": pid, "sessionId": session, "cwd": "/home/USER/projects/spotter", "startedAt": 1770000000000}))


def test_a_claude_home_without_a_process_registry_says_unknown(tmp_path: Path) -> None:
    home = real_home("claude-2.1.39-spotter", tmp_path)
    assert _statuses(home, "claude-code") == {s: "unknown" for s in SPOTTER}


def test_a_session_a_running_claude_registered_is_open_the_others_closed(tmp_path: Path) -> None:
    home = real_home("claude-2.1.39-spotter", tmp_path)
    _register(home, os.getpid(), SPOTTER[0])  # a live process has the first one open
    _register(home, _gone_pid(), SPOTTER[1])  # the second one's process has ended
    assert _statuses(home, "claude-code") == {SPOTTER[0]: "open", SPOTTER[1]: "closed"}


def test_codex_and_jsonl_sessions_are_unknown(tmp_path: Path) -> None:
    codex = real_home("codex-0.66.0-agtrace", tmp_path)
    assert set(_statuses(codex, "codex").values()) == {"unknown"}
    jsonl = copy_fixture("jsonl_store", tmp_path / "jsonl")
    assert set(_statuses(jsonl, "jsonl-sessions").values()) == {"unknown"}


def test_a_registry_naming_no_process_one_can_ask_about_says_closed(tmp_path: Path) -> None:
    """A registry file whose pid is out of range, of the wrong type, or 0 / -1 (which name a
    process group, not a process): the sessions are listed, "closed", without a traceback."""
    home = real_home("claude-2.1.39-spotter", tmp_path)
    (home / "sessions").mkdir()
    for n, pid in enumerate([2**31, 2**70, [1], {"a": 1}, -1, 0, "x", None, True]):
        (home / "sessions" / f"{n + 10**7}.json").write_text(json.dumps({"pid": pid, "sessionId": SPOTTER[0]}))
    (home / "sessions" / "-1.json").write_text(json.dumps({"sessionId": SPOTTER[1]}))
    assert _statuses(home, "claude-code") == {s: "closed" for s in SPOTTER}
