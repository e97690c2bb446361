"""Find the memory documents of a workspace and group them by what they are for.

Each kind has its own lifetime (DESIGN.md §4): long-term memory outlives sessions, the
session tail is short-lived, plan & progress track the current piece of work, init.d is
read at every cold start, skills are distilled ways of working, and agent instructions
(CLAUDE.md, AGENTS.md) are the files other agents load on their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from memtui.core.errors import DocumentNotFound

# Kinds, in the order panes and `memtui memory` list them, with a label for people.
KINDS: dict[str, str] = {
    "memory": "Long-term memory",
    "session": "Session",
    "plan": "Plan & progress",
    "init.d": "init.d (cold start)",
    "skills": "Skills",
    "instructions": "Agent instructions",
}

# Fixed locations (relative to the workspace root) and their kind. Globs follow below.
_FIXED: tuple[tuple[str, str], ...] = (
    ("MEMORY.md", "memory"),
    ("PROJECT_MEMORY.md", "memory"),
    ("HISTORY.jsonl", "memory"),
    ("DECISIONS.md", "memory"),
    ("memory/MEMORY.md", "memory"),
    ("memory/USER.md", "memory"),
    ("memory/SOUL.md", "memory"),
    ("memory/history.jsonl", "memory"),
    ("SESSION_SUMMARY.md", "session"),
    ("SESSION.jsonl", "session"),
    ("PLAN.md", "plan"),
    ("PROGRESS.md", "plan"),
    (".agent/plan/PLAN.md", "plan"),
    (".agent/plan/PROGRESS.md", "plan"),
    (".agent/DECISIONS.md", "plan"),
    (".agent/run-init.sh", "init.d"),
    ("CLAUDE.md", "instructions"),
    ("CLAUDE.local.md", "instructions"),
    (".claude/CLAUDE.md", "instructions"),
    ("AGENTS.md", "instructions"),
)
_GLOBS: tuple[tuple[str, str], ...] = (
    (".agent/init.d/*.md", "init.d"),
    (".agent/skills/*/SKILL.md", "skills"),
)
# A Claude Code home (~/.claude) given as the workspace: its user rules, and each project's
# auto memory (the MEMORY.md index Claude Code loads at start, and the topic files beside it).
_CLAUDE_HOME_GLOBS: tuple[tuple[str, str], ...] = (
    ("rules/**/*.md", "instructions"),
    ("projects/*/memory/*.md", "memory"),
)


@dataclass(frozen=True)
class MemoryDocument:
    """One memory document on disk. `rel` is the POSIX path relative to the workspace root."""

    path: Path
    rel: str
    kind: str
    format: str  # "markdown" | "jsonl" | "shell" | "text"
    size: int
    lines: int
    mtime: datetime  # aware, UTC

    @property
    def name(self) -> str:
        return self.path.name


def document_format(path: Path) -> str:
    """How a document is parsed and shown, from its name."""
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".sh":
        return "shell"
    return "text"


def count_lines(data: bytes) -> int:
    """Lines as an editor shows them: a final line without a newline still counts."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def describe_document(root: Path, path: Path, kind: str) -> MemoryDocument:
    """Stat and count one document (reads it once to count lines)."""
    data = path.read_bytes()
    st = path.stat()
    return MemoryDocument(
        path=path,
        rel=path.relative_to(root).as_posix(),
        kind=kind,
        format=document_format(path),
        size=len(data),
        lines=count_lines(data),
        mtime=datetime.fromtimestamp(st.st_mtime, tz=timezone.utc),
    )


def discover_documents(root: Path) -> list[MemoryDocument]:
    """All memory documents of the workspace at `root`, ordered by kind, then path.

    Only regular files count; a symlink is followed only if it stays inside the workspace,
    so a link cannot make memtui show or edit a file elsewhere.
    """
    root = Path(root).resolve()
    found: dict[Path, str] = {}
    for rel, kind in _FIXED:
        found.setdefault(root / rel, kind)
    for pattern, kind in _GLOBS + _agent_home_globs(root):
        for path in sorted(root.glob(pattern)):
            found.setdefault(path, kind)
    order = list(KINDS)
    docs = []
    for path, kind in found.items():
        if not _is_workspace_file(root, path):
            continue
        try:
            docs.append(describe_document(root, path, kind))
        except OSError:
            continue  # vanished or unreadable between glob and read: not ours to report here
    docs.sort(key=lambda d: (order.index(d.kind), _init_d_order(d), d.rel))
    return docs


def group_by_kind(docs: list[MemoryDocument]) -> dict[str, list[MemoryDocument]]:
    """Documents grouped by kind, in KINDS order, omitting empty kinds."""
    groups: dict[str, list[MemoryDocument]] = {}
    for kind in KINDS:
        members = [d for d in docs if d.kind == kind]
        if members:
            groups[kind] = members
    return groups


def resolve_document(root: Path, name: str) -> Path:
    """The path of a document given as a workspace-relative path, an absolute path or a
    bare file name (matched against discovered documents). Raises DocumentNotFound."""
    root = Path(root).resolve()
    candidate = Path(name)
    path = candidate if candidate.is_absolute() else root / candidate
    if path.is_file() and _is_workspace_file(root, path):
        return path.resolve()
    matches = [d.path for d in discover_documents(root) if d.name == name or d.rel == name]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        listing = ", ".join(str(p.relative_to(root)) for p in matches)
        raise DocumentNotFound(f"{name} is ambiguous: {listing}")
    raise DocumentNotFound(f"no memory document {name} in {root}")


def _agent_home_globs(root: Path) -> tuple[tuple[str, str], ...]:
    """The Claude Code home's documents when `root` is one, or the user's home folder holding
    one (`cd ~ && memtui`), with Codex's global AGENTS.md beside it."""
    if is_claude_home(root):
        return _CLAUDE_HOME_GLOBS
    globs: tuple[tuple[str, str], ...] = ()
    if is_claude_home(root / ".claude"):
        globs += tuple((f".claude/{pattern}", kind) for pattern, kind in _CLAUDE_HOME_GLOBS)
    if (root / ".codex" / "sessions").is_dir():
        globs += ((".codex/AGENTS.md", "instructions"), (".codex/AGENTS.override.md", "instructions"))
    return globs


def is_claude_home(root: Path) -> bool:
    """Whether `root` is a Claude Code home (`~/.claude`, `$CLAUDE_CONFIG_DIR`): transcripts
    under projects/ beside the files Claude Code keeps there."""
    return (root / "projects").is_dir() and (
        root.name == ".claude" or (root / "settings.json").is_file() or (root / "history.jsonl").is_file())


def _is_workspace_file(root: Path, path: Path) -> bool:
    try:
        if not path.is_file():
            return False
        path.resolve().relative_to(root)
    except (OSError, ValueError):
        return False
    return True


def _init_d_order(doc: MemoryDocument) -> int:
    # run-init.sh reads the numbered files; list it after them, as the reader of the list.
    return 1 if doc.rel == ".agent/run-init.sh" else 0
