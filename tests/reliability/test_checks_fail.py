"""Every check of the harness first proves it can fail: each is run on a planted fault."""

from __future__ import annotations

import os
import sqlite3

import harness as h
import trials
from worlds import file_state, gc_workspace, rollback_workspace


def test_db_checks_see_a_broken_foreign_key_and_a_damaged_page(tmp_path):
    db = gc_workspace(tmp_path / "ws", tasks=40)
    assert h.db_checks(db) == []
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM task WHERE id = 2")  # its steps now point nowhere
    conn.commit()
    conn.close()
    assert any("foreign key" in p for p in h.db_checks(db))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    page = 4096
    for i in range(3 * page + 64, 3 * page + 400):  # scribble over the cells of an inner page
        data[i] ^= 0x5A
    db.write_bytes(bytes(data))
    try:
        found = h.db_checks(db)
    except sqlite3.DatabaseError as exc:  # "malformed" before a check can run is a failure too
        found = [str(exc)]
    assert found


def test_whole_or_collected_sees_a_torn_task():
    before = {1: (3, 1, 2, False), 2: (3, 1, 2, False)}
    assert h.whole_or_collected(before, {1: (0, 0, 0, True), 2: (3, 1, 2, False)}) == []
    assert h.whole_or_collected(before, {1: (3, 0, 0, False), 2: (3, 1, 2, False)})  # entries gone, not collected
    assert h.whole_or_collected(before, {1: (1, 0, 0, True), 2: (3, 1, 2, False)})  # collected but steps left
    assert h.whole_or_collected(before, {2: (3, 1, 2, False)})  # vanished


def test_old_or_new_sees_a_torn_file_and_a_lost_mode(tmp_path):
    world = rollback_workspace(tmp_path / "ws", files=12)
    assert trials._old_or_new(world)[0] == []
    rel = next(r for r, d in world.after.items() if d is not None and world.modes[r] == 0o755)
    (world.root / rel).write_bytes(world.after[rel][:10])
    os.chmod(world.root / rel, 0o755)
    other = next(r for r, d in world.after.items() if d is not None and r != rel)
    os.chmod(world.root / other, 0o600)
    problems = trials._old_or_new(world)[0]
    assert any("torn" in p and rel in p for p in problems)
    assert any("mode" in p and other in p for p in problems)
    assert file_state(world)[rel][0] == world.after[rel][:10]


def test_stray_temps_and_fingerprints_see_a_planted_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_bytes(b"1")
    before = h.Fingerprint.of(tmp_path)
    (tmp_path / "a" / ".x.txt.1-0a0b0c0d.memtui-tmp").write_bytes(b"half")
    assert [p.name for p in h.stray_temps(tmp_path)] == [".x.txt.1-0a0b0c0d.memtui-tmp"]
    os.utime(tmp_path / "a" / "x.txt", ns=(1, 1))  # same bytes, new mtime
    assert before.changes(h.Fingerprint.of(tmp_path)) == [
        "changed a/x.txt", "created a/.x.txt.1-0a0b0c0d.memtui-tmp"]
    # what else a killed write leaves: a temp database's SQLite log, a tree's temp folder
    (tmp_path / "a" / ".agent.db.1-0a0b0c0d.memtui-tmp-wal").write_bytes(b"log")
    (tmp_path / ".demo.1-0a0b0c0d.memtui-tmpdir").mkdir()
    assert [p.name for p in h.stray_temps(tmp_path)] == [
        ".demo.1-0a0b0c0d.memtui-tmpdir", ".agent.db.1-0a0b0c0d.memtui-tmp-wal", ".x.txt.1-0a0b0c0d.memtui-tmp"]


def test_entry_hashes_see_a_changed_content(tmp_path):
    db = gc_workspace(tmp_path / "ws", tasks=5)
    hashes = h.entry_hashes(db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE checkpoint_entry SET after_blob = before_blob WHERE id = 1")
    conn.commit()
    conn.close()
    assert h.entry_hashes(db)[1] != hashes[1]
