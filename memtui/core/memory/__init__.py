"""Memory documents: discovery, reading, safe saving with history, decision logs, lint and
search. The CLI verbs and the memory panes call these same functions."""

from memtui.core.memory.decisions import Decision, add_decision, append_decision, parse_decisions, read_decisions
from memtui.core.memory.discover import KINDS, MemoryDocument, discover_documents, group_by_kind, resolve_document
from memtui.core.memory.documents import (
    DiskVersion,
    JsonlDocument,
    OpenedDocument,
    markdown_headings,
    parse_jsonl,
    read_document,
)
from memtui.core.memory.lint import RULES, Finding, lint_workspace
from memtui.core.memory.save import (
    ANY,
    HistoryEntry,
    conflict_diff,
    list_history,
    restore_version,
    save_document,
    sweep_workspace,
    undo_last_save,
)
from memtui.core.memory.search import SearchHit, SearchIndex, search_workspace

__all__ = [
    "ANY", "KINDS", "RULES", "Decision", "DiskVersion", "Finding", "HistoryEntry", "JsonlDocument",
    "MemoryDocument", "OpenedDocument", "SearchHit", "SearchIndex", "add_decision", "append_decision",
    "conflict_diff", "discover_documents", "group_by_kind", "lint_workspace", "list_history",
    "markdown_headings", "parse_decisions", "parse_jsonl", "read_decisions", "read_document",
    "resolve_document", "restore_version", "save_document", "sweep_workspace", "search_workspace", "undo_last_save",
]
