"""Reading decision logs tolerantly and appending in the log's own format."""

from __future__ import annotations

import pytest

from memory_workspace import make_workspace

from memtui.core.memory import add_decision, append_decision, list_history, parse_decisions, read_decisions
from memtui.core.memory.decisions import default_decision_log, detect_style


def test_reads_the_canonical_format(tmp_path):
    root = make_workspace(tmp_path / "ws")
    decisions = read_decisions(root / ".agent/init.d/04-decision-log.md")
    assert [(d.date, d.title, d.line) for d in decisions] == [
        ("2026-11-01", "Use SQLite for the store", 3),
        ("2026-11-02", "Drop the plugin loader", 9),
    ]
    first = decisions[0]
    assert (first.problem, first.options, first.chosen, first.why) == (
        "JSON files grew without bound", "JSON files; SQLite", "SQLite", "transactions and incremental GC")
    assert not first.missing_why and decisions[1].missing_why


def test_reads_other_heading_levels_bold_labels_and_synonyms():
    text = (
        "# Decisions\n\nIntro prose, not an entry.\n\n"
        "### 2026-10-03: Use zstd\n* **Context:** zlib is big\n* **Alternatives**: lz4, zlib\n"
        "* **Decision:** zstd\n* **Rationale:** 60% smaller\n  and fast\n\n"
        "#### Keep peewee\n**Why:** small\n"
    )
    zstd, peewee = parse_decisions(text)
    assert (zstd.date, zstd.title, zstd.problem, zstd.options, zstd.chosen) == (
        "2026-10-03", "Use zstd", "zlib is big", "lz4, zlib", "zstd")
    assert zstd.why == "60% smaller\nand fast"
    assert (peewee.title, peewee.why, peewee.date) == ("Keep peewee", "small", None)


def test_reads_numbered_entries_and_why_subheadings():
    text = (
        "# Log\n"
        "1. 2026-09-01 Pick Textual\n   - Problem: need a TUI\n   - Why: widgets\n"
        "2. Pick argparse\n   - Chosen: argparse\n"
        "\n## 2026-09-03 Split the CLI\n- Options:\n1. one file\n2. one module per verb\n### Why\nReadable.\n"
    )
    textual, argparse_, split = parse_decisions(text)
    assert (textual.title, textual.date, textual.why) == ("Pick Textual", "2026-09-01", "widgets")
    assert argparse_.missing_why and argparse_.chosen == "argparse"
    assert split.options == "one file\none module per verb" and split.why == "Readable."


def test_fenced_examples_are_not_entries():
    text = "# Log\n\n```\n## 2026-01-01 Example\n- Why: x\n```\n"
    assert parse_decisions(text) == []


def test_append_in_the_canonical_format():
    new = append_decision("# Decision log\n", "Drop X", "slow", "keep; drop", "drop", "nobody uses it", "2026-11-30")
    assert new == (
        "# Decision log\n\n## 2026-11-30 Drop X\n- Problem: slow\n- Options: keep; drop\n"
        "- Chosen: drop\n- Why: nobody uses it\n"
    )
    assert parse_decisions(new)[0].why == "nobody uses it"


def test_append_follows_the_file_format():
    bold = "# D\n\n### 2026-10-03 Use zstd\n* **Decision:** zstd\n* **Rationale:** small\n"
    new = append_decision(bold, "Y", "p", "o", "c", "w", "2026-11-30")
    assert new.endswith("\n\n### 2026-11-30 Y\n* **Problem:** p\n* **Options:** o\n* **Decision:** c\n* **Rationale:** w\n")
    numbered = "# Log\n1. 2026-09-01 A\n   - Why: a\n2. 2026-09-02 B\n   - Why: b\n"
    new = append_decision(numbered, "C", "p", "o", "c", "w", "2026-11-30")
    assert new.endswith("   - Why: b\n3. 2026-11-30 C\n   - Problem: p\n   - Options: o\n   - Chosen: c\n   - Why: w\n")
    assert [d.title for d in parse_decisions(new)] == ["A", "B", "C"]
    assert detect_style(numbered).heading_level == 0


def test_multiline_values_are_folded_into_one_line():
    new = append_decision("", "T", "line one\nline two", "", "c", "w", "2026-11-30")
    assert "- Problem: line one line two\n" in new and "- Options: …\n" in new
    assert parse_decisions(append_decision("", "T", "p", "o", "c", "", "2026-11-30"))[0].missing_why
    assert parse_decisions("## A\n- Why: TODO\n")[0].missing_why


def test_add_decision_saves_through_history(tmp_path):
    root = make_workspace(tmp_path / "ws")
    path = default_decision_log(root)
    assert path == root / ".agent/init.d/04-decision-log.md"
    before = path.read_bytes()
    add_decision(root, path, "Keep history", "edits get lost", "none; history", "history", "undo", "2026-11-30")
    assert read_decisions(path)[-1].title == "Keep history"
    assert list_history(root, path)[0].read() == before


def test_default_log_without_any(tmp_path):
    assert default_decision_log(tmp_path) == tmp_path.resolve() / "DECISIONS.md"
    (tmp_path / ".agent/init.d").mkdir(parents=True)
    assert default_decision_log(tmp_path) == tmp_path.resolve() / ".agent/init.d/04-decision-log.md"


@pytest.mark.parametrize("fence", ["```", "~~~~"])
def test_an_entry_appended_after_an_unclosed_code_block_reads_back(fence):
    text = f"# Decisions\n\n## 2025-01-01 First\n- **Why:** because\n\n{fence}python\nprint(1)\n"
    new = append_decision(text, "Second", "p", "a, b", "a", "why")
    assert new.startswith(text)  # what the log held is kept as it was
    assert [d.title for d in parse_decisions(new)] == ["First", "Second"]


@pytest.mark.parametrize("text", ["\x1d", "\x0c\n", "\x1c\x1d\x1e\x1f"])
def test_a_log_of_control_characters_is_kept_when_appending(text):
    new = append_decision(text, "First", "p", "a", "a", "why")
    assert new.startswith(text)
    assert [d.title for d in parse_decisions(new)] == ["First"]
