"""A small, deterministic workspace with every kind of memory document, for memory tests.

Importable from tests/unit and tests/ui (tests/ is on sys.path through its conftest.py).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

# All files get this mtime, so ages and snapshots do not depend on when the test runs.
FIXED_MTIME = datetime(2026, 11, 2, 12, 0, tzinfo=timezone.utc).timestamp()

FILES: dict[str, str] = {
    "MEMORY.md": "# Memory\n\n## Preferences\n- Answer in English\n- Prefer small commits\n\n## Stable decisions\n- SQLite for storage\n",
    "PROJECT_MEMORY.md": "# Project memory\n\n## Build\n`pytest -q`\n\n## Known issues\n- flaky test_io on CI\n",
    "SESSION_SUMMARY.md": (
        "# Session summary\n\n## Goal\nFix the flaky test_io.\n\n## Active Checkpoint\n"
        "- Goal: stable test_io\n- Last reliable result: race found in io.py\n"
        "- First unfinished item: lock around flush\n- Next action: write the lock\n"
    ),
    "SESSION.jsonl": (
        '{"role": "user", "content": "fix the flaky test"}\n'
        '{"role": "assistant", "content": "looking at io.py"}\n'
        "{not json\n"
        '{"role": "tool", "content": "pytest passed"}\n'
    ),
    "HISTORY.jsonl": '{"cursor": 1, "content": "set up the zebra project", "at": "2026-10-01"}\n',
    "AGENTS.md": "# Agents\nRun `pytest -q` before committing.\n",
    ".agent/plan/PLAN.md": "# Plan\n\n## Goal\nStable CI.\n\n## Out of scope\nRewrites.\n",
    ".agent/plan/PROGRESS.md": "# Progress\n\n## Done\n- reproduced the race (evidence: run 41)\n\n## Next\n- lock\n",
    ".agent/init.d/01-navigation.md": (
        "# Navigation\n\n- `src/io.py` — the file with the race\n- `tests/test_io.py` — the flaky test\n"
        "- docs/ARCHITECTURE.md: overview\n"
    ),
    ".agent/init.d/02-principles.md": "# Principles\n\n- Evidence before summary.\n",
    ".agent/init.d/03-progress.md": "# Progress\n\nSee .agent/plan/PROGRESS.md\n",
    ".agent/init.d/04-decision-log.md": (
        "# Decision log\n\n"
        "## 2026-11-01 Use SQLite for the store\n"
        "- Problem: JSON files grew without bound\n"
        "- Options: JSON files; SQLite\n"
        "- Chosen: SQLite\n"
        "- Why: transactions and incremental GC\n\n"
        "## 2026-11-02 Drop the plugin loader\n"
        "- Problem: slow cold start\n"
        "- Options: keep it; drop it\n"
        "- Chosen: drop it\n"
    ),
    ".agent/run-init.sh": "#!/bin/sh\nfor f in .agent/init.d/*.md; do cat \"$f\"; done\n",
    ".agent/skills/bisect/SKILL.md": "# Bisect a flaky test\n\n1. Pin the seed\n2. Halve the range\n",
    "src/io.py": "def flush():\n    pass\n",
    "tests/test_io.py": "def test_io():\n    pass\n",
}


def make_workspace(root: Path, files: dict[str, str] | None = None) -> Path:
    """Write the fixture files under `root` (created), all with FIXED_MTIME."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in (FILES if files is None else files).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    (root / ".agent" / "run-init.sh").chmod(0o755)
    return root


def make_store(root: Path, unfinished: bool = True):
    """An agent.db in the workspace with one session: a finished task with a step and a
    checkpoint, and (if `unfinished`) a running task. Returns the closed store's path."""
    from memtui.core.store import AgentStore

    with AgentStore.open(root, clock=store_clock()) as store:
        record_store(store, unfinished)
        return store.db_path


def store_clock():
    """The clock make_store's records are stamped with: a minute per reading from 09:00."""
    clock = iter(datetime(2026, 11, 3, 9, minute, tzinfo=timezone.utc) for minute in range(60))
    return lambda: next(clock)


def record_store(store, unfinished: bool = True) -> None:
    """make_store's records, into `store` (memtui's store on either engine)."""
    sid = store.start_session("Fix the flaky test")
    tid = store.start_task(sid, "Investigate the zebra race")
    step = store.record_step(tid, "edit_file", {"path": "src/io.py", "note": "add quokka lock"}, "wrote 2 lines")
    store.record_checkpoint(tid, step, {"src/io.py": (b"old\n", b"new\n")})
    store.add_message(tid, "user", "please look at the narwhal failure")
    store.finish_task(tid, "completed", summary="Found the platypus in flush()")
    if unfinished:
        store.start_task(sid, "Write the lock")
