"""peewee models of agent.db, built per database so several stores can be open at once."""

from __future__ import annotations

from types import SimpleNamespace

from peewee import (
    AutoField,
    BareField,
    BlobField,
    BooleanField,
    Database,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    PostgresqlDatabase,
    SQL,
    TextField,
)


def _counter() -> IntegerField:
    # A SQL default: rows inserted by raw SQL (the recorder) and columns added by ALTER TABLE get 0.
    return IntegerField(default=0, constraints=[SQL("DEFAULT 0")])


def build_models(db: Database) -> SimpleNamespace:
    """The model classes of one database. Times are UTC epoch seconds (REAL)."""
    # Inline contents of the older scheme: any type in SQLite; a team store on PostgreSQL has
    # none (it is made at the current schema) but keeps the columns, as bytea, for the same reads.
    legacy = BlobField if isinstance(db, PostgresqlDatabase) else BareField

    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Session(Base):
        id = AutoField()
        title = TextField(default="")
        status = TextField(default="open")  # open | closed
        current_task_id = IntegerField(null=True)
        created_at = FloatField()
        updated_at = FloatField()
        closed_at = FloatField(null=True)

        class Meta:
            table_name = "session"
            indexes = ((("status", "updated_at"), False),)

    class Task(Base):
        id = AutoField()
        # FK indexes come from the composite indexes in Meta (same leading column).
        session = ForeignKeyField(Session, null=True, on_delete="SET NULL", backref="tasks", index=False)
        title = TextField(default="")
        status = TextField(default="running")
        pinned = BooleanField(default=False)
        summary = TextField(default="")
        created_at = FloatField()
        updated_at = FloatField()
        finished_at = FloatField(null=True)
        collected_at = FloatField(null=True)  # set when GC removed its heavy data
        # What the task holds, kept by every writer (recorder, GC, the undo's entry removal) so
        # the session list and GC sum task rows instead of scanning the step table (schema 3).
        step_count = _counter()
        step_bytes = _counter()  # SUM(step.payload_bytes)
        checkpoint_count = _counter()
        entry_count = _counter()
        entry_bytes = _counter()  # SUM(before_size + after_size) of its entries: raw content
        legacy_bytes = _counter()  # inline contents of the older scheme (schema 1 rows only)

        class Meta:
            table_name = "task"
            indexes = ((("session", "status"), False), (("status",), False), (("pinned",), False))

    class TaskRef(Base):
        id = AutoField()
        from_task = ForeignKeyField(Task, on_delete="CASCADE", column_name="from_task", index=False)
        to_task = ForeignKeyField(Task, on_delete="CASCADE", column_name="to_task", index=False)
        kind = TextField()  # handoff | supersedes | depends

        class Meta:
            table_name = "task_ref"
            indexes = ((("from_task", "kind", "to_task"), True), (("to_task", "kind"), False))

    class Step(Base):
        id = AutoField()
        task = ForeignKeyField(Task, on_delete="CASCADE", index=False)
        seq = IntegerField()
        tool = TextField()
        # Small columns first: reading them never walks the overflow pages of args/result.
        status = TextField(default="ok")
        tokens_in = IntegerField(default=0)
        tokens_out = IntegerField(default=0)
        cost = FloatField(default=0.0)
        duration_ms = IntegerField(default=0)
        payload_bytes = IntegerField(default=0)  # len(args) + len(result) in UTF-8
        created_at = FloatField()
        error = TextField(null=True)
        args = TextField(default="null")  # JSON
        result = TextField(default="null")  # JSON

        class Meta:
            table_name = "step"
            indexes = ((("task", "seq"), False),)

    class Path(Base):
        """Each distinct path that has contents, once (schema 4)."""

        id = AutoField()
        path = TextField(unique=True)
        # Its contents so far (the next one's version) and the newest one's blob id, not a
        # reference: GC may take that blob (schema 6; blob versions were indexed whole before).
        versions = _counter()
        newest_blob = IntegerField(null=True)

        class Meta:
            table_name = "path"

    class Blob(Base):
        """One stored content. Referenced by its integer id (schema 4; before: by its hash)."""

        id = AutoField()
        hash = BlobField()  # 32-byte sha256 digest of the raw bytes, once (found by schema.BY_HASH)
        codec = TextField()  # raw | zstd | delta | missing (a content already lost before an upgrade)
        base = ForeignKeyField("self", null=True, column_name="base", on_delete="RESTRICT", index=False)
        depth = IntegerField(default=1)  # objects read to reconstruct, itself included
        size = IntegerField()  # raw bytes
        stored = IntegerField()  # payload bytes: the frame's length
        data = BlobField()  # the frame while loose; X'' once in a pack (schema 7: store.packs)
        # The n-th distinct content of a path (picks delta bases: content.base_versions); NULL
        # for a placeholder.
        path = ForeignKeyField(Path, null=True, column_name="path_id", on_delete="RESTRICT", index=False)
        version = IntegerField(null=True)
        # Where the frame is once sealed into a pack: the pack's id and the byte offset in it
        # (schema 7; NULL while loose). Not a foreign key: GC rewrites packs (store.packs.repack).
        pack = IntegerField(null=True)
        at = IntegerField(null=True)

        class Meta:
            table_name = "blob"

    class Pack(Base):
        """The frames of consecutive blobs back to back (schema 7; store.packs)."""

        id = AutoField()
        first_blob = IntegerField()  # the lowest and highest id of a blob whose frame is here
        last_blob = IntegerField()
        data = BlobField()

        class Meta:
            table_name = "pack"

    class Checkpoint(Base):
        id = AutoField()
        task = ForeignKeyField(Task, on_delete="CASCADE", index=False)
        step = ForeignKeyField(Step, null=True, on_delete="SET NULL")
        label = TextField(default="")  # "" | rollback | undo
        created_at = FloatField()

        class Meta:
            table_name = "checkpoint"
            indexes = ((("task", "id"), False),)

    class Entry(Base):
        id = AutoField()
        checkpoint = ForeignKeyField(Checkpoint, on_delete="CASCADE")
        # The path by its id in `path` (schema 6; the text itself before). No index: entries are
        # read by checkpoint, and paths are never deleted.
        path = ForeignKeyField(Path, column_name="path_id", on_delete="RESTRICT", index=False)
        before_size = IntegerField(null=True)
        after_size = IntegerField(null=True)
        # Partial indexes on both (schema.INDEXES): GC asks whether an entry still uses a content.
        before_blob = ForeignKeyField(Blob, null=True, column_name="before_blob", on_delete="RESTRICT", index=False)
        after_blob = ForeignKeyField(Blob, null=True, column_name="after_blob", on_delete="RESTRICT", index=False)
        # The older scheme kept contents inline: a zlib BLOB or plain TEXT.
        before_legacy = legacy(null=True)
        after_legacy = legacy(null=True)

        class Meta:
            table_name = "checkpoint_entry"

    class Message(Base):
        id = AutoField()
        task = ForeignKeyField(Task, null=True, on_delete="SET NULL", index=False)
        role = TextField()  # user | assistant | summary | system
        content = TextField()
        created_at = FloatField()

        class Meta:
            table_name = "message"
            indexes = ((("task", "created_at"), False),)

    class Question(Base):
        id = AutoField()
        task = ForeignKeyField(Task, on_delete="CASCADE")
        question = TextField()
        answer = TextField(null=True)
        created_at = FloatField()
        answered_at = FloatField(null=True)

        class Meta:
            table_name = "question"
            indexes = ((("task",), False),)

    ns = SimpleNamespace(
        Session=Session, Task=Task, TaskRef=TaskRef, Step=Step, Path=Path, Blob=Blob, Pack=Pack,
        Checkpoint=Checkpoint, Entry=Entry, Message=Message, Question=Question,
    )
    ns.all = [Session, Task, TaskRef, Step, Path, Blob, Pack, Checkpoint, Entry, Message, Question]
    return ns
