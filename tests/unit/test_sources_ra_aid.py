"""RA.Aid 0.30.x: the fixture database was made by ra-aid itself (tests/fixtures/make_raaid_db.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from memtui.cli import main
from memtui.core.memory_source import MemorySource
from memtui.core.discovery import discover
from memtui.core.agents.ra_aid.source import RaAidSource
from memtui.core.agents.ra_aid.curate import CurateRefused, apply_curate, plan_curate

from sources_support import FIXTURES, tree_state

COUNTS = {"session": 3, "human_input": 6, "key_fact": 4, "key_snippet": 2, "research_note": 3, "trajectory": 23}


@pytest.fixture
def project(tmp_path):
    return shutil.copytree(FIXTURES / "ra_aid_project", tmp_path / "tally")


def test_detected_from_the_workspace(project):
    sources = discover(project, env={"HOME": str(project / "nohome")})
    assert [(s.kind, s.path) for s in sources] == [("memory-files", project), ("ra-aid", project / ".ra-aid" / "pk.db")]
    assert sources[0].counts() == {"files": 1}  # AGENTS.md
    assert sources[1].counts() == COUNTS and sources[1].problems() == []


@pytest.mark.parametrize("inside", [".ra-aid", ".ra-aid/pk.db"])
def test_detected_from_the_store_path(project, inside):
    [source] = discover(project / inside)
    assert source.kind == "ra-aid" and source.counts() == COUNTS
    assert "curate" in source.capabilities


def test_sessions_and_inputs_map_to_the_read_model(project):
    store = RaAidSource(project / ".ra-aid")
    assert isinstance(store, MemorySource)
    sessions = store.sessions()
    assert [s.id for s in sessions] == [3, 2, 1]  # newest activity first, like every store
    sessions = sessions[::-1]
    assert sessions[0].title == "Add a --verbose flag to the tally CLI"
    # The hil answer has a NULL session_id in RA.Aid; its trajectory rows place it in session 1.
    assert [(t.id, t.session_id) for t in store.tasks(1)] == [(1, 1), (2, 1)]
    # Chat mode's duplicate first input (NULL session) lands in session 2 by its time.
    assert [t.id for t in store.tasks(2)] == [3, 4, 5]
    assert store.tasks(None) == []
    assert store.task(2).summary == "source: hil"
    assert store.messages(6)[0].content == "Write a README section for --verbose"


def test_trajectory_rows_are_steps_with_errors_costs_and_orphans(project):
    store = RaAidSource(project / ".ra-aid")
    steps = store.steps(1)
    tools = [s.tool for s in steps]
    # tool_name is '' for stage rows: the record type stands in; model_usage (NULL input) joins input 1.
    assert tools[:3] == ["user_query", "stage_transition", "ripgrep_search"]
    assert "model_usage" in tools and "put_complete_file_contents" in tools
    usage = next(s for s in steps if s.tool == "model_usage")
    assert (usage.tokens_in, usage.tokens_out, usage.cost) == (1830, 212, pytest.approx(0.004215))
    error = next(s for s in steps if s.status == "error")
    assert error.tool == "file_str_replace" and "String not found" in error.error
    assert steps[2].args["pattern"] == "add_argument" and steps[2].result["success"] is True
    assert store.task(1).status == "completed" and store.task(1).step_count == len(steps)
    assert [s.seq for s in store.steps(1, offset=2, limit=2)] == [3, 4]  # numbered from 1


def test_a_sessions_stored_bytes_are_its_steps_payloads(project):
    """The sessions pane's "Stored" of an RA.Aid session: the bytes of its trajectory rows'
    payloads (parameters, result, step data, error) as stored in pk.db — the sessions share that
    one file, so every session read "0 B". Every row of this database is in one of them."""
    db = sqlite3.connect(f"{(project / '.ra-aid' / 'pk.db').as_uri()}?immutable=1", uri=True)
    size = " + ".join(f"COALESCE(length(CAST({c} AS BLOB)), 0)" for c in
                      ("tool_parameters", "tool_result", "step_data", "error_message", "error_details"))
    each = dict(db.execute(f"SELECT id, {size} FROM trajectory"))
    db.close()
    store = RaAidSource(project / ".ra-aid")
    sessions = store.sessions()
    for session in sessions:
        steps = [step.id for task in store.tasks(session.id) for step in store.steps(task.id)]
        assert session.stored_bytes == sum(each[step] for step in steps) > 0, session.id
    assert sum(s.stored_bytes for s in sessions) == sum(each.values())


def test_memory_items_carry_ids_files_and_protection(project):
    store = RaAidSource(project / ".ra-aid")
    facts = store.memory_items("fact")
    assert [f.id for f in facts] == [1, 3, 4, 5]  # #2 was deleted by RA.Aid's GC tool
    assert [f.id for f in facts if f.protected] == [5]  # tied to the most recent input (#6)
    snippet = store.memory_items("snippet")[0]
    assert (snippet.filepath, snippet.line_number) == ("tally/cli.py", 4)
    assert snippet.content.startswith("def build_parser():")
    assert snippet.description == "Where new command-line flags are declared"
    assert {n.session_id for n in store.memory_items("note")} == {1, 2, 3}


def test_browsing_changes_no_byte(project):
    before = tree_state(project)
    store = RaAidSource(project / ".ra-aid")
    for session in store.sessions():
        for task in store.tasks(session.id):
            store.steps(task.id)
            store.messages(task.id)
    store.memory_items()
    plan_curate(project / ".ra-aid" / "pk.db", facts=[1])
    assert tree_state(project) == before


def test_curate_deletes_in_one_transaction_and_keeps_protected_items(project):
    db = project / ".ra-aid" / "pk.db"
    plan = plan_curate(db, facts=[1, 5, 42], snippets=[1], notes=[3])
    assert [(i.kind, i.id) for i in plan.delete] == [("fact", 1), ("snippet", 1)]
    assert plan.refused == (
        ("fact", 5, "attached to the most recent human input #6"),
        ("fact", 42, "not found"),
        ("note", 3, "attached to the most recent human input #6"),
    )
    assert apply_curate(plan) == 2
    after = RaAidSource(db)
    assert [f.id for f in after.memory_items("fact")] == [3, 4, 5]
    assert [s.id for s in after.memory_items("snippet")] == [2]
    assert after.counts()["trajectory"] == 23  # the history stays


def test_curate_refuses_all_when_an_item_became_protected(project):
    db = project / ".ra-aid" / "pk.db"
    plan = plan_curate(db, facts=[1, 4])
    conn = sqlite3.connect(db)  # RA.Aid records a new input and ties fact #4 to it
    conn.execute("INSERT INTO human_input (created_at, updated_at, content, source) VALUES ('2025-06-04 08:00:00', '2025-06-04 08:00:00', 'next', 'cli')")
    conn.execute("UPDATE key_fact SET human_input_id = last_insert_rowid() WHERE id = 4")
    conn.commit()
    conn.close()
    with pytest.raises(CurateRefused):
        apply_curate(plan)
    assert [f.id for f in RaAidSource(db).memory_items("fact")] == [1, 3, 4, 5]


def test_curate_verb_dry_run_and_json(project, capsys):
    db = project / ".ra-aid" / "pk.db"
    before = tree_state(project)
    assert main(["curate", str(project), "--fact", "1", "--note", "3", "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"] is True and report["deleted"] == 0
    assert [(d["kind"], d["id"]) for d in report["delete"]] == [("fact", 1)]
    assert report["refused"] == [{"kind": "note", "id": 3, "reason": "attached to the most recent human input #6"}]
    assert tree_state(project) == before
    assert main(["curate", str(db), "--fact", "1", "--yes"]) == 0
    assert "deleted 1 item(s)" in capsys.readouterr().out
    assert [f.id for f in RaAidSource(db).memory_items("fact")] == [3, 4, 5]


def test_curate_verb_errors_are_one_line(tmp_path, capsys):
    assert main(["curate", str(tmp_path), "--fact", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memtui: no memtui store and no other agent's store in") and err.count("\n") == 1


def test_curate_verb_without_a_terminal_deletes_as_asked(project, capsys, monkeypatch):
    """Scripts have no terminal to answer on: the ids given are the request (as gc --apply)."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["curate", str(project), "--fact", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["deleted"] == 1


def test_wrong_typed_cells_are_reported_and_the_rest_reads(project):
    db = project / ".ra-aid" / "pk.db"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE trajectory SET output_tokens = 'x', current_cost = x'00ff', tool_name = 7 WHERE id = 9")
    conn.execute("UPDATE human_input SET content = x'c3' WHERE id = 2")
    conn.execute("UPDATE key_snippet SET line_number = 'twelve' WHERE id = 1")
    conn.commit()
    conn.close()
    source = RaAidSource(db)
    assert source.counts() == COUNTS  # every row still there
    step = next(s for s in source.steps(source.index().step_task[9]) if s.id == 9)
    assert (step.tokens_in, step.tokens_out, step.cost, step.tool) == (1830, 0, 0.0, "7")
    assert source.task(2).title == "\ufffd"  # the byte that is not UTF-8, replaced
    snippet = next(i for i in source.memory_items("snippet") if i.id == 1)
    assert snippet.line_number is None
    messages = [p.message for p in source.problems()]
    assert "trajectory #9: output_tokens holds str 'x', expected an integer; read as empty" in messages
    assert "trajectory #9: current_cost holds 2 bytes of binary data, expected a number; read as empty" in messages
    assert "human_input #2: content holds 1 bytes of binary data, expected text; read as text" \
           " (invalid UTF-8 replaced)" in messages
    assert any(m.startswith("key_snippet #1: line_number holds str 'twelve'") for m in messages)
    source.steps(source.index().step_task[9])
    assert len(source.problems()) == len(messages)  # reading the steps again reports nothing twice
