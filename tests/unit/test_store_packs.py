"""Packs (schema 7): frames written loose are sealed into packs once they add up to one; every
version reads back byte for byte from a pack, through a read-only browser too; GC rewrites a
pack to its live frames or deletes it; a schema-6 store is upgraded into packs. Schema 8: only
run-starting versions are indexed for base lookups, and a schema-7 store is upgraded to that."""

from __future__ import annotations

import hashlib
import os
import random

import pytest

from gc_fixtures import healthy, new_store, task_with_edit, version
from memtui.core.errors import CorruptContent
from memtui.core.gc import apply_gc
from memtui.core.store import AgentStore, packs
from memtui.core.store.schema import SCHEMA_VERSION


@pytest.fixture
def small_packs(monkeypatch):
    monkeypatch.setattr(packs, "PACK_BYTES", 2048)


def _history(store: AgentStore, n: int = 30) -> dict[int, tuple[bytes | None, bytes | None]]:
    """n checkpoints of a file edited line by line plus random (incompressible) files; the
    entries and what each must read back."""
    rng = random.Random(7)
    task = store.start_task(store.start_session("s"), "t")
    want = {}
    for i in range(n):
        noise = rng.randbytes(300 + 37 * i)
        cp = store.record_checkpoint(task, None, {"a.py": (version(i - 1) if i else None, version(i)),
                                                  f"r{i}.bin": (None, noise)})
        for entry, sides in zip(store.checkpoint_entries(cp), [(version(i - 1) if i else None, version(i)),
                                                               (None, noise)]):
            want[entry.id] = sides
    return want


def _reads(store: AgentStore, want: dict) -> None:
    for entry_id, sides in want.items():
        store._cache.clear()
        assert store.read_entry(entry_id) == sides


def _packed_bytes_match(store: AgentStore) -> None:
    """Every pack holds exactly the frames of the blobs that name it, back to back."""
    for pack_id, length in store.query("SELECT id, length(data) FROM pack"):
        frames = store.query("SELECT at, stored FROM blob WHERE pack = ? ORDER BY at", (pack_id,))
        assert frames, f"pack {pack_id} holds no blob's frame"
        assert [at for at, _ in frames] == [sum(s for _, s in frames[:i]) for i in range(len(frames))]
        assert sum(s for _, s in frames) == length


def test_frames_are_sealed_into_packs_and_read_back_exactly(tmp_path, small_packs):
    store = new_store(tmp_path)
    want = _history(store)
    loose, packed = store.query("SELECT SUM(pack IS NULL), SUM(pack IS NOT NULL) FROM blob")[0]
    assert packed > 40 and store.query(packs.LOOSE_SQL)[0][0] < packs.PACK_BYTES
    assert store.query("SELECT MAX(length(data)) FROM blob WHERE pack IS NOT NULL") == [(0,)]
    assert store.query("SELECT COUNT(*) FROM pack")[0][0] >= 5
    _packed_bytes_match(store)
    _reads(store, want)
    store.close()
    with AgentStore.open(tmp_path / "ws", readonly=True) as browser:
        _reads(browser, want)


def test_a_damaged_pack_is_an_error_never_other_bytes(tmp_path, small_packs):
    store = new_store(tmp_path)
    want = _history(store, 12)
    pack_id = store.query("SELECT pack FROM blob WHERE pack IS NOT NULL AND codec = 'delta' LIMIT 1")[0][0]
    store.execute("UPDATE pack SET data = substr(data, 1, length(data) - 7) || X'00000000000000' WHERE id = ?",
                  (pack_id,))
    broken = 0
    for entry_id, sides in want.items():
        store._cache.clear()
        try:
            assert store.read_entry(entry_id) == sides
        except CorruptContent:
            broken += 1
    assert broken >= 1


def test_gc_rewrites_packs_to_their_live_frames(tmp_path, small_packs):
    store = new_store(tmp_path)
    session = store.start_session("s")
    rng = random.Random(3)
    # Finished tasks whose incompressible contents no other task shares: GC takes them all.
    gone = [task_with_edit(store, session, f"old {i}", path=f"old{i}.bin", after=rng.randbytes(900))
            for i in range(12)]
    kept = task_with_edit(store, session, "current", path="kept.bin", after=rng.randbytes(900), finish=None)
    assert store.query("SELECT COUNT(*) FROM blob WHERE pack IS NOT NULL")[0][0] >= 10
    before = store.query("SELECT COALESCE(SUM(length(data)), 0) FROM pack")[0][0]
    result = apply_gc(store)
    assert result.blobs == 12 and all(store.task(t).collected for t in gone)
    after = store.query("SELECT COALESCE(SUM(length(data)), 0) FROM pack")[0][0]
    assert before - after >= 12 * 900  # the frames are gone from the packs, not only their rows
    _packed_bytes_match(store)
    assert healthy(store)
    (cp,) = store.checkpoints(kept)
    (entry,) = store.checkpoint_entries(cp.id)
    store._cache.clear()
    assert hashlib.sha256(store.read_entry(entry.id)[1]).hexdigest() == entry.after_hash


def test_a_schema_6_store_is_upgraded_into_packs(tmp_path, small_packs):
    from store_versions import as_schema_6

    store = new_store(tmp_path)
    want = _history(store, 20)
    store.close()
    db = tmp_path / "ws" / ".agent" / "agent.db"
    as_schema_6(db)
    with AgentStore.open(tmp_path / "ws", readonly=True) as old:  # browsed as it is
        assert old.schema_version == 6
        _reads(old, want)
    with AgentStore.open(tmp_path / "ws") as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.query("SELECT COUNT(*) FROM blob WHERE pack IS NULL") == [(0,)]
        _packed_bytes_match(store)
        assert healthy(store)
        _reads(store, want)
        assert os.path.getsize(db) > 0


def test_a_schema_7_store_indexes_only_run_starts_after_the_upgrade(tmp_path):
    from store_versions import as_schema_7

    from memtui.core.content import RUN
    from memtui.core.store.schema import SHALLOW

    store = new_store(tmp_path)
    want = _history(store, 3 * RUN + 2)
    store.close()
    db = tmp_path / "ws" / ".agent" / "agent.db"
    as_schema_7(db)
    with AgentStore.open(tmp_path / "ws", readonly=True) as old:
        assert old.schema_version == 7
        old_entries = old.query("SELECT COUNT(*) FROM blob INDEXED BY blob_shallow WHERE depth <= 8")[0][0]
        _reads(old, want)
    with AgentStore.open(tmp_path / "ws") as store:
        assert store.schema_version == SCHEMA_VERSION == 8
        indexed = store.query(f"SELECT version FROM blob INDEXED BY blob_shallow WHERE {SHALLOW}")
        assert indexed and all(v % RUN == 0 for v, in indexed) and len(indexed) < old_entries
        plan = store.query(f"EXPLAIN QUERY PLAN SELECT id, depth FROM blob WHERE path_id = ? AND version = ?"
                           f" AND {SHALLOW}", (1, RUN))
        assert "blob_shallow" in str(plan)
        assert healthy(store)
        _reads(store, want)
        # And it records on: a new version of the edited file is a delta again.
        task = store.start_task(store.start_session("after"), "edit")
        cp = store.record_checkpoint(task, None, {"a.py": (version(3 * RUN + 1), version(3 * RUN + 2))})
        (entry,) = store.checkpoint_entries(cp)
        assert store.query("SELECT codec FROM blob WHERE id = (SELECT after_blob FROM checkpoint_entry"
                           " WHERE id = ?)", (entry.id,)) == [("delta",)]
