"""Writing the demo workspace's files: the project as the story left it, and the memory
documents with their dates moved to the story's week."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

from memtui.core.demo_data import memory as M


def write_files(root: Path, files: dict[str, bytes]) -> None:
    """The project's files as the story left them (`files`: path under root → bytes)."""
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _moved(text: str, start: datetime) -> str:
    """The memory documents' dates (written for a story starting 2026-11-02) moved with the story."""
    return re.sub(r"2026-11-0(\d)", lambda m: (start + timedelta(days=int(m[1]) - 2)).strftime("%Y-%m-%d"), text)


def write_memory(root: Path, start: datetime) -> None:
    """The memory documents, their dates moved to a story starting at `start`."""
    docs = {
        "MEMORY.md": M.MEMORY_MD, "PROJECT_MEMORY.md": M.PROJECT_MEMORY_MD,
        "SESSION_SUMMARY.md": M.SESSION_SUMMARY_MD,
        ".agent/plan/PLAN.md": M.PLAN_MD, ".agent/plan/PROGRESS.md": M.PROGRESS_MD,
        ".agent/init.d/01-navigation.md": M.NAVIGATION_MD, ".agent/init.d/02-principles.md": M.PRINCIPLES_MD,
        ".agent/init.d/03-progress.md": M.INIT_PROGRESS_MD, ".agent/init.d/04-decision-log.md": M.DECISION_LOG_MD,
        ".agent/run-init.sh": M.RUN_INIT_SH, ".agent/skills/bisect-flaky-test/SKILL.md": M.SKILL_MD,
    }
    for rel, text in docs.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_moved(text, start), encoding="utf-8")
    (root / ".agent/run-init.sh").chmod(0o755)
    session = [
        {"role": "user", "content": "The suite takes 9 seconds; make it fast.", "at": "2026-11-05T16:02:11Z"},
        {"role": "assistant", "content": "Profiling with --durations=10 first.", "at": "2026-11-05T16:02:30Z"},
        {"role": "tool", "name": "bash", "content": "0.52s call tests/test_server.py::test_keepalive",
         "at": "2026-11-05T16:03:02Z"},
    ]
    history = [
        {"cursor": i + 1, "content": text, "at": f"2026-11-0{2 + i}T18:00:00Z"}
        for i, text in enumerate([
            "Routing: regex patterns, (handler, params) return.",
            "Parser split; headers.py folds repeated fields.",
            "Async server experiment abandoned (code size doubled).",
        ])
    ]
    for name, records in (("SESSION.jsonl", session), ("HISTORY.jsonl", history)):
        (root / name).write_text(_moved("".join(json.dumps(r) + "\n" for r in records), start), encoding="utf-8")
