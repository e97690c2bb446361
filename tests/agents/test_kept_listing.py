"""The session listings of Gemini CLI, OpenCode, Cline and Aider kept in memtui's cache folder
(memtui.core.sources.listing): a warm open parses nothing and lists exactly what a fresh parse
of the agent's files lists; a unit that changed, grew or vanished is read again (only it) and
listed as a fresh parse lists it; reading writes nothing into the agent's home.

The homes are tests/agents/six_home.py's, made of files the real CLIs wrote (two copies of each
scenario). "A fresh parse" is the store opened with writes forbidden: no index may be kept, so
its listing is its full index's, every file parsed."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Callable

import pytest

from memtui.core.atomic import forbid_writes
from memtui.core.memory_source import MemorySource

from .live_support import fingerprint
from .six_home import _aider, _cline, _gemini, _opencode

COPIES = 2


def _gemini_source(user: Path) -> MemorySource:
    from memtui.core.agents.gemini_cli.source import GeminiCliSource

    return GeminiCliSource.from_path(user / ".gemini")


def _opencode_source(user: Path) -> MemorySource:
    from memtui.core.agents.opencode.source import OpenCodeSource

    return OpenCodeSource(user / ".local/share/opencode/opencode.db")


def _cline_source(user: Path) -> MemorySource:
    from memtui.core.agents.cline.folders import task_folders
    from memtui.core.agents.cline.source import ClineSource

    data = user / ".cline" / "data"
    return ClineSource(data, lambda: task_folders(data), data=data, cli=True)


def _aider_source(user: Path) -> MemorySource:
    from memtui.core.agents.aider.source import AiderSource

    [repo] = sorted(user.glob("src/aider-create-edit-*"))
    return AiderSource(repo / ".aider.chat.history.md")


def _grow_gemini(user: Path) -> None:
    """A resumed chat: a typed prompt appended to the newest chat (as Gemini CLI appends)."""
    chat = sorted(user.glob(".gemini/tmp/*/chats/session-*.jsonl"))[-1]
    record = {"id": "grown-prompt", "timestamp": "2031-01-01T00:00:00.000Z", "type": "user",
              "content": [{"text": "a prompt typed after the resume"}]}
    with open(chat, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def _grow_subagent(user: Path) -> None:
    """A sub-agent's chat (in the folder named by its caller's session) grows by a prompt: its
    caller's session lists one task more."""
    sub = sorted(p for p in user.glob(".gemini/tmp/*/chats/*/*.jsonl"))[0]
    record = {"id": "grown-sub-prompt", "timestamp": "2031-01-01T00:00:00.000Z", "type": "user",
              "content": [{"text": "the sub-agent is asked again"}]}
    with open(sub, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def _vanish_gemini(user: Path) -> None:
    sorted(user.glob(".gemini/tmp/*/chats/session-*.jsonl"))[0].unlink()


def _grow_opencode(user: Path) -> None:
    """OpenCode renames a session (a commit to its database)."""
    conn = sqlite3.connect(user / ".local/share/opencode/opencode.db")
    with conn:
        conn.execute("UPDATE session SET title = 'renamed while memtui was away', time_updated = 1924992000000"
                     " WHERE id = (SELECT id FROM session WHERE parent_id IS NULL ORDER BY id LIMIT 1)")
    conn.close()


def _grow_cline(user: Path) -> None:
    """A follow-up typed in the newest task (Cline rewrites its ui_messages.json)."""
    folder = sorted((user / ".cline/data/tasks").iterdir())[-1]
    messages = json.loads((folder / "ui_messages.json").read_text())
    messages.append({"ts": 1924992000000, "type": "say", "say": "user_feedback", "text": "one more thing"})
    (folder / "ui_messages.json").write_text(json.dumps(messages))


def _vanish_cline(user: Path) -> None:
    shutil.rmtree(sorted((user / ".cline/data/tasks").iterdir())[0])


def _grow_aider(user: Path) -> None:
    """Another aider session in the same repository: its history grows by a session."""
    [history] = sorted(user.glob("src/aider-create-edit-*/.aider.chat.history.md"))
    with open(history, "a", encoding="utf-8") as out:
        out.write("\n# aider chat started at 2031-01-01 00:00:00\n\n#### one more question\n\nAn answer.\n")


def _vanish_aider(user: Path) -> None:
    [history] = sorted(user.glob("src/aider-create-edit-*/.aider.chat.history.md"))
    history.unlink()


AGENTS: dict[str, tuple[Callable, Callable, list[Callable]]] = {
    "gemini-cli": (_gemini, _gemini_source, [_grow_gemini, _grow_subagent, _vanish_gemini]),
    "opencode": (_opencode, _opencode_source, [_grow_opencode]),
    "cline": (_cline, _cline_source, [_grow_cline, _vanish_cline]),
    "aider": (_aider, _aider_source, [_grow_aider, _vanish_aider]),
}


def _listed(open_source: Callable[[Path], MemorySource], user: Path) -> tuple[list, dict, list, int]:
    source = open_source(user)
    try:
        return list(source.sessions()), source.counts(), [p.message for p in source.problems()], source.units_read
    finally:
        source.close()


def _fresh(open_source: Callable[[Path], MemorySource], user: Path) -> tuple[list, dict, list]:
    """The listing of a fresh parse: no index may be kept, every file is read."""
    forbid_writes("a fresh parse")
    try:
        return _listed(open_source, user)[:3]
    finally:
        forbid_writes(None)


@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_kept_listing_is_a_fresh_parse_and_follows_each_change(agent, tmp_path, monkeypatch) -> None:
    make, open_source, changes = AGENTS[agent]
    user = tmp_path / "user"
    make(user, COPIES)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    before = fingerprint(user)

    *cold, parsed = _listed(open_source, user)
    assert cold[0] and parsed >= 1
    *warm, parsed = _listed(open_source, user)
    assert parsed == 0  # nothing changed: nothing parsed
    assert warm == cold == list(_fresh(open_source, user))
    assert fingerprint(user) == before  # reading wrote nothing into the home

    for change in changes:
        change(user)
        *now, parsed = _listed(open_source, user)
        assert parsed <= 1 if change.__name__.startswith("_vanish") else parsed == 1, change.__name__  # that unit alone
        assert now == list(_fresh(open_source, user)), change.__name__
        assert now != cold, change.__name__
        cold = now


def test_the_merged_home_reads_no_session_body_of_the_four_when_warm(tmp_path, monkeypatch) -> None:
    """`memtui ~` lists, counts and offers from the kept listings: no full index of Gemini CLI,
    OpenCode, Cline or Aider is built until a session's tasks are asked for."""
    from memtui.ui.opening import open_workspace
    from memtui.ui.pane_reads import first_sessions

    from .six_home import make_six_agent_home

    user = make_six_agent_home(tmp_path, 1)
    for name, value in {"HOME": user, "XDG_CONFIG_HOME": user / ".config", "XDG_DATA_HOME": user / ".local/share",
                        "XDG_CACHE_HOME": tmp_path / "cache", "CLAUDE_CONFIG_DIR": user / ".claude",
                        "CODEX_HOME": user / ".codex"}.items():
        monkeypatch.setenv(name, str(value))
    open_workspace(user)[0].close()  # cold: the listings are kept
    source, _entry = open_workspace(user)
    try:
        first_sessions(source)
        assert source.capabilities is not None
        four = [store for label, store in source.stores if label in ("Gemini CLI", "OpenCode", "Cline", "Aider")]
        assert {type(store).__name__ for store in four} == {"GeminiCliSource", "OpenCodeSource", "ClineSource", "AiderSource"}
        assert all(store.units_read == 0 for store in four)
        assert all(store._current is None for store in four)  # noqa: SLF001 — no full index was built
        session = next(s for s in source.sessions() if s.origin == "OpenCode")
        assert source.tasks(session.id)  # a session's tasks: its store's index, built now
    finally:
        source.close()


def _everything(source: MemorySource) -> list:
    """Every session's tasks with their steps and file changes, as the panes show them."""
    out: list = []
    for session in source.sessions():
        for task in source.tasks(session.id):
            checkpoints = source.checkpoints(task.id)
            out.append((session, task, list(source.steps(task.id)), checkpoints,
                        [list(source.checkpoint_entries(c.id)) for c in checkpoints]))
    return out


@pytest.mark.parametrize("agent", ["gemini-cli", "cline"])
def test_a_reload_reads_again_only_the_unit_that_changed_and_equals_a_fresh_read(agent, tmp_path, monkeypatch) -> None:
    """Follow mode reloads the store as the agent writes one session: its full index (tasks,
    steps, changes) is the same as a fresh store's, and only that session's file is parsed again."""
    make, open_source, changes = AGENTS[agent]
    user = tmp_path / "user"
    make(user, COPIES)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = open_source(user)
    try:
        before = _everything(source)
        units = len(source.units())
        assert source._parts.reads == units  # noqa: SLF001 — each parsed once
        for change in changes:
            change(user)
            source.reload()
            now = _everything(source)
            fresh = open_source(user)
            try:
                assert now == _everything(fresh), change.__name__
                assert source.index().counts == fresh.index().counts
                assert [p.message for p in source.index().problems] == [p.message for p in fresh.index().problems]
            finally:
                fresh.close()
            assert now != before, change.__name__
            parsed_now = source._parts.reads  # noqa: SLF001
            assert parsed_now - units <= 1, change.__name__  # the changed unit alone (none when it vanished)
            units, before = parsed_now, now
    finally:
        source.close()


def test_an_opencode_sessions_key_changes_when_opencode_writes_to_it_alone(tmp_path, monkeypatch) -> None:
    """OpenCode keeps every session in one database: a session's files key is a digest of its own
    rows, so a write to one session leaves the others' keys (and their kept usage) as they were."""
    user = tmp_path / "user"
    _opencode(user, COPIES)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    before = {s.id: s.files_key for s in _listed(_opencode_source, user)[0]}
    assert all(before.values()) and len(set(before.values())) == len(before)
    _grow_opencode(user)
    after = {s.id: s.files_key for s in _listed(_opencode_source, user)[0]}
    assert after.keys() == before.keys()
    assert sum(after[sid] != before[sid] for sid in before) == 1


@pytest.mark.parametrize("agent", ["opencode", "aider"])
def test_a_changed_database_or_history_is_parsed_once_for_its_listing_and_its_sessions(agent, tmp_path, monkeypatch) -> None:
    """OpenCode's database and Aider's history are each one unit whose listing is its full
    index's: when it changed, listing it builds the index a session's tasks are read from
    (parsed once, not once for the list and again for the session opened), and what is read
    from it is what a fresh store reads."""
    make, open_source, changes = AGENTS[agent]
    user = tmp_path / "user"
    make(user, COPIES)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _listed(open_source, user)  # the listing kept
    changes[0](user)
    source = open_source(user)
    built: list[object] = []
    build = source.build_index
    source.build_index = lambda: built.append(build()) or built[-1]  # type: ignore[method-assign]
    try:
        listed = list(source.sessions())
        assert source.units_read == 1 and len(built) == 1  # the changed unit, parsed for the list
        read = _everything(source)
        assert len(built) == 1  # its sessions' tasks come from that parse
        fresh = open_source(user)
        try:
            assert listed == list(fresh.sessions()) and read == _everything(fresh)
        finally:
            fresh.close()
        source.reload()  # follow mode, nothing changed: the kept listing, no parse until a read asks
        assert list(source.sessions()) == listed and len(built) == 1
        assert _everything(source) == read and len(built) == 2
    finally:
        source.close()
