"""Follow mode's core: a change by another writer is seen on the next poll, nothing else is,
and watching creates no file."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

from memtui.core.demo import build_demo
from memtui.core.live import watch_source
from memtui.core.agents.ra_aid.source import RaAidSource
from memtui.core.store import AgentStore

from sources_support import FIXTURES, agent_homes, discovered


def _listing(folder):
    return sorted(os.listdir(folder))


def test_a_step_recorded_by_another_writer_is_seen_once(tmp_path):
    root = build_demo(tmp_path / "demo", seed=1)
    agent_dir = root / ".agent"
    before = _listing(agent_dir)
    browsing = AgentStore.open(root, readonly=True)
    watch = watch_source(browsing)
    try:
        assert watch.poll() is False  # the baseline
        assert watch.poll() is False  # nothing happened
        assert _listing(agent_dir) == before  # watching created no -wal / -shm
        with AgentStore.open(root) as agent:  # the agent, still running: its log stays open
            agent.record_step(18, "bash", {"command": "pytest -x"}, "2 passed")
            assert watch.poll() is True
            assert watch.poll() is False
            agent.record_step(18, "bash", {"command": "pytest"}, "40 passed")
            assert watch.poll() is True
    finally:
        watch.close()
        browsing.close()


def test_a_new_or_longer_claude_code_transcript_is_seen(tmp_path):
    workspace, env = agent_homes(tmp_path)
    source = discovered(workspace, env, "claude-code").open()
    watch = watch_source(source)
    assert watch.poll() is False
    transcript = next(p for p in source.watched_files() if p.suffix == ".jsonl")
    with open(transcript, "a") as handle:
        handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "more"}}) + "\n")
    assert watch.poll() is True
    assert watch.poll() is False
    shutil.copy(transcript, transcript.with_name("0b8e2c6e-0000-4000-8000-000000000099.jsonl"))
    assert watch.poll() is True


def test_an_ra_aid_commit_is_seen_through_data_version(tmp_path):
    project = shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "ra")
    db = project / ".ra-aid" / "pk.db"
    source = RaAidSource(db)
    watch = watch_source(source)
    assert watch.poll() is False
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA journal_mode=wal")
        conn.execute("INSERT INTO key_fact (content, human_input_id, created_at, updated_at)"
                     " VALUES ('a new fact', 6, '2026-11-30 12:00:00', '2026-11-30 12:00:00')")
        conn.commit()
        assert watch.poll() is True
        assert watch.poll() is False
    finally:
        conn.close()
        watch.close()


def test_a_write_during_a_reload_is_a_change_at_the_next_poll(tmp_path):
    """A reader takes the token, reloads, then makes it the baseline: a commit made in
    between (after the token, perhaps after the fresh read) is still seen."""
    root = build_demo(tmp_path / "demo", seed=1)
    browsing = AgentStore.open(root, readonly=True)
    watch = watch_source(browsing)
    try:
        with AgentStore.open(root) as agent:  # a running agent: its log stays open
            agent.record_step(18, "bash", {"command": "make"}, "ok")
            assert watch.poll() is False  # the baseline
            token = watch.token()
            agent.record_step(18, "bash", {"command": "make test"}, "ok")  # during the reload
            watch.baseline(token)
            assert watch.poll() is True
            watch.baseline(watch.token())  # a reload with no write in between
            assert watch.poll() is False
    finally:
        watch.close()
        browsing.close()


def test_a_heavy_home_is_looked_at_by_its_folders_and_recent_sessions_between_sweeps(tmp_path, monkeypatch):
    """A home of hundreds of transcripts: a poll stats its folders and the sessions written in
    the last ten minutes, not every file; a session written more than ten minutes ago is looked
    at by the next sweep (and from then on at every poll); a new session at once."""
    import time

    from memtui.core import live
    from memtui.core.agents.claude_code.source import ClaudeCodeSource
    from real_support import many_sessions

    home = many_sessions("claude-2.0.28-agtrace", tmp_path, 70)
    transcripts = sorted(home.glob("projects/*/*.jsonl"))
    hours_ago = time.time() - 2 * 3600
    for path in transcripts:
        os.utime(path, (hours_ago, hours_ago))
    monkeypatch.setattr(live, "SWEEP_SECONDS", 1.0)
    with ClaudeCodeSource.from_path(home) as source:
        watched = source.watched_files()
        sessions = [p for p in watched if p.suffix == ".jsonl"]
        active, idle = sessions[0], sessions[-1]
        os.utime(active)  # written just now
        assert len(watched) >= live.TIERED_FROM
        folders = [p for p in watched if p.is_dir()]
        watch = watch_source(source)
        assert watch.poll() is False  # the baseline: a whole look
        stats, real_stat = [], os.stat
        monkeypatch.setattr(os, "stat", lambda path, *a, **k: (stats.append(str(path)), real_stat(path, *a, **k))[1])
        assert watch.poll() is False
        assert sorted(stats) == sorted({*map(str, folders), str(active)})  # not the idle transcripts
        monkeypatch.setattr(os, "stat", real_stat)

        def grow(path):
            with open(path, "a") as handle:
                handle.write(json.dumps({"type": "user", "message": {"role": "user", "content": "more"}}) + "\n")

        grow(active)
        assert watch.poll() is True  # at once
        grow(idle)
        swept = time.monotonic()
        assert watch.poll() is False  # idle for hours: not looked at until the sweep
        while time.monotonic() - swept < live.SWEEP_SECONDS + 0.1:
            time.sleep(0.05)
        assert watch.poll() is True  # the sweep saw it
        grow(idle)
        assert watch.poll() is True  # written now: looked at by every poll
        shutil.copy(idle, idle.with_name("0b8e2c6e-0000-4000-8000-000000000099.jsonl"))
        assert watch.poll() is True  # a new session: its folder changed
        assert watch.poll() is False
        watch.close()
