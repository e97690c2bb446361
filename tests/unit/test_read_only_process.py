"""`memtui open/serve --read-only`: the app's process writes nothing, whichever path tries."""

from __future__ import annotations

import sqlite3

import pytest

from memtui.core.atomic import forbid_writes, remove_stale_temps, write_atomic
from memtui.core.errors import WritesForbidden
from memtui.core.memory.save import ANY, save_document
from memtui.core.sqlite_readonly import connect_readwrite
from memtui.core.store import AgentStore


@pytest.fixture
def forbidden():
    forbid_writes("memtui was started with --read-only")
    try:
        yield
    finally:
        forbid_writes(None)


def test_every_write_path_refuses_and_nothing_changes(tmp_path, forbidden):
    forbid_writes(None)
    with AgentStore.open(tmp_path) as store:
        task = store.start_task(store.start_session("s"), "t")
    (tmp_path / "MEMORY.md").write_text("mine\n")
    sqlite3.connect(tmp_path / "other.db").close()
    stale = tmp_path / ".MEMORY.md.1-0123abcd.memtui-tmp"
    stale.write_text("left by a crash")
    before = sorted(p.name for p in tmp_path.iterdir())
    forbid_writes("memtui was started with --read-only")

    with pytest.raises(WritesForbidden, match="memtui was started with --read-only"):
        write_atomic(tmp_path / "new.txt", b"x")
    with AgentStore.open(tmp_path, readonly=True) as store:
        with pytest.raises(WritesForbidden):
            with store.writer() as w:
                w.pin(task)
        assert not store.task(task).pinned
    with pytest.raises(WritesForbidden):
        connect_readwrite(tmp_path / "other.db")
    with pytest.raises(WritesForbidden):
        save_document(tmp_path, tmp_path / "MEMORY.md", "theirs\n", ANY)
    assert remove_stale_temps(tmp_path) == [] and stale.exists()  # opening never fails, nor sweeps
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "MEMORY.md").read_text() == "mine\n"
