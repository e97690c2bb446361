"""Errors the core raises. Each carries a one-line message meant for a user."""

from __future__ import annotations


class MemtuiError(Exception):
    """Base class: anything the CLI prints as one line and exits non-zero for."""


class StoreNotFound(MemtuiError):
    """No agent.db where one was expected."""


class NotAStore(MemtuiError):
    """The file is not a SQLite database, or not one memtui understands."""


def damaged(path: object, why: str) -> NotAStore:
    """The one wording for a database damaged past reading (`why`: what SQLite or the check said)."""
    return NotAStore(f"{path} is damaged ({why}); a copy from before the damage is needed")


def not_a_store(path: object) -> NotAStore:
    """The one wording for a file given as a store that is none."""
    return NotAStore(f"{path} is not a SQLite database or a transcript memtui can read"
                     " (an agent.db, an RA.Aid pk.db, a Claude Code transcript, a Codex rollout)")


def no_store(path: object, kind: str | None = None) -> StoreNotFound:
    """The one wording for a folder given as a store that holds none (of `kind`)."""
    what = f"no {kind} store" if kind else "no memtui store and no other agent's store"
    return StoreNotFound(f"{what} in {path} (`memtui sources PATH` lists what a folder holds;"
                         " `memtui demo` makes a workspace to try)")


def no_such_path(path: object) -> StoreNotFound:
    """The one wording for a PATH that is not there."""
    return StoreNotFound(f"{path} does not exist")


class StoreLocked(MemtuiError):
    """Another process holds a lock on the database for longer than the busy timeout."""


class SearchIndexError(MemtuiError):
    """A search index file can be neither used nor replaced."""


class SchemaTooNew(MemtuiError):
    """The database was written by a newer memtui."""


class UpgradeFailed(MemtuiError):
    """Upgrading an older store to this schema failed; the transaction was rolled back."""


class ReadOnlyStore(MemtuiError):
    """A write was attempted on a store opened read-only."""


class WritesForbidden(ReadOnlyStore):
    """This process was started not to write at all (`memtui open/serve --read-only`)."""


class ContentError(MemtuiError):
    """Stored content cannot be returned exactly as it was written."""


class ContentUnknown(ContentError):
    """The store does not hold a file change's full before- (or after-) content.

    `read_entry` raises it rather than return None, which would mean "the file did not
    exist": a rollback must refuse such an entry, never delete or empty the file.
    """


class CorruptContent(ContentError):
    """A stream failed to decompress, or the bytes do not match their hash."""


class ChainTooLong(CorruptContent):
    """A delta chain is longer than the writer ever makes one, or loops back on itself."""


class ContentTooLarge(ContentError):
    """Declared or actual size of a content object exceeds the configured limit."""


class RollbackError(MemtuiError):
    """A rollback cannot be planned: unknown id, no scope, nothing recorded to undo, no root."""


class PathEscape(MemtuiError, ValueError):
    """A path resolves outside the workspace root."""


# --- memory documents -------------------------------------------------------------------


class MemoryDocumentError(MemtuiError):
    """Base for errors about memory documents."""


class DocumentNotFound(MemoryDocumentError):
    """The memory document does not exist, or is not inside the workspace."""


class NotUtf8(MemoryDocumentError):
    """The document is not valid UTF-8: it is shown read-only and never re-encoded."""


class SaveConflict(MemoryDocumentError):
    """The file changed on disk since it was opened; saving would overwrite that change.

    `disk` holds the bytes now on disk (None if the file was deleted), so a caller can
    offer reload, a diff of disk vs. the edit, or an explicit overwrite.
    """

    def __init__(self, message: str, *, path, disk: bytes | None, disk_version=None) -> None:
        super().__init__(message)
        self.path = path
        self.disk = disk
        self.disk_version = disk_version


class NoHistory(MemoryDocumentError):
    """The requested previous version of a document does not exist."""
