"""Memory documents in a workspace, counted for `memtui sources` (the memory pane reads them).

Uses memtui.core.memory's discovery when that module provides one; otherwise looks for
the names agents commonly write (DESIGN.md §4, features.md §2.4).
"""

from __future__ import annotations

from pathlib import Path

from memtui.core.sources.base import SourceAdapter

KNOWN_FILES: tuple[str, ...] = (
    "MEMORY.md", "PROJECT_MEMORY.md", "SESSION_SUMMARY.md", "SESSION.jsonl", "HISTORY.jsonl",
    "USER.md", "SOUL.md", "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "PROGRESS.md", "PLAN.md",
    ".claude/CLAUDE.md", "memory/MEMORY.md", "memory/USER.md", "memory/SOUL.md",
    ".agent/plan/PLAN.md", ".agent/plan/PROGRESS.md",
)
KNOWN_GLOBS: tuple[str, ...] = (".claude/rules/*.md", ".agent/init.d/*.md", ".agent/skills/*/SKILL.md")


def find_memory_files(workspace: Path) -> list[Path]:
    """The memory documents of `workspace`, by memtui.core.memory if it can, else by name."""
    workspace = Path(workspace)
    try:
        from memtui.core import memory as memory_module

        finder = getattr(memory_module, "discover", None)
    except ImportError:
        finder = None
    if callable(finder):
        try:
            found = finder(workspace)
            paths = [Path(getattr(doc, "path", doc)) for doc in found]
            return sorted({p if p.is_absolute() else workspace / p for p in paths})
        except (TypeError, ValueError, OSError):
            pass  # an API we do not understand: fall back to the known names
    found = {workspace / name for name in KNOWN_FILES if (workspace / name).is_file()}
    for pattern in KNOWN_GLOBS:
        found.update(p for p in workspace.glob(pattern) if p.is_file())
    return sorted(found)


class MemoryFilesSource(SourceAdapter):
    """The memory documents of a workspace (counts only; the memory pane edits them)."""

    kind = "memory-files"
    capabilities = frozenset({"edit"})

    def __init__(self, workspace: Path, files: list[Path] | None = None) -> None:
        super().__init__(Path(workspace))
        self.files = files if files is not None else find_memory_files(self.path)

    def counts(self) -> dict[str, int]:
        return {"files": len(self.files)}
