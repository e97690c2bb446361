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
