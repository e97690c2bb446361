"""Moved to memtui.core.sqlite_readonly (the store's read-only connect uses it too); the old
import path keeps working."""

from memtui.core.sqlite_readonly import connect_readonly, is_sqlite, readonly_uri, table_names

__all__ = ["connect_readonly", "is_sqlite", "readonly_uri", "table_names"]
