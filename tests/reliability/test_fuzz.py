"""Fuzzers: wrong-typed fields of every foreign record, damaged blobs and databases (library and
CLI), garbage memory documents. Figures go to the table printed at the end of the run."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_memory
import fuzz_records
import fuzz_store
import harness as h
from conftest import FUZZ

ALL = os.environ.get("MEMTUI_FUZZ") == "all"
SAMPLE = None if ALL else FUZZ


def _records(kind: str, tmp_path) -> fuzz_records.FuzzFigures:
    if kind == "ra-aid":
        figures = fuzz_records.fuzz_ra_aid(tmp_path, SAMPLE)
    else:
        figures = fuzz_records.fuzz_jsonl_store(kind, tmp_path, SAMPLE)
    h.report(figures.line(kind))
    for site, n in figures.sites.most_common():
        h.report(f"  {n} × {site} — e.g. {figures.examples[site]}")
    for site, n in figures.wrong_fields.most_common():
        h.report(f"  {n} × wrong type in {site} — e.g. {figures.examples[site]}")
    return figures


def test_jsonl_session_records(tmp_path):
    f = _records("jsonl-sessions", tmp_path)
    assert (f.crashes, f.wrong) == (0, 0)


def test_ra_aid_cells(tmp_path):
    f = _records("ra-aid", tmp_path)
    assert (f.crashes, f.wrong) == (0, 0)


def test_claude_code_records(tmp_path):
    """Claude Code and Codex adapters are fixed where they live; this reports what is left."""
    f = _records("claude-code", tmp_path)
    assert (f.crashes, f.wrong) == (0, 0)


def test_codex_records(tmp_path):
    f = _records("codex", tmp_path)
    assert (f.crashes, f.wrong) == (0, 0)


def test_claude_code_and_codex_shapes(tmp_path):
    """The real-world shapes fixtures (compactions, sidechains, patches, early rollouts)."""
    claude = _records("claude-code shapes", tmp_path)
    codex = _records("codex shapes", tmp_path)
    assert (claude.crashes, claude.wrong, codex.crashes, codex.wrong) == (0, 0, 0, 0)


def test_damaged_blobs(tmp_path):
    f = fuzz_store.fuzz_blobs(tmp_path, FUZZ * 2)
    h.report(f.line("damaged blobs (read every entry)"))
    assert (f.crashes, f.wrong) == ([], [])


def test_damaged_database_files(tmp_path):
    f = fuzz_store.fuzz_db_files(tmp_path, FUZZ)
    h.report(f.line("damaged agent.db files (library reads)"))
    assert (f.crashes, f.wrong) == ([], [])


def test_damaged_databases_through_the_cli(tmp_path):
    f, converted = fuzz_store.fuzz_cli(tmp_path, 16)
    h.report(f.line(f"damaged agent.db × {len(fuzz_store.CLI_VERBS)} CLI verbs") + f" {len(converted)} non-stores"
             " turned into stores |")
    for c in converted:
        h.report(f"  {c}")
    assert f.crashes == []
    assert converted == []


def test_garbage_memory_documents(tmp_path):
    problems: list = []
    cases = [0]

    @settings(max_examples=FUZZ, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(fuzz_memory.DOCUMENTS), fuzz_memory.document_bytes, min_size=1))
    def run(contents):
        cases[0] += 1
        try:
            wrong = fuzz_memory.exercise(tmp_path / "ws", contents)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"traceback {type(exc).__name__}: {exc}"[:200])
        else:
            problems.extend(wrong)

    run()
    h.report(f"| garbage memory documents | {cases[0]} cases | {len(problems)} tracebacks or silently wrong |")
    assert problems == []
