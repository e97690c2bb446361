"""The memory lint rules applied to each file of an agent's chain (also the ones outside
the workspace: a user-level CLAUDE.md, an auto-memory MEMORY.md)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from memtui.core.memory.chain_records import ChainFile, ChainProblem, FileRead
from memtui.core.memory.discover import MemoryDocument, discover_documents, document_format
from memtui.core.memory.lint import lint_document


def lint_chain_files(root: Path, files: list[ChainFile], reads: dict[Path, FileRead],
                     problems: list[ChainProblem]) -> list[ChainProblem]:
    """Lint findings for `files`, as ChainProblems with absolute paths. A MEMORY.md whose
    cut-off the chain already reports does not get the generic memory-too-long as well."""
    kinds = {d.path: d.kind for d in discover_documents(root)}
    cut = {p.file for p in problems if p.rule == "cut-off"}
    out = []
    for entry in files:
        read = reads.get(entry.path)
        if read is None or read.error is not None:
            continue
        doc = _document(root, entry.path, read, kinds)
        for finding in lint_document(root, doc, read.text):
            if finding.rule == "memory-too-long" and entry.path in cut:
                continue
            out.append(ChainProblem(entry.path, finding.line, finding.rule, finding.message))
    return out


def _document(root: Path, path: Path, read: FileRead, kinds: dict[Path, str]) -> MemoryDocument:
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = str(path)
    kind = kinds.get(path) or ("init.d" if rel.startswith(".agent/init.d/") else
                               "memory" if path.name == "MEMORY.md" else "instructions")
    try:
        mtime = datetime.fromtimestamp(os.stat(path).st_mtime, tz=timezone.utc)
    except OSError:
        mtime = datetime.now(timezone.utc)
    return MemoryDocument(path, rel, kind, document_format(path), read.size, read.lines, mtime)
