"""Errors the core raises. Each carries a one-line message meant for a user."""

from __future__ import annotations


class MemtuiError(Exception):
    """Base class: anything the CLI prints as one line and exits non-zero for."""


class StoreNotFound(MemtuiError):
    """No agent.db where one was expected."""


class NotAStore(MemtuiError):
    """The file is not a SQLite database, or not one memtui understands."""


class StoreLocked(MemtuiError):
    """Another process holds a lock on the database for longer than the busy timeout."""


class SchemaTooNew(MemtuiError):
    """The database was written by a newer memtui."""


class ReadOnlyStore(MemtuiError):
    """A write was attempted on a store opened read-only."""


class ContentError(MemtuiError):
    """Stored content cannot be returned exactly as it was written."""


class CorruptContent(ContentError):
    """A stream failed to decompress, or the bytes do not match their hash."""


class ContentTooLarge(ContentError):
    """Declared or actual size of a content object exceeds the configured limit."""


class PathEscape(MemtuiError, ValueError):
    """A path resolves outside the workspace root."""
