"""kill -9 while a new store is being created (`AgentStore.open` of a workspace without one):
at statements that build the temp database and just after it is linked into place. Afterwards
there is no agent.db or a whole one; the next open makes or uses it; and no temp file of the
creation — nor its SQLite log — stays anywhere in the workspace. (Every statement, and kills at
moments spread over the creation: tests/reliability/test_store_create_kill.py.)"""

from __future__ import annotations

from store_create_kill import check_after_kill, create_in_child


def test_kill_9_while_creating_a_store_leaves_none_or_a_whole_one_and_no_temp_file(tmp_path):
    killed, out = create_in_child(tmp_path / "full", "statement:0")  # counts, never kills
    assert not killed and out.split()[-2] == "done", out
    statements = int(out.split()[-1])
    assert statements > 10
    left = {}
    for n in sorted({statements // 2, statements}):
        workspace = tmp_path / f"s{n}"
        killed, out = create_in_child(workspace, f"statement:{n}")
        assert killed, out
        left[n] = check_after_kill(workspace)
    killed, out = create_in_child(tmp_path / "linked", "linked")
    assert killed, out
    left["linked"] = check_after_kill(tmp_path / "linked")
    assert left == {statements // 2: "none", statements: "none", "linked": "store"}
