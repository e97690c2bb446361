"""The start-up chain of an agent that keeps memtui's init.d layout (DESIGN.md §4).

At every cold start `.agent/run-init.sh` prints `.agent/init.d/*.md` in name order: those
files are what the agent starts with, in full. The workspace's other memory documents —
long-term memory, the session summary and tail, plan & progress, skills — are read when the
agent needs them (on demand), in the order DESIGN.md §4 lists them.
"""

from __future__ import annotations

from pathlib import Path

from memtui.core.memory.chain import AgentChain, ChainBuilder
from memtui.core.memory.discover import discover_documents

_ON_DEMAND = {
    "memory": "long-term memory: read when the agent needs it (run-init.sh does not print it)",
    "session": "session summary / tail: read to resume after a compaction",
    "plan": "plan & progress: read when the agent resumes the work",
    "skills": "skill: read when a task calls for it",
}


def initd_chain(root: Path, cwd: Path) -> AgentChain:
    b = ChainBuilder("memtui", cwd)
    runner = root / ".agent" / "run-init.sh"
    initd = root / ".agent" / "init.d"
    how = "printed by .agent/run-init.sh" if runner.is_file() else "read in name order"
    if initd.is_dir():
        for path in sorted(initd.glob("*.md"), key=lambda p: p.name.encode()):
            if path.is_file():
                b.add(path, "project", reason=f"init.d: {how} at every cold start")
    for doc in discover_documents(root):
        if doc.kind in _ON_DEMAND:
            b.add(doc.path, "project", on_demand=True, reason=_ON_DEMAND[doc.kind])
    return b.build(root)
