"""VACUUM holds the write lock for its whole run (an agent recording meanwhile waits; the
reliability harness measures how long): the app says so before it starts, and writes nothing
until the user agrees."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from textual.widgets import Static

from memtui.core.demo import build_demo
from memtui.ui.app import make_app
from conftest import notifications
from pilot_support import settle


@pytest.fixture
def demo(tmp_path_factory, tmp_path):
    master = tmp_path_factory.getbasetemp() / "vacuum-demo"
    if not master.exists():
        build_demo(master)
    return shutil.copytree(master, tmp_path / "demo")


async def test_vacuum_warns_that_a_writing_agent_waits_before_it_starts(demo):
    db = demo / ".agent" / "agent.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    app = make_app(demo)
    async with app.run_test(size=(140, 42)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("v")
        await pilot.pause()
        text = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert "An agent writing to this store waits until it is done" in " ".join(text.split())
        await pilot.press("escape")
        await pilot.pause()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # nothing written without a yes


async def test_the_wal_checkpoint_toast_says_how_many_frames_moved(demo):
    import re

    from memtui.core.store import AgentStore

    agent = AgentStore.open(demo)  # an agent that keeps its connection open: the log stays
    agent.execute("PRAGMA wal_autocheckpoint = 0")
    session = agent.start_session("more work")
    for i in range(20):
        agent.start_task(session, f"task {i}")
    try:
        app = make_app(demo)
        async with app.run_test(size=(140, 42), notifications=True) as pilot:
            await settle(pilot)
            await pilot.press("s")
            await settle(pilot)
            await pilot.press("w")
            await settle(pilot)
            said = [n.message for n in notifications(app) if n.title == "Done"]
            assert said, "no toast after the checkpoint"
            moved = re.fullmatch(r"Checkpoint: (\d+) of (\d+) frames moved; log now 0 B\.", said[-1])
            assert moved and int(moved[1]) == int(moved[2]) > 0, said[-1]
    finally:
        agent.close()
