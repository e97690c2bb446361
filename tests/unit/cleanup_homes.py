"""Fake Claude Code and Codex homes with sessions of known ages, for the cleanup tests.

Every session's records carry timestamps and its files get the matching mtime, so the
plan's decisions follow from the ages written here. NOW is the tests' clock.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

# Ages are relative to the real clock so the CLI (which reads the clock) sees them too.
NOW = datetime.now(timezone.utc).replace(microsecond=0)
DAY = timedelta(days=1)


def uid(name: str) -> str:
    """A stable UUID-shaped id for a readable name."""
    h = hashlib.sha256(name.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _write(path: Path, data: bytes | str, when: datetime, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    os.chmod(path, mode)
    ns = int(when.timestamp() * 1e9)
    os.utime(path, ns=(ns, ns))
    return path


def _jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def claude_transcript(sid: str, cwd: str, start: datetime, prompt: str, *, open_turn: bool = False, title: str | None = None) -> str:
    t = start.isoformat().replace("+00:00", "Z")
    later = (start + timedelta(minutes=5)).isoformat().replace("+00:00", "Z")
    records = [
        {"type": "user", "sessionId": sid, "cwd": cwd, "uuid": f"{sid}-1", "parentUuid": None, "timestamp": t,
         "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "sessionId": sid, "cwd": cwd, "uuid": f"{sid}-2", "parentUuid": f"{sid}-1", "timestamp": later,
         "message": {"id": "msg_1", "role": "assistant", "content": [
             {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}] if open_turn else [
             {"type": "text", "text": "Done. " + "x" * 200}]}},
    ]
    if title:
        records.append({"type": "custom-title", "customTitle": title, "sessionId": sid})
    return _jsonl(records)


def build_claude_home(home: Path, now: datetime | None = None) -> dict:
    """A Claude home: project alpha with six sessions of known ages (one live, one with an
    unfinished turn, one pinned-to-be), project beta with one, and three orphans.
    Returns {name: session id} plus "orphans": [paths]. Ages are counted back from `now`."""
    NOW = now or globals()["NOW"]  # noqa: N806 - the module's clock unless one is given
    ids = {n: uid(n) for n in ("old1", "old2", "recent", "live", "open", "pinned", "beta_old")}
    alpha, beta = home / "projects" / "-work-alpha", home / "projects" / "-work-beta"
    ages = {"old1": 60, "old2": 50, "recent": 3, "open": 40, "pinned": 70}
    for name, days in ages.items():
        when = NOW - days * DAY
        _write(alpha / f"{ids[name]}.jsonl", claude_transcript(ids[name], "/work/alpha", when, f"task {name}",
                                                             open_turn=name == "open"), when + timedelta(minutes=5))
    live_when = NOW - timedelta(minutes=2)
    _write(alpha / f"{ids['live']}.jsonl", claude_transcript(ids["live"], "/work/alpha", NOW - 40 * DAY, "task live"), live_when)
    old = NOW - 45 * DAY
    _write(beta / f"{ids['beta_old']}.jsonl", claude_transcript(ids["beta_old"], "/work/beta", old, "beta task", title="Beta title"), old)
    # old1 owns every kind of per-session file.
    s = ids["old1"]
    when = NOW - 60 * DAY
    _write(alpha / s / "subagents" / "agent-a1.jsonl", _jsonl([{"type": "user", "sessionId": s, "isSidechain": True,
                                                                 "timestamp": when.isoformat(), "message": {"role": "user", "content": "sub"}}]), when)
    _write(alpha / s / "subagents" / "agent-a1.meta.json", '{"toolUseId": "toolu_9"}', when)
    _write(alpha / s / "tool-results" / "r1.txt", "result " * 100, when, mode=0o600)
    _write(home / "file-history" / s / "0123456789abcdef@v1", "original text\n" * 50, when)
    _write(home / "file-history" / s / "0123456789abcdef@v2", "changed text\n" * 50, when, mode=0o640)
    _write(home / "todos" / f"{s}-agent-{s}.json", "[]", when)
    _write(home / "session-env" / s / "env.sh", "export A=1\n", when, mode=0o755)
    _write(home / "debug" / f"{s}.txt", "debug line\n", when)
    # Orphans: backups, a todo list and sub-agents of sessions whose transcripts are gone.
    ghost, ghost2, ghost3 = uid("ghost"), uid("ghost2"), uid("ghost3")
    orphans = [
        _write(home / "file-history" / ghost / "fedcba9876543210@v1", "gone\n", NOW - 90 * DAY).parent,
        _write(home / "todos" / f"{ghost2}-agent-{ghost2}.json", "[]", NOW - 80 * DAY),
        _write(alpha / ghost3 / "subagents" / "agent-z.jsonl", "{}\n", NOW - 2 * DAY).parent.parent,
    ]
    # Global files cleanup never touches.
    _write(home / "history.jsonl", '{"display": "hi"}\n', NOW - 100 * DAY)
    _write(home / "settings.json", "{}", NOW - 100 * DAY)
    _write(home / "tasks" / "my-team" / "1.json", "{}", NOW - 100 * DAY)
    _write(alpha / "memory" / "MEMORY.md", "# memory\n", NOW - 100 * DAY)
    return {**ids, "orphans": orphans}


def codex_rollout(tid: str, cwd: str, start: datetime, prompt: str, *, open_turn: bool = False) -> str:
    t = start.isoformat().replace("+00:00", "Z")
    records = [
        {"timestamp": t, "type": "session_meta", "payload": {"id": tid, "timestamp": t, "cwd": cwd, "cli_version": "0.50.0"}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "task_started"}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
        {"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                              "content": [{"type": "output_text", "text": "ok " * 50}]}},
    ]
    if not open_turn:
        records.append({"timestamp": t, "type": "event_msg", "payload": {"type": "task_complete"}})
    return _jsonl(records)


def build_codex_home(home: Path) -> dict:
    """A Codex home: an old thread (two segments, one in archived_sessions/), a recent one,
    and an old one whose last turn never completed; plus session_index.jsonl."""
    ids = {n: uid("codex-" + n) for n in ("old", "recent", "open")}
    for name, days in (("old", 40), ("recent", 2), ("open", 50)):
        when = NOW - days * DAY
        stamp = when.strftime("%Y-%m-%dT%H-%M-%S")
        day = home / "sessions" / when.strftime("%Y/%m/%d")
        _write(day / f"rollout-{stamp}-{ids[name]}.jsonl", codex_rollout(ids[name], "/work/alpha", when, f"do {name}",
                                                                         open_turn=name == "open"), when)
    when = NOW - 39 * DAY
    _write(home / "archived_sessions" / f"rollout-{when.strftime('%Y-%m-%dT%H-%M-%S')}-{ids['old']}_seg2.jsonl",
           codex_rollout(ids["old"], "/work/alpha", when, "continue old"), when)
    _write(home / "session_index.jsonl", json.dumps({"id": ids["old"], "thread_name": "Old thread"}) + "\n", NOW - 39 * DAY)
    return ids


def snapshot(root: Path) -> dict[str, tuple]:
    """(size, mtime_ns, mode, sha256) of every file and the set of folders under `root`."""
    out: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        out[folder] = ("dir",)
        for name in files:
            path = Path(folder) / name
            st = path.stat()
            out[str(path)] = (st.st_size, st.st_mtime_ns, st.st_mode, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def build_bulky_claude_home(home: Path, sessions: int = 12, kib: int = 192, seed: int = 7) -> dict[str, tuple]:
    """`build_claude_home` plus `sessions` old sessions of ~`kib` KiB each (transcript lines
    repeating a pseudo-random file, as edits with originalFile do, and file-history backups),
    so archiving one takes long enough to be interrupted. Returns the snapshot of the home."""
    import random

    build_claude_home(home)
    rng = random.Random(seed)
    for n in range(sessions):
        sid = uid(f"bulk{n}")
        when = NOW - (40 + n) * DAY
        text = "".join(rng.choice("abcdefghij \n") for _ in range(kib * 256))
        lines = [claude_transcript(sid, "/work/bulk", when, f"bulk task {n}")]
        lines += [json.dumps({"type": "user", "sessionId": sid, "timestamp": when.isoformat(),
                              "toolUseResult": {"originalFile": text[: len(text) // 2 + i * 100]}}) + "\n" for i in range(3)]
        _write(home / "projects" / "-work-bulk" / f"{sid}.jsonl", "".join(lines), when)
        _write(home / "file-history" / sid / "aaaaaaaaaaaaaaaa@v1", text, when, mode=0o600)
    return snapshot(home)
