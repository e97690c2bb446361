"""Upgrading an older agent.db to SCHEMA_VERSION: one transaction, so a crash (kill -9, power
loss) leaves the old schema or the new one, never a mix — SQLite's schema changes are
transactional and the version number is written in the same transaction.

Plain SQL: the 2/3 → 4 step rebuilds `blob` and `checkpoint_entry` (a column that is a
foreign key cannot be dropped in place), which playhouse.migrate would do one column at a
time with a table copy each. The 4 → 5 step swaps the whole-hash index for the prefix one;
5 → 6 rebuilds `checkpoint_entry` with a path id where it held the path's text; 6 → 7 adds
the pack columns in place and seals every frame into packs; 7 → 8 makes `blob_shallow` again
with its narrower condition (as every upgrade does its partial indexes).
"""

from __future__ import annotations

from peewee import SqliteDatabase

from memtui.core.errors import UpgradeFailed
# The submodule itself: `from memtui.core.store import packs` asks the package's lazy __getattr__,
# which loads agent_store, which imports this module (ImportError when this one is imported first).
import memtui.core.store.packs as packs
from memtui.core.store.schema import COUNTERS, INDEXES, SCHEMA_VERSION, recount

# Indexes of schema 2–5 that schema 6 replaces or no longer needs (the blob's own key index
# goes with its table; blob_hash, the whole-hash index, gives way to blob_hash_prefix, whose
# 8-byte prefix of schema 5 becomes 4; blob_path_version to blob_shallow and the path's counts).
_OLD_INDEXES = ("blob_hash", "blob_hash_prefix", "blob_base", "blob_shallow", "blob_path_version", "path_version_path_version", "path_version_hash", "checkpoint_entry_before_hash",
                "checkpoint_entry_after_hash", "checkpoint_entry_path", "checkpoint_entry_checkpoint_id",
                "step_task_id_created_at")


def upgrade(db: SqliteDatabase, models, version: int) -> None:
    """Bring an older store up to SCHEMA_VERSION, one step per version, in one transaction.

    Foreign keys are off while tables are rebuilt (a table being copied would otherwise trip
    over its own references) and checked in full before the commit: a violation rolls the
    whole upgrade back."""
    db.execute_sql("PRAGMA foreign_keys = OFF")  # only outside a transaction; per connection
    try:
        with db.atomic("IMMEDIATE"):
            if db.execute_sql("PRAGMA user_version").fetchone()[0] != version:
                return  # another process upgraded it meanwhile
            if version < 2:
                db.create_tables([models.Path, models.Blob])
                for side in ("before", "after"):
                    db.execute_sql(f"ALTER TABLE checkpoint_entry ADD COLUMN {side}_blob INTEGER"
                                   " REFERENCES blob (id) ON DELETE RESTRICT")
            elif version < 4:
                _blobs_by_id(db, models)
            if version < 2 or 4 <= version < 6:
                _entry_path_ids(db, models)
            if 2 <= version < 6:
                _path_versions(db, version)
            if version < 3:
                for column in COUNTERS:
                    db.execute_sql(f"ALTER TABLE task ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
                recount(db)
            _pack_columns(db, models)
            for name in _OLD_INDEXES:
                db.execute_sql(f"DROP INDEX IF EXISTS {name}")
            db.create_tables([models.Entry], safe=True)  # the checkpoint_id index if it was missing
            for statement in INDEXES:
                db.execute_sql(statement)
            packs.seal(db.execute_sql)
            broken = db.execute_sql("PRAGMA foreign_key_check").fetchall()
            if broken:
                table, row, parent, _ = broken[0]
                raise UpgradeFailed(f"cannot upgrade the store from schema {version}: {len(broken)} reference(s) point"
                                    f" at rows that do not exist (first: {table} row {row} → {parent}); nothing"
                                    " was changed — it still opens read-only (--read-only)")
            db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
    finally:
        db.execute_sql("PRAGMA foreign_keys = ON")


def _blobs_by_id(db: SqliteDatabase, models) -> None:
    """Schema 2–3 → 4: blobs get integer ids (kept in their old rowid order), entries and
    deltas reference those, each blob carries its path id and version, path_version goes.

    A hash an entry or a delta references whose blob is already missing gets a `missing`
    placeholder, so reading it still fails as before instead of turning into "no content"."""
    for name in _OLD_INDEXES:
        db.execute_sql(f"DROP INDEX IF EXISTS {name}")
    tables = {r[0] for r in db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.execute_sql("ALTER TABLE blob RENAME TO blob_v3")
    db.execute_sql("ALTER TABLE checkpoint_entry RENAME TO checkpoint_entry_v3")
    db.create_tables([models.Path, models.Blob, models.Entry])
    db.execute_sql("CREATE UNIQUE INDEX blob_hash ON blob (hash)")  # the joins below look hashes up
    versions = "SELECT hash, path, version FROM path_version WHERE 0"
    if "path_version" in tables:
        db.execute_sql("INSERT INTO path (path) SELECT DISTINCT path FROM path_version ORDER BY path")
        # One (path, version) per content: the first recorded (the writer made exactly one).
        versions = "SELECT hash, path, version, MIN(id) FROM path_version GROUP BY hash"
    db.execute_sql(
        "INSERT INTO blob (id, hash, codec, base, depth, size, stored, data, path_id, version)"
        " SELECT o.rowid, o.hash, o.codec, NULL, o.depth, o.size, o.stored, o.data, p.id, v.version"
        f" FROM blob_v3 o LEFT JOIN ({versions}) v ON v.hash = o.hash LEFT JOIN path p ON p.path = v.path"
        " ORDER BY o.rowid")
    db.execute_sql(
        "INSERT INTO blob (hash, codec, base, depth, size, stored, data)"
        " SELECT DISTINCT h, 'missing', NULL, 1, 0, 0, X'' FROM (SELECT before_hash AS h FROM checkpoint_entry_v3"
        " UNION SELECT after_hash FROM checkpoint_entry_v3 UNION SELECT base FROM blob_v3)"
        " WHERE h IS NOT NULL AND h NOT IN (SELECT hash FROM blob)")
    db.execute_sql("UPDATE blob SET base = (SELECT b.id FROM blob_v3 o JOIN blob b ON b.hash = o.base"
                   " WHERE o.rowid = blob.id) WHERE id IN (SELECT rowid FROM blob_v3 WHERE base IS NOT NULL)")
    _add_entry_paths(db, "checkpoint_entry_v3")
    db.execute_sql(
        "INSERT INTO checkpoint_entry (id, checkpoint_id, path_id, before_size, after_size, before_blob, after_blob,"
        " before_legacy, after_legacy)"
        " SELECT e.id, e.checkpoint_id, p.id, e.before_size, e.after_size, bb.id, ab.id, e.before_legacy,"
        " e.after_legacy FROM checkpoint_entry_v3 e JOIN path p ON p.path = COALESCE(e.path, '')"
        " LEFT JOIN blob bb ON bb.hash = e.before_hash LEFT JOIN blob ab ON ab.hash = e.after_hash ORDER BY e.id")
    db.execute_sql("DROP TABLE checkpoint_entry_v3")
    if "path_version" in tables:
        db.execute_sql("DROP TABLE path_version")
    db.execute_sql("DROP TABLE blob_v3")


def _add_entry_paths(db: SqliteDatabase, table: str) -> None:
    """Every path the entries of `table` name gets its row in `path` (a NULL path: '')."""
    db.execute_sql(f"INSERT INTO path (path) SELECT DISTINCT COALESCE(e.path, '') FROM {table} e"
                   " WHERE NOT EXISTS (SELECT 1 FROM path p WHERE p.path = COALESCE(e.path, ''))"
                   " ORDER BY 1")


def _entry_path_ids(db: SqliteDatabase, models) -> None:
    """Schema 1 and 4–5 → 6: entries name their path by its id in `path` instead of its text
    (the table is rebuilt: SQLite drops no column a query could still read)."""
    # A renamed table keeps its indexes (and their names): drop them, the new table makes its own.
    for name in ("checkpoint_entry_checkpoint_id", "checkpoint_entry_before_blob", "checkpoint_entry_after_blob"):
        db.execute_sql(f"DROP INDEX IF EXISTS {name}")
    db.execute_sql("ALTER TABLE checkpoint_entry RENAME TO checkpoint_entry_v5")
    _add_entry_paths(db, "checkpoint_entry_v5")
    db.create_tables([models.Entry])
    db.execute_sql(
        "INSERT INTO checkpoint_entry (id, checkpoint_id, path_id, before_size, after_size, before_blob, after_blob,"
        " before_legacy, after_legacy)"
        " SELECT e.id, e.checkpoint_id, p.id, e.before_size, e.after_size, e.before_blob, e.after_blob,"
        " e.before_legacy, e.after_legacy FROM checkpoint_entry_v5 e JOIN path p ON p.path = COALESCE(e.path, '')"
        " ORDER BY e.id")
    db.execute_sql("DROP TABLE checkpoint_entry_v5")


def _path_versions(db: SqliteDatabase, version: int) -> None:
    """Schema 2–5 → 6: each path row counts its contents and names the newest (one grouped scan;
    the blob with a path's highest version is the row SQLite returns beside MAX)."""
    if version >= 4:  # schema 2–3 came through _blobs_by_id, whose path table has them already
        db.execute_sql("ALTER TABLE path ADD COLUMN versions INTEGER NOT NULL DEFAULT 0")
        db.execute_sql("ALTER TABLE path ADD COLUMN newest_blob INTEGER")
    db.execute_sql("UPDATE path SET versions = v.n, newest_blob = v.newest FROM (SELECT path_id, MAX(version) + 1"
                   " AS n, id AS newest FROM blob WHERE path_id IS NOT NULL GROUP BY path_id) AS v"
                   " WHERE v.path_id = path.id")


def _pack_columns(db: SqliteDatabase, models) -> None:
    """Schema ≤ 6 → 7: blobs get their pack and offset (in place: new columns only; a blob table
    the steps above made from the models has them already) and the pack table is made."""
    if "blob" not in {r[0] for r in db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}:
        return
    columns = {r[1] for r in db.execute_sql("PRAGMA table_info(blob)")}
    for column in ("pack", "at"):
        if column not in columns:
            db.execute_sql(f"ALTER TABLE blob ADD COLUMN {column} INTEGER")
    db.create_tables([models.Pack], safe=True)
