"""Memory documents in a workspace, counted for `memtui sources` (the memory pane reads
and edits them through memtui.core.memory, whose discovery this uses)."""

from __future__ import annotations

from pathlib import Path

from memtui.core.memory.discover import discover_documents
from memtui.core.memory_source import Capability, LiveWatch
from memtui.core.sources.base import SourceAdapter, files_and_folders


def find_memory_files(workspace: Path) -> list[Path]:
    """The memory documents of `workspace` (MEMORY.md, CLAUDE.md, .agent/plan/…, …)."""
    return [doc.path for doc in discover_documents(Path(workspace))]


class MemoryFilesSource(SourceAdapter, LiveWatch):
    """The memory documents of a workspace (counts only; the memory pane shows them)."""

    kind = "memory-files"
    label = "memory files"
    capabilities = frozenset({Capability.EDIT_MEMORY, Capability.LIVE})

    def watched_files(self) -> list[Path]:
        return files_and_folders(self.files)

    def __init__(self, workspace: Path, files: list[Path] | None = None) -> None:
        super().__init__(Path(workspace))
        self.files = files if files is not None else find_memory_files(self.path)

    def counts(self) -> dict[str, int]:
        return {"files": len(self.files)}
