"""Discovering and reading memory documents."""

from __future__ import annotations

from memory_workspace import make_workspace
import pytest

from memtui.core.errors import DocumentNotFound
from memtui.core.memory import discover_documents, group_by_kind, markdown_headings, parse_jsonl, read_document
from memtui.core.memory.discover import resolve_document


def test_discovers_every_kind_in_order(tmp_path):
    root = make_workspace(tmp_path / "ws")
    docs = discover_documents(root)
    rels = [d.rel for d in docs]
    assert rels == [
        "HISTORY.jsonl",
        "MEMORY.md",
        "PROJECT_MEMORY.md",
        "SESSION.jsonl",
        "SESSION_SUMMARY.md",
        ".agent/plan/PLAN.md",
        ".agent/plan/PROGRESS.md",
        ".agent/init.d/01-navigation.md",
        ".agent/init.d/02-principles.md",
        ".agent/init.d/03-progress.md",
        ".agent/init.d/04-decision-log.md",
        ".agent/run-init.sh",
        ".agent/skills/bisect/SKILL.md",
        "AGENTS.md",
    ]
    groups = group_by_kind(docs)
    assert list(groups) == ["memory", "session", "plan", "init.d", "skills", "instructions"]
    memory = next(d for d in docs if d.rel == "MEMORY.md")
    assert memory.lines == 8 and memory.size == len((root / "MEMORY.md").read_bytes())
    assert memory.format == "markdown" and memory.mtime.year == 2026
    assert next(d for d in docs if d.rel == "SESSION.jsonl").format == "jsonl"
    # source files the navigation mentions are not memory documents
    assert "src/io.py" not in rels


def test_discovers_claude_and_layered_jsonl_layouts(tmp_path):
    root = make_workspace(tmp_path / "ws", {
        "CLAUDE.md": "x\n", "CLAUDE.local.md": "y\n", ".claude/CLAUDE.md": "z\n",
        "memory/MEMORY.md": "m\n", "memory/USER.md": "u\n", "memory/history.jsonl": "{}\n",
        ".agent/run-init.sh": "#!/bin/sh\n",
    })
    kinds = {d.rel: d.kind for d in discover_documents(root)}
    assert kinds["CLAUDE.md"] == kinds["CLAUDE.local.md"] == kinds[".claude/CLAUDE.md"] == "instructions"
    assert kinds["memory/MEMORY.md"] == kinds["memory/USER.md"] == kinds["memory/history.jsonl"] == "memory"


def test_symlink_out_of_the_workspace_is_not_a_document(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("secret\n")
    root = make_workspace(tmp_path / "ws", {"AGENTS.md": "a\n", ".agent/run-init.sh": ""})
    (root / "MEMORY.md").symlink_to(outside)
    assert [d.rel for d in discover_documents(root)] == [".agent/run-init.sh", "AGENTS.md"]


def test_resolve_document_by_name_or_path(tmp_path):
    root = make_workspace(tmp_path / "ws")
    assert resolve_document(root, "MEMORY.md") == root / "MEMORY.md"
    assert resolve_document(root, "SKILL.md") == root / ".agent/skills/bisect/SKILL.md"
    assert resolve_document(root, ".agent/plan/PLAN.md") == root / ".agent/plan/PLAN.md"
    make_workspace(root, {".agent/skills/other/SKILL.md": "o\n", ".agent/run-init.sh": ""})
    with pytest.raises(DocumentNotFound, match="ambiguous"):
        resolve_document(root, "SKILL.md")
    with pytest.raises(DocumentNotFound):
        resolve_document(root, "NOPE.md")
    with pytest.raises(DocumentNotFound):
        resolve_document(root, "../" + root.name + "/../x.md")


def test_jsonl_malformed_lines_are_reported_by_number_and_skipped(tmp_path):
    root = make_workspace(tmp_path / "ws")
    doc = read_document(root / "SESSION.jsonl")
    parsed = parse_jsonl(doc.text, "SESSION.jsonl")
    assert [r.line for r in parsed.records] == [1, 2, 4]
    assert parsed.records[2].value == {"role": "tool", "content": "pytest passed"}
    assert [(p.file, p.line) for p in parsed.problems] == [("SESSION.jsonl", 3)]
    assert "malformed JSON" in parsed.problems[0].message
    assert parsed.columns() == ["role", "content"]


def test_jsonl_blank_lines_scalars_and_garbage_never_raise():
    parsed = parse_jsonl('\n\n"just a string"\n[1, 2]\n\x00\x01\n{"a": NaN}\n{"a": 1}}\n')
    assert [r.value for r in parsed.records][:2] == ["just a string", [1, 2]]
    assert [p.line for p in parsed.problems] == [5, 7]


def test_invalid_utf8_opens_read_only_with_the_offset(tmp_path):
    path = tmp_path / "MEMORY.md"
    data = b"# Memory\n\nline two \xff\xfe broken\n"
    path.write_bytes(data)
    doc = read_document(path)
    assert doc.readonly and doc.text is None
    assert doc.data == data
    assert "invalid UTF-8 at byte 19 (line 3)" in doc.encoding_error
    assert path.read_bytes() == data  # reading never rewrites


def test_valid_document_is_editable_and_keeps_its_bytes(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes("# Mémoire\r\nligne\r\n".encode())
    doc = read_document(path)
    assert not doc.readonly and doc.text == "# Mémoire\r\nligne\r\n"
    assert doc.version.size == len(doc.data)


def test_missing_document_is_a_clear_error(tmp_path):
    with pytest.raises(DocumentNotFound):
        read_document(tmp_path / "nope.md")


def test_headings_skip_code_fences():
    text = "# Title\n\n```md\n## not a heading\n```\n\n## Real ##\n~~~\n# no\n~~~\n### Deep\n"
    assert [(h.level, h.title, h.line) for h in markdown_headings(text)] == [
        (1, "Title", 1), (2, "Real", 7), (3, "Deep", 11)]


def test_discovery_and_lint_on_the_demo(tmp_path):
    from memtui.core.demo import build_demo
    from memtui.core.memory import lint_workspace
    from memtui.core.memory.decisions import read_decisions
    from memtui.core.store import AgentStore

    root = build_demo(tmp_path / "demo")
    groups = group_by_kind(discover_documents(root))
    assert list(groups) == ["memory", "session", "plan", "init.d", "skills"]
    assert [d.name for d in groups["init.d"]] == [
        "01-navigation.md", "02-principles.md", "03-progress.md", "04-decision-log.md", "run-init.sh"]
    session = parse_jsonl(read_document(root / "SESSION.jsonl").text)
    assert session.records and not session.problems
    decisions = read_decisions(root / ".agent/init.d/04-decision-log.md")
    assert len(decisions) >= 3 and any(d.missing_why for d in decisions)
    with AgentStore.open(root, readonly=True) as store:
        findings = lint_workspace(root, unfinished_task=store.has_unfinished_tasks(),
                                  newest_checkpoint_at=store.newest_checkpoint_at())
    assert "decision-missing-why" in {f.rule for f in findings}


def test_parse_jsonl_reports_a_line_nested_too_deeply_and_reads_the_rest():
    from memtui.core.memory.documents import parse_jsonl

    deep = "[" * 100_000 + "]" * 100_000
    doc = parse_jsonl('{"a": 1}\n' + deep + '\n{"b": 2}\n', "HISTORY.jsonl")
    assert [r.line for r in doc.records] == [1, 3]
    assert [(p.line, p.message) for p in doc.problems] == [(2, "nested more than 256 levels deep, skipped")]
    shallow = parse_jsonl("[" * 200 + "]" * 200 + "\n")
    assert len(shallow.records) == 1 and not shallow.problems
