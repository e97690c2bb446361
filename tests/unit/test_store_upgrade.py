"""Schema 4 (blob ids, no path_version, fewer indexes), 5 (the content hash indexed by its
first 8 bytes) and 6 (entries name their path by id): an older store reads the same read-only,
upgrades in one transaction, reads the same afterwards, and a kill -9 at any statement of the
upgrade leaves the old schema or the new one, never a mix. (The long kill loop, with kills at
random moments too, is tests/reliability/test_upgrade_kill.py.)"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
import zstandard
from store_versions import as_schema_3, as_schema_4, as_schema_5, as_schema_6
from upgrade_support import everything, upgrade_in_child

from memtui.core.demo import build_demo
from memtui.core.errors import CorruptContent
from memtui.core.store import AgentStore
from memtui.core.store.schema import BY_HASH, SCHEMA_VERSION, by_hash, by_hash_sql

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "stores" / "schema3-demo.db.zst"
V4_TABLES = {"blob", "path", "checkpoint_entry"}


def _column(db: Path, sql: str, at: int = 0) -> set:
    """The values in position `at` of the rows `sql` reads from `db` (opened read-only)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {r[at] for r in con.execute(sql)}
    finally:
        con.close()


def _tables(db: Path) -> set[str]:
    return _column(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")


def _digest(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def _real_schema_3(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".agent").mkdir(parents=True)
    (root / ".agent" / "agent.db").write_bytes(zstandard.ZstdDecompressor().decompress(FIXTURE.read_bytes()))
    return root


def _check_upgraded(root: Path, want: dict) -> None:
    db = root / ".agent" / "agent.db"
    with AgentStore.open(root, create=False) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.query("PRAGMA integrity_check") == [("ok",)]
        assert store.query("PRAGMA foreign_key_check") == []
        assert everything(store) == want
        # Each path counts its contents and names the newest (schema 6).
        assert store.query("SELECT COUNT(*) FROM path p WHERE versions IS NOT (SELECT COALESCE(MAX(version) + 1, 0)"
                           " FROM blob WHERE path_id = p.id) OR newest_blob IS NOT (SELECT id FROM blob"
                           " WHERE path_id = p.id ORDER BY version DESC LIMIT 1)") == [(0,)]
    tables = _tables(db)
    assert V4_TABLES <= tables and not tables & {"path_version", "blob_v3", "checkpoint_entry_v3",
                                                 "checkpoint_entry_before_hash", "step_task_id_created_at"}


def test_a_store_written_by_schema_3_reads_the_same_after_the_upgrade(tmp_path):
    root = _real_schema_3(tmp_path)
    db = root / ".agent" / "agent.db"
    before = _digest(db)
    with AgentStore.open(root, readonly=True) as old:  # browsed as it is: nothing written
        assert old.schema_version == 3 and old.needs_upgrade
        want = everything(old)
    assert _digest(db) == before and not Path(f"{db}-wal").exists()
    assert len(want["entries"]) > 50 and want["plan"]["reclaimable"]
    _check_upgraded(root, want)
    with AgentStore.open(root) as store:  # and it records on, deltas against upgraded contents
        assert store.query("PRAGMA page_size") == [(4096,)]  # an older file keeps its pages
        task = store.start_task(store.start_session("after"), "edit")
        path, (entry, _) = next((e.path, v) for v in want["entries"].values() for e in [v[0]] if e.after_size)
        old_after = store.read_entry(entry.id)[1]
        cp = store.record_checkpoint(task, None, {path: (old_after, old_after + b"# one more line\n")})
        (new,) = store.checkpoint_entries(cp)
        assert store.read_entry(new.id) == (old_after, old_after + b"# one more line\n")
        assert store.query("SELECT codec FROM blob WHERE id = (SELECT after_blob FROM checkpoint_entry"
                           " WHERE id = ?)", (new.id,))[0][0] == "delta"


def test_a_schema_4_store_reads_the_same_then_finds_contents_by_the_hash_prefix(tmp_path):
    root, db, want = _demo_as(tmp_path, as_schema_4)
    before = _digest(db)
    with AgentStore.open(root, readonly=True) as old:  # browsed as it is: nothing written
        assert old.schema_version == 4 and old.needs_upgrade
        assert everything(old) == want
        blob_id, blob_hash = old.query("SELECT id, hash FROM blob WHERE codec = 'delta' LIMIT 1")[0]
        assert old.read_blob(blob_hash) == old.read_blob(blob_id)  # by hash: the whole-hash index
    assert _digest(db) == before
    _check_upgraded(root, want)
    assert {"blob_hash_prefix"} <= _tables(db) and "blob_hash" not in _tables(db)
    with AgentStore.open(root) as store:
        assert "blob_hash_prefix" in str(store.query(f"EXPLAIN QUERY PLAN SELECT id FROM blob WHERE {BY_HASH}",
                                                     by_hash(bytes(32))))
        blobs = store.query("SELECT COUNT(*) FROM blob")[0][0]
        entry = next(e for e, _ in want["entries"].values() if e.after_size)
        data = store.read_entry(entry.id)[1]
        task = store.start_task(store.start_session("again"), "copy")
        cp = store.record_checkpoint(task, None, {"copy.txt": (None, data)})  # a known content: found
        assert store.query("SELECT COUNT(*) FROM blob")[0][0] == blobs
        store._cache.clear()
        assert store.read_entry(store.checkpoint_entries(cp)[0].id) == (None, data)
        # Two contents whose hashes share their first 8 bytes stay two blobs (one forged here).
        other = b"another content, not seen before\n" * 30
        other_hash = hashlib.sha256(other).digest()
        store.execute("UPDATE blob SET hash = ? WHERE id = ?", (other_hash[:8] + bytes(24), blob_id))
        cp = store.record_checkpoint(task, None, {"other.txt": (None, other)})
        assert store.query("SELECT COUNT(*) FROM blob WHERE substr(hash, 1, 8) = ?", (other_hash[:8],)) == [(2,)]
        store._cache.clear()
        assert store.read_entry(store.checkpoint_entries(cp)[0].id) == (None, other)


def _demo_as(tmp_path: Path, downgrade) -> tuple[Path, Path, object]:
    """A demo workspace, its database turned into an older schema by `downgrade`, and what the
    current schema read from it before (`everything`)."""
    root = build_demo(tmp_path / "demo", scale=0)
    db = root / ".agent" / "agent.db"
    with AgentStore.open(root, readonly=True) as store:
        want = everything(store)
    downgrade(db)
    return root, db, want


def _entry_columns(db: Path) -> set[str]:
    return _column(db, "PRAGMA table_info(checkpoint_entry)", at=1)


def test_a_schema_5_store_reads_the_same_and_its_entries_name_paths_by_id_after_the_upgrade(tmp_path):
    root, db, want = _demo_as(tmp_path, as_schema_5)
    assert "path" in _entry_columns(db) and "path_id" not in _entry_columns(db)
    before = _digest(db)
    with AgentStore.open(root, readonly=True) as old:  # browsed as it is: nothing written
        assert old.schema_version == 5 and old.needs_upgrade
        assert everything(old) == want
        blob_id, blob_hash = old.query("SELECT id, hash FROM blob WHERE codec = 'delta' LIMIT 1")[0]
        assert old.read_blob(blob_hash) == old.read_blob(blob_id)  # by hash: its 8-byte prefix index
        assert "blob_hash_prefix" in str(old.query(f"EXPLAIN QUERY PLAN SELECT id FROM blob WHERE {by_hash_sql(5)}",
                                                   by_hash(blob_hash, 5)))
    assert _digest(db) == before
    _check_upgraded(root, want)
    assert "path_id" in _entry_columns(db) and "path" not in _entry_columns(db)
    assert {"checkpoint_entry_checkpoint_id", "checkpoint_entry_before_blob", "checkpoint_entry_after_blob"} <= _tables(db)
    assert "blob_shallow" in _tables(db) and "blob_path_version" not in _tables(db)
    with AgentStore.open(root) as store:  # each path once, whether entries or contents named it first
        assert store.query("SELECT COUNT(*) = COUNT(DISTINCT path) FROM path") == [(1,)]
        assert store.query("SELECT COUNT(*) FROM path WHERE versions > 0")[0][0] > 10
        task = store.start_task(store.start_session("after"), "edit")
        entry = next(e for e, _ in want["entries"].values() if e.after_size)
        data = store.read_entry(entry.id)[1]
        cp = store.record_checkpoint(task, None, {entry.path: (data, data + b"# more\n"), "new/file.txt": (None, b"x")})
        assert [(e.path, e.kind) for e in store.checkpoint_entries(cp)] == [(entry.path, "modified"),
                                                                          ("new/file.txt", "added")]
        assert store.remove_entries(cp, ["new/file.txt"]) == 1
        assert [e.path for e in store.checkpoint_entries(cp)] == [entry.path]


def test_a_read_only_browser_follows_an_upgrade_made_through_its_writer(tmp_path):
    root = _real_schema_3(tmp_path)
    with AgentStore.open(root, readonly=True) as store:
        want = everything(store)
        task = want["orphans"][0].id if want["orphans"] else next(iter(want["tasks"]))
        with store.writer() as w:  # a pin from the UI of a read-only browser upgrades the file
            w.pin(task)
        assert store.schema_version == SCHEMA_VERSION
        assert everything(store)["entries"] == want["entries"]


def test_a_read_only_browser_follows_an_upgrade_another_process_made(tmp_path):
    """A browser of a schema-6 store whose file another writer (the agent, a CLI verb) upgrades
    meanwhile reads the contents byte-exact: it read every packed frame as an empty one and
    called it corrupt until it was opened again."""
    root = tmp_path / "ws"
    root.mkdir()
    files = {f"f{i}.txt": (None, (f"file {i} " * 400).encode()) for i in range(8)}
    with AgentStore.open(root, create=True) as store:
        cp = store.record_checkpoint(store.start_task(store.start_session("s"), "t"), None, files)
        entries = {e.path: e.id for e in store.checkpoint_entries(cp)}
    as_schema_6(root / ".agent" / "agent.db")
    with AgentStore.open(root, readonly=True) as browser:
        assert browser.schema_version == 6
        AgentStore.open(root).close()  # another writer upgrades the file
        assert {path: browser.read_entry(i)[1] for path, i in entries.items()} == {p: a for p, (_, a) in files.items()}
        assert browser.schema_version == SCHEMA_VERSION


def test_a_content_already_missing_stays_an_error_and_comes_back_when_recorded_again(tmp_path):
    root = build_demo(tmp_path / "demo", scale=0)
    db = root / ".agent" / "agent.db"
    with AgentStore.open(root) as store:
        task = store.start_task(store.start_session("s"), "t")
        cp = store.record_checkpoint(task, None, {"lost.txt": (None, b"content that will be lost\n" * 20)})
        (entry,) = store.checkpoint_entries(cp)
    as_schema_3(db)
    con = sqlite3.connect(db)  # damage, as an old store could hold it: the blob row is gone
    con.execute("DELETE FROM path_version WHERE hash = ?", (bytes.fromhex(entry.after_hash),))
    con.execute("DELETE FROM blob WHERE hash = ?", (bytes.fromhex(entry.after_hash),))
    con.commit()
    con.close()
    with AgentStore.open(root, readonly=True) as old:
        with pytest.raises(CorruptContent, match="missing"):
            old.read_entry(entry.id)
    with AgentStore.open(root) as store:
        assert store.checkpoint_entries(cp)[0].kind == "added"  # still a content, not "nothing"
        with pytest.raises(CorruptContent, match="missing"):
            store.read_entry(entry.id)
        task = store.start_task(store.start_session("again"), "t")
        store.record_checkpoint(task, None, {"lost.txt": (None, b"content that will be lost\n" * 20)})
        store._cache.clear()
        assert store.read_entry(entry.id)[1] == b"content that will be lost\n" * 20


def test_a_schema_6_frame_held_as_text_is_packed_as_its_bytes_and_the_store_upgrades(tmp_path):
    """A blob row whose frame SQLite holds as TEXT (not UTF-8: a store written by another
    SQLite client) must not stop the upgrade, and with it every write: the packs take its bytes
    and every content reads byte-exact."""
    root = tmp_path / "ws"
    root.mkdir()
    good, texted = b"kept exactly as it was recorded\n" * 20, b"this frame is held as text\n" * 20
    with AgentStore.open(root, create=True) as store:
        task = store.start_task(store.start_session("s"), "t")
        cp = store.record_checkpoint(task, None, {"bad.txt": (None, texted),
                                                  "good.txt": (None, good)})
        bad, kept = (e for e in sorted(store.checkpoint_entries(cp), key=lambda e: e.path))
    db = root / ".agent" / "agent.db"
    as_schema_6(db)
    con = sqlite3.connect(db)
    con.execute("UPDATE blob SET data = CAST(data AS TEXT) WHERE id = (SELECT after_blob FROM checkpoint_entry"
                " WHERE id = ?)", (bad.id,))
    con.commit()
    con.close()
    with AgentStore.open(root) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.query("SELECT COUNT(*) FROM blob WHERE pack IS NULL") == [(0,)]
        assert store.read_entry(kept.id) == (None, good)
        assert store.read_entry(bad.id) == (None, texted)


OLDER = {3: as_schema_3, 5: as_schema_5, 6: as_schema_6}
"""The older layouts the kill -9 tests upgrade from (tests/reliability: each; here 3, every step
of the upgrade, and the last one)."""


def _upgrade_world(tmp_path: Path, old: int = 3) -> tuple[Path, dict]:
    root = build_demo(tmp_path / "template", scale=60)
    with AgentStore.open(root, readonly=True) as store:
        want = everything(store)
    OLDER[old](root / ".agent" / "agent.db")
    return root, want


def _layout(db: Path) -> int:
    """Which layout the file's tables are in (3, 5, 6 or SCHEMA_VERSION), whatever user_version says."""
    tables = _tables(db)
    if "path_version" in tables or "blob_v3" in tables or "entry_v3" in tables:
        assert "path_version" in tables and "path" not in tables and "blob_v3" not in tables, tables
        return 3
    assert "entry_v5" not in tables, tables
    if "path_id" not in _entry_columns(db):
        return 5
    return 6 if "pack" not in tables else SCHEMA_VERSION


def _kill_and_check(template: Path, dest: Path, want: dict, kill_at: int = 0,
                    kill_after: float | None = None) -> tuple[str, int]:
    """Upgrade a copy of `template` in a child killed as asked; check what is left. Returns
    ("killed" or the number of statements the upgrade ran, the schema version left behind)."""
    old = _layout(template / ".agent" / "agent.db")
    shutil.copytree(template, dest)
    db = dest / ".agent" / "agent.db"
    killed, output, _ = upgrade_in_child(dest, kill_at=kill_at, kill_after=kill_after)
    with AgentStore.open(dest, readonly=True) as store:  # the old schema or the new, never a mix
        version = store.schema_version
        assert everything(store) == want, output
    assert version in (old, SCHEMA_VERSION) and _layout(db) == version
    _check_upgraded(dest, want)  # and the next writer finishes the job
    assert sorted(p.name for p in db.parent.iterdir() if p.name.endswith(".memtui-tmp")) == []
    return ("killed" if killed else output.split()[-1]), version


@pytest.mark.parametrize("old", [min(OLDER), max(OLDER)])
def test_kill_9_at_statements_of_the_upgrade_leaves_old_or_new(tmp_path, old):
    template, want = _upgrade_world(tmp_path, old)
    # A run that is not killed says how many statements the upgrade runs.
    statements, version = _kill_and_check(template, tmp_path / "full", want)
    total = int(statements)
    assert total > 3 and version == SCHEMA_VERSION
    left = {}
    # One point of each kind: as the transaction begins (schema 3), in its middle, at its COMMIT,
    # after it. Every statement: tests/reliability/test_upgrade_kill.py.
    points = {2, total // 2, total - 1, total} if old == 3 else {total // 2, total - 1, total}
    for n in sorted(points):
        outcome, left[n] = _kill_and_check(template, tmp_path / f"k{n}", want, kill_at=n)
        assert outcome == "killed"
    # Killed before its COMMIT: the old schema; after it (the last statement turns foreign keys
    # back on): the new one.
    assert left[total - 1] == old and left[total] == SCHEMA_VERSION


def test_an_upgrade_that_finds_broken_references_changes_nothing_and_says_so(tmp_path, capsys):
    """A schema-5 store whose entry points at a checkpoint that is gone (damaged by hand or by
    another tool): the upgrade rolls back, the file is as it was, and the user reads one line."""
    from memtui.cli import main
    from memtui.core.errors import UpgradeFailed

    root, db, want = _demo_as(tmp_path, as_schema_5)
    con = sqlite3.connect(db)
    con.execute("UPDATE checkpoint_entry SET checkpoint_id = 999999 WHERE id = (SELECT MIN(id) FROM checkpoint_entry)")
    con.commit()
    con.close()
    with AgentStore.open(root, readonly=True) as old:
        seen = everything(old)
    with pytest.raises(UpgradeFailed, match="schema 5: 1 reference"):
        AgentStore.open(root)
    assert main(["gc", str(root), "--apply", "--yes"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot upgrade the store from schema 5" in err and "Traceback" not in err
    with AgentStore.open(root, readonly=True) as old:  # as it was: the upgrade rolled back
        assert old.schema_version == 5 and everything(old) == seen
