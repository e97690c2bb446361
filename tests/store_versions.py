"""Older store layouts for upgrade tests, made from a current store with plain SQL.

The schema-3 tables and indexes below are the exact DDL memtui 3 wrote (copied from a store it
made: tests/fixtures/stores/PROVENANCE.md); `as_schema_3` moves the rows back into them, so a
test can compare what a current store reads with what the same data reads as schema 3, and
what the upgrade makes of it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA_3_DDL = """
CREATE TABLE "blob_v3" ("hash" BLOB NOT NULL PRIMARY KEY, "codec" TEXT NOT NULL, "base" BLOB, "depth" INTEGER NOT NULL,
  "size" INTEGER NOT NULL, "stored" INTEGER NOT NULL, "data" BLOB NOT NULL,
  FOREIGN KEY ("base") REFERENCES "blob_v3" ("hash") ON DELETE RESTRICT);
CREATE TABLE "entry_v3" ("id" INTEGER NOT NULL PRIMARY KEY, "checkpoint_id" INTEGER NOT NULL, "path" TEXT NOT NULL,
  "before_size" INTEGER, "after_size" INTEGER, "before_hash" BLOB, "after_hash" BLOB, "before_legacy", "after_legacy",
  FOREIGN KEY ("checkpoint_id") REFERENCES "checkpoint" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("before_hash") REFERENCES "blob_v3" ("hash") ON DELETE RESTRICT,
  FOREIGN KEY ("after_hash") REFERENCES "blob_v3" ("hash") ON DELETE RESTRICT);
CREATE TABLE "path_version" ("id" INTEGER NOT NULL PRIMARY KEY, "path" TEXT NOT NULL, "version" INTEGER NOT NULL,
  "hash" BLOB NOT NULL, FOREIGN KEY ("hash") REFERENCES "blob_v3" ("hash") ON DELETE CASCADE);
"""

SCHEMA_3_INDEXES = """
CREATE INDEX "blob_base" ON "blob" ("base");
CREATE INDEX "checkpoint_entry_checkpoint_id" ON "checkpoint_entry" ("checkpoint_id");
CREATE INDEX "checkpoint_entry_before_hash" ON "checkpoint_entry" ("before_hash");
CREATE INDEX "checkpoint_entry_after_hash" ON "checkpoint_entry" ("after_hash");
CREATE INDEX "checkpoint_entry_path" ON "checkpoint_entry" ("path");
CREATE INDEX "path_version_hash" ON "path_version" ("hash");
CREATE UNIQUE INDEX "path_version_path_version" ON "path_version" ("path", "version");
CREATE INDEX IF NOT EXISTS "step_task_id_created_at" ON "step" ("task_id", "created_at");
"""


SCHEMA_5_ENTRY_DDL = """
CREATE TABLE "entry_v5" ("id" INTEGER NOT NULL PRIMARY KEY, "checkpoint_id" INTEGER NOT NULL, "path" TEXT NOT NULL,
  "before_size" INTEGER, "after_size" INTEGER, "before_blob" INTEGER, "after_blob" INTEGER, "before_legacy",
  "after_legacy", FOREIGN KEY ("checkpoint_id") REFERENCES "checkpoint" ("id") ON DELETE CASCADE,
  FOREIGN KEY ("before_blob") REFERENCES "blob" ("id") ON DELETE RESTRICT,
  FOREIGN KEY ("after_blob") REFERENCES "blob" ("id") ON DELETE RESTRICT);
CREATE INDEX "checkpoint_entry_checkpoint_id" ON "checkpoint_entry" ("checkpoint_id");
CREATE INDEX checkpoint_entry_before_blob ON checkpoint_entry (before_blob) WHERE before_blob IS NOT NULL;
CREATE INDEX checkpoint_entry_after_blob ON checkpoint_entry (after_blob) WHERE after_blob IS NOT NULL;
CREATE UNIQUE INDEX blob_path_version ON blob (path_id, version) WHERE path_id IS NOT NULL;
CREATE INDEX blob_hash_prefix ON blob (substr(hash, 1, 8));
"""


def as_schema_7(db: Path) -> None:
    """Rewrite a current store at `db` into the schema-7 layout, user_version 7: `blob_shallow`
    indexes every version shallow enough, not only the first of each run."""
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("BEGIN")
    con.execute("DROP INDEX blob_shallow")
    con.execute("CREATE UNIQUE INDEX blob_shallow ON blob (path_id, version) WHERE depth <= 8")
    con.execute("PRAGMA user_version = 7")
    con.execute("COMMIT")
    con.close()


def as_schema_6(db: Path) -> None:
    """Rewrite a current store at `db` into the schema-6 layout (same rows), user_version 6: each
    blob row holds its own frame (no packs: `pack`/`at` columns, the pack table and the loose
    index are gone)."""
    as_schema_7(db)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("BEGIN")
    con.execute("UPDATE blob SET data = (SELECT substr(p.data, blob.at + 1, blob.stored) FROM pack p"
                " WHERE p.id = blob.pack) WHERE pack IS NOT NULL")
    con.execute("DROP INDEX blob_loose")
    for column in ("pack", "at"):
        con.execute(f"ALTER TABLE blob DROP COLUMN {column}")
    con.execute("DROP TABLE pack")
    con.execute("PRAGMA user_version = 6")
    con.execute("COMMIT")
    con.close()


def as_schema_5(db: Path) -> None:
    """Rewrite a current store at `db` into the schema-5 layout (same rows), user_version 5: the
    entries hold their path's text (the DDL memtui 5 wrote) instead of its id, every blob version
    is indexed, the path rows hold no counts, the hash prefix indexed is 8 bytes."""
    as_schema_6(db)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA foreign_keys = OFF")
    con.execute("BEGIN")
    table, *indexes = [s for s in SCHEMA_5_ENTRY_DDL.split(";") if s.strip()]
    con.execute(table)
    con.execute("INSERT INTO entry_v5 SELECT e.id, e.checkpoint_id, p.path, e.before_size, e.after_size,"
                " e.before_blob, e.after_blob, e.before_legacy, e.after_legacy FROM checkpoint_entry e"
                " JOIN path p ON p.id = e.path_id ORDER BY e.id")
    con.execute("DROP TABLE checkpoint_entry")
    con.execute("ALTER TABLE entry_v5 RENAME TO checkpoint_entry")
    con.execute("DROP INDEX blob_shallow")
    con.execute("DROP INDEX blob_hash_prefix")
    for column in ("versions", "newest_blob"):
        con.execute(f"ALTER TABLE path DROP COLUMN {column}")
    for statement in indexes:
        con.execute(statement)
    con.execute("PRAGMA user_version = 5")
    con.execute("COMMIT")
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    con.close()


def as_schema_4(db: Path) -> None:
    """Rewrite a current store at `db` into the schema-4 layout, user_version 4: the schema-5
    tables, the content hash indexed whole (`blob_hash`, unique) instead of by its first 8 bytes."""
    as_schema_5(db)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("BEGIN")
    con.execute("DROP INDEX IF EXISTS blob_hash_prefix")
    con.execute("CREATE UNIQUE INDEX blob_hash ON blob (hash)")
    con.execute("PRAGMA user_version = 4")
    con.execute("COMMIT")
    con.close()


def as_schema_3(db: Path) -> None:
    """Rewrite a current store at `db` into the schema-3 layout (same rows), user_version 3."""
    as_schema_4(db)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA foreign_keys = OFF")
    con.execute("BEGIN")
    for statement in SCHEMA_3_DDL.split(";"):
        if statement.strip():
            con.execute(statement)
    con.execute("INSERT INTO blob_v3 SELECT b.hash, b.codec, base.hash, b.depth, b.size, b.stored, b.data"
                " FROM blob b LEFT JOIN blob base ON base.id = b.base ORDER BY b.id")
    con.execute("INSERT INTO path_version (path, version, hash) SELECT p.path, b.version, b.hash"
                " FROM blob b JOIN path p ON p.id = b.path_id ORDER BY b.id")
    con.execute("INSERT INTO entry_v3 SELECT e.id, e.checkpoint_id, e.path, e.before_size, e.after_size,"
                " bb.hash, ab.hash, e.before_legacy, e.after_legacy FROM checkpoint_entry e"
                " LEFT JOIN blob bb ON bb.id = e.before_blob LEFT JOIN blob ab ON ab.id = e.after_blob ORDER BY e.id")
    for table in ("checkpoint_entry", "blob", "path"):  # blob_hash goes with its table
        con.execute(f"DROP TABLE {table}")
    con.execute("ALTER TABLE blob_v3 RENAME TO blob")
    con.execute("ALTER TABLE entry_v3 RENAME TO checkpoint_entry")
    for statement in SCHEMA_3_INDEXES.split(";"):
        if statement.strip():
            con.execute(statement)
    con.execute("PRAGMA user_version = 3")
    con.execute("COMMIT")
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    con.close()


def as_schema_2(db: Path) -> None:
    """What memtui wrote before the per-task counters: schema 3 without them, user_version 2."""
    from memtui.core.store.schema import COUNTERS

    as_schema_3(db)
    con = sqlite3.connect(db)
    for column in COUNTERS:
        con.execute(f"ALTER TABLE task DROP COLUMN {column}")
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
