"""Each lint rule, positive and negative."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from memory_workspace import FIXED_MTIME, FILES, make_workspace

from memtui.core.memory import lint_workspace

MTIME = datetime.fromtimestamp(FIXED_MTIME, timezone.utc)


def rules(findings):
    return sorted({(f.file, f.rule) for f in findings})


def test_the_fixture_is_clean_except_its_one_decision_without_why(tmp_path):
    root = make_workspace(tmp_path / "ws")
    (root / "docs").mkdir()
    (root / "docs/ARCHITECTURE.md").write_text("x\n")
    findings = lint_workspace(root, unfinished_task=True, newest_checkpoint_at=MTIME - timedelta(hours=1))
    assert [(f.file, f.line, f.rule) for f in findings] == [
        (".agent/init.d/04-decision-log.md", 9, "decision-missing-why")]
    assert "Drop the plugin loader" in findings[0].message


def test_initd_file_longer_than_50_lines(tmp_path):
    root = make_workspace(tmp_path / "ws", {".agent/init.d/02-principles.md": "- rule\n" * 51,
                                            ".agent/init.d/05-ok.md": "- rule\n" * 50, ".agent/run-init.sh": ""})
    findings = [f for f in lint_workspace(root) if f.rule == "initd-too-long"]
    assert [(f.file, f.line) for f in findings] == [(".agent/init.d/02-principles.md", 51)]
    assert "51 lines" in findings[0].message


def test_memory_longer_than_200_lines(tmp_path):
    root = make_workspace(tmp_path / "ws", {"MEMORY.md": "- fact\n" * 201, "memory/MEMORY.md": "- f\n" * 200,
                                            ".agent/run-init.sh": ""})
    assert [(f.file, f.line, f.rule) for f in lint_workspace(root)] == [("MEMORY.md", 201, "memory-too-long")]


def test_summary_without_active_checkpoint_while_a_task_is_unfinished(tmp_path):
    files = dict(FILES, **{"SESSION_SUMMARY.md": "# Summary\n\n## Goal\nx\n"})
    root = make_workspace(tmp_path / "ws", files)
    assert ("SESSION_SUMMARY.md", "missing-active-checkpoint") in rules(lint_workspace(root, unfinished_task=True))
    # nothing unfinished: no checkpoint section is needed
    assert ("SESSION_SUMMARY.md", "missing-active-checkpoint") not in rules(lint_workspace(root))
    # the fixture's summary has one
    root2 = make_workspace(tmp_path / "ws2")
    assert ("SESSION_SUMMARY.md", "missing-active-checkpoint") not in rules(lint_workspace(root2, unfinished_task=True))


def test_active_checkpoint_as_a_bold_label_counts(tmp_path):
    root = make_workspace(tmp_path / "ws", {"SESSION_SUMMARY.md": "**Active checkpoint:** lock\n",
                                            ".agent/run-init.sh": ""})
    assert lint_workspace(root, unfinished_task=True) == []


def test_progress_and_summary_older_than_the_newest_checkpoint(tmp_path):
    root = make_workspace(tmp_path / "ws")
    later = MTIME + timedelta(minutes=5)
    stale = [(f.file, f.line) for f in lint_workspace(root, newest_checkpoint_at=later) if f.rule == "possibly-stale"]
    assert stale == [(".agent/plan/PROGRESS.md", None), ("SESSION_SUMMARY.md", None)]
    # naive datetimes are UTC
    naive = later.replace(tzinfo=None)
    assert len([f for f in lint_workspace(root, newest_checkpoint_at=naive) if f.rule == "possibly-stale"]) == 2
    # rewritten after the checkpoint: fresh
    newer = (later + timedelta(minutes=1)).timestamp()
    os.utime(root / ".agent/plan/PROGRESS.md", (newer, newer))
    stale = [f.file for f in lint_workspace(root, newest_checkpoint_at=later) if f.rule == "possibly-stale"]
    assert stale == ["SESSION_SUMMARY.md"]
    assert not [f for f in lint_workspace(root) if f.rule == "possibly-stale"]


def test_decision_without_why(tmp_path):
    root = make_workspace(tmp_path / "ws", {
        "DECISIONS.md": "# D\n\n## 2026-01-01 A\n- Why: because\n\n## B\n- Chosen: b\n- Why:\n",
        ".agent/run-init.sh": "",
    })
    found = [(f.file, f.line, f.rule) for f in lint_workspace(root)]
    assert found == [("DECISIONS.md", 6, "decision-missing-why")]


def test_navigation_path_that_does_not_exist(tmp_path):
    nav = (
        "# Navigation\n\n"
        "- `src/io.py` — exists\n"              # 3
        "- `src/gone.py:12` — missing\n"        # 4
        "- docs/ARCHITECTURE.md: missing\n"     # 5
        "- See [the plan](.agent/plan/PLAN.md)\n"  # 6
        "- Run `pytest -q` and `make test`\n"   # 7 commands, not paths
        "- https://example.com/a/b and `$HOME/x` and `*.py`\n"  # 8
        "- `memtui.cli` is a module\n"          # 9
        "```\nnot/here.py\n```\n"
        "- [gone](old/README.md#intro)\n"       # 13
    )
    root = make_workspace(tmp_path / "ws", {".agent/init.d/01-navigation.md": nav, "src/io.py": "",
                                            ".agent/plan/PLAN.md": "p\n", ".agent/run-init.sh": ""})
    found = [(f.line, f.message) for f in lint_workspace(root) if f.rule == "navigation-missing-path"]
    assert found == [
        (4, "src/gone.py does not exist in the workspace"),
        (5, "docs/ARCHITECTURE.md does not exist in the workspace"),
        (13, "old/README.md does not exist in the workspace"),
    ]


def test_findings_carry_file_line_rule_message(tmp_path):
    root = make_workspace(tmp_path / "ws")
    finding = lint_workspace(root)[0]
    assert set(vars(finding)) == {"file", "line", "rule", "message"}


def test_navigation_path_after_a_label_or_anywhere_in_a_list_item(tmp_path):
    nav = (
        "# Navigation\n\n"
        "- scheduler: src/core/scheduler.ts\n"          # 3 label: path (missing)
        "- io: src/io.py\n"                             # 4 exists
        "- core: src/core\n"                            # 5 folder after a label (missing)
        "- the store lives in src/store/ (see docs/x.md)\n"  # 6 two missing paths mid-item
        "- works for and/or client/server, e.g. v1.2\n"  # 7 prose: no paths
        "Plain prose mentions lib/none.py\n"            # 8 not a list item: not checked
    )
    root = make_workspace(tmp_path / "ws", {".agent/init.d/01-navigation.md": nav, "src/io.py": "",
                                            ".agent/run-init.sh": ""})
    found = [(f.line, f.message.split()[0]) for f in lint_workspace(root) if f.rule == "navigation-missing-path"]
    assert found == [(3, "src/core/scheduler.ts"), (5, "src/core"), (6, "src/store/"), (6, "docs/x.md")]


def test_a_backticked_path_after_a_label_is_looked_up_without_its_backticks(tmp_path):
    nav = "# Navigation\n\n- Source: `src/pkg/`\n- Router: `src/pkg/router.py`\n- Gone: `src/pkg/gone.py`\n"
    root = make_workspace(tmp_path / "ws", {".agent/init.d/01-navigation.md": nav, "src/pkg/router.py": "",
                                            ".agent/run-init.sh": ""})
    found = [(f.line, f.message) for f in lint_workspace(root) if f.rule == "navigation-missing-path"]
    assert found == [(5, "src/pkg/gone.py does not exist in the workspace")]


def test_the_demos_navigation_file_names_only_paths_that_exist(tmp_path):
    from memtui.core.demo import build_demo

    root = build_demo(tmp_path / "demo", seed=1)
    assert [f.message for f in lint_workspace(root) if f.rule == "navigation-missing-path"] == []


def test_a_rollback_made_in_memtui_leaves_progress_and_summary_fresh(tmp_path, capsys):
    """The rollback's own checkpoint is memtui's, not the agent's newest work: PROGRESS.md and
    SESSION_SUMMARY.md written after the agent's last checkpoint are not flagged once a file
    is rolled back (they were, as possibly-stale)."""
    from memtui.cli import main
    from memtui.core.store import AgentStore

    root = make_workspace(tmp_path / "ws")
    agent_time = MTIME - timedelta(hours=1)  # the agent's work, before the documents were written
    (root / "a.py").write_text("after\n")
    with AgentStore.open(root, clock=lambda: agent_time) as store:
        task = store.start_task(store.start_session("s"), "edit a.py")
        store.record_checkpoint(task, None, {"a.py": (b"before\n", b"after\n")})
    assert _stale(root, capsys) == []
    assert main(["rollback", str(root), "--task", str(task), "--yes"]) == 0
    assert (root / "a.py").read_text() == "before\n"
    capsys.readouterr()
    assert _stale(root, capsys) == []


def _stale(root, capsys) -> list[str]:
    import json

    from memtui.cli import main

    capsys.readouterr()
    main(["lint", str(root), "--json"])
    return [f["file"] for f in json.loads(capsys.readouterr().out) if f["rule"] == "possibly-stale"]
