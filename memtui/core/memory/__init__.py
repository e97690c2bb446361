"""Memory documents: discovery, reading, safe saving with history, decision logs, lint and
search. The CLI verbs and the memory panes call these same functions.

The names below are imported from their modules when first asked for: finding a workspace's
memory documents (discovery, `memtui sources`) loads `discover` alone, not the save, lint and
search machinery with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.core.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from memtui.core.memory.decisions import Decision, add_decision, append_decision, parse_decisions, read_decisions
    from memtui.core.memory.discover import KINDS, MemoryDocument, discover_documents, group_by_kind, resolve_document
    from memtui.core.memory.documents import DiskVersion, JsonlDocument, OpenedDocument, markdown_headings, parse_jsonl, read_document
    from memtui.core.memory.lint import Finding, RULES, lint_workspace
    from memtui.core.memory.save import ANY, HistoryEntry, conflict_diff, list_history, restore_version, save_document, sweep_workspace, undo_last_save
    from memtui.core.memory.search import SearchHit, SearchIndex, search_workspace

_MODULE_OF = {
    "ANY": "save",
    "Decision": "decisions",
    "DiskVersion": "documents",
    "Finding": "lint",
    "HistoryEntry": "save",
    "JsonlDocument": "documents",
    "KINDS": "discover",
    "MemoryDocument": "discover",
    "OpenedDocument": "documents",
    "RULES": "lint",
    "SearchHit": "search",
    "SearchIndex": "search",
    "add_decision": "decisions",
    "append_decision": "decisions",
    "conflict_diff": "save",
    "discover_documents": "discover",
    "group_by_kind": "discover",
    "lint_workspace": "lint",
    "list_history": "save",
    "markdown_headings": "documents",
    "parse_decisions": "decisions",
    "parse_jsonl": "documents",
    "read_decisions": "decisions",
    "read_document": "documents",
    "resolve_document": "discover",
    "restore_version": "save",
    "save_document": "save",
    "search_workspace": "search",
    "sweep_workspace": "save",
    "undo_last_save": "save",
}


__getattr__ = lazy_getattr("memtui.core.memory", _MODULE_OF)


__all__ = [
    "ANY", "KINDS", "RULES", "Decision", "DiskVersion", "Finding", "HistoryEntry", "JsonlDocument",
    "MemoryDocument", "OpenedDocument", "SearchHit", "SearchIndex", "add_decision", "append_decision",
    "conflict_diff", "discover_documents", "group_by_kind", "lint_workspace", "list_history",
    "markdown_headings", "parse_decisions", "parse_jsonl", "read_decisions", "read_document",
    "resolve_document", "restore_version", "save_document", "sweep_workspace", "search_workspace", "undo_last_save",
]
