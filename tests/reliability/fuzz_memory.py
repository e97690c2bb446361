"""Garbage memory documents: whatever bytes MEMORY.md, DECISIONS.md, HISTORY.jsonl, PLAN.md or
a skill hold, reading, linting, searching and appending a decision never raise anything but a
one-line MemtuiError, and never lose what the file held."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import strategies as st

from memtui.core.errors import MemtuiError

DOCUMENTS = ("MEMORY.md", ".agent/DECISIONS.md", "HISTORY.jsonl", "SESSION.jsonl", "PLAN.md",
             ".agent/skills/x/SKILL.md", ".agent/init.d/01.md")

_json_line = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
).map(lambda v: __import__("json").dumps(v))

_markdown = st.lists(st.sampled_from([
    "# Decisions", "## 2025-01-01 Use zstd", "- **Why:** smaller", "- Problem: x", "```", "~~~", "1. item",
    "## ", "**Why**:", "- Chosen:", "\x1b[31m", "[bold]x[/]", "\u202e", "\x00", "src/missing.py", "`a.py`",
]) | st.text(max_size=40), max_size=30).map("\n".join)

document_bytes = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass")),
    _markdown.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.lists(_json_line | st.text(max_size=30), max_size=12).map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")),
    st.integers(1, 3000).map(lambda n: ("[" * n + "]" * n).encode()),
)


def exercise(root: Path, contents: dict[str, bytes]) -> list[str]:
    """Write `contents`, then do what the memory screen and the memory verbs do; what went wrong."""
    from memtui.core.memory import (add_decision, discover_documents, lint_workspace, markdown_headings, parse_jsonl,
                                    read_decisions, read_document, search_workspace)
    from memtui.core.memory.decisions import default_decision_log, find_decision_logs

    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for rel, data in contents.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    wrong: list[str] = []
    for doc in discover_documents(root):
        opened = read_document(doc.path)
        if opened.text is not None:
            markdown_headings(opened.text)
            if doc.rel.endswith(".jsonl"):
                parse_jsonl(opened.text, doc.rel)
    for log in find_decision_logs(root):
        try:
            read_decisions(log)
        except MemtuiError:
            pass
    lint_workspace(root)
    search_workspace(root, "x")
    log = default_decision_log(root)  # where `decisions --add` and the Decisions screen append
    before = log.read_bytes() if log.exists() else b""
    try:
        add_decision(root, log, "Fuzzed", "p", "a, b", "a", "because")
    except MemtuiError:
        if log.read_bytes() != before:
            wrong.append("a refused decision append changed the log")
    else:
        after = log.read_bytes()
        if before.strip() and before.rstrip(b"\n") not in after:
            wrong.append("appending a decision lost what the log held")
        if not [d for d in read_decisions(log) if d.title == "Fuzzed"]:
            wrong.append("the appended decision does not read back")
    return wrong
