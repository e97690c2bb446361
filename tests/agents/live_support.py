"""Opening a live fixture (tests/fixtures/live/<agent>-<version>/<scenario>/) with memtui, and
reading back what a user would see of it: per session its prompts, tool calls, file changes,
sub-agents and tokens — to set beside the fixture's truth.json."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from memtui.core.discovery import discover
from memtui.core.memory_source import MemorySource
from memtui.core.model import TaskInfo

LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "live"
HOME_FOLDER = {"claude-code": ".claude", "codex": ".codex", "gemini-cli": ".gemini"}
# Steps that are not the model's tool calls: its text, and what the agent recorded around them.
NOT_CALLS = frozenset({"reply", "checkpoint", "compaction", "compacted", "turn_diff", "interrupted", "interrupt",
                       "notification", "command", "command output", "notice", "api error"})
# The operations whose file changes an agent's sessions record: Claude Code's edit tools (a
# file removed by a shell command is not in its transcript); every Codex patch; Gemini CLI's
# write_file and replace.
RECORDED_OPS = {"claude-code": {"Write", "Edit", "MultiEdit"}, "codex": {"Write", "Edit", "MultiEdit", "Delete"},
                "gemini-cli": {"Write", "Edit"}}


def fixtures(*agents: str) -> list[Path]:
    """Every committed fixture of these agents (all versions), sorted."""
    return sorted(p.parent for p in LIVE.glob("*/*/truth.json") if p.parent.parent.name.rsplit("-", 1)[0] in agents)


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def agent_of(fixture: Path) -> str:
    return fixture.parent.name.rsplit("-", 1)[0]


def truth_of(fixture: Path) -> dict:
    return json.loads((fixture / "truth.json").read_text())


def agent_home(fixture: Path) -> Path:
    return fixture / "home" / HOME_FOLDER[agent_of(fixture)]


def open_fixture(fixture: Path) -> MemorySource:
    """The fixture's agent home as memtui finds it (one source of the agent's kind)."""
    [found] = discover(agent_home(fixture))
    assert found.kind == agent_of(fixture)
    return found.open()


def fingerprint(folder: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under `folder`: size, mtime, sha256 (a read that writes changes one)."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.rglob("*")) if p.is_file()}


@dataclass
class SessionView:
    """One session as memtui shows it: its prompt tasks in order, each with its sub-agent tasks
    and the side questions asked after it."""

    source: MemorySource
    id: str
    prompts: list[TaskInfo]
    subagents: dict[str, list[TaskInfo]]  # prompt task id → the tasks it handed work to
    asides: dict[str, list[TaskInfo]]  # prompt task id → the side questions asked during it

    def calls(self, task_id: str) -> list[str]:
        return [s.tool for s in self.source.steps(task_id) if s.tool not in NOT_CALLS]

    def tasks(self) -> list[TaskInfo]:
        return [t for p in self.prompts for t in (p, *self.subagents[str(p.id)], *self.asides[str(p.id)])]

    def changes(self, task: TaskInfo) -> list:
        """The file changes a task made (its own checkpoints' entries, recording order)."""
        return [e for c in self.source.checkpoints(task.id) if c.label == ""
                for e in self.source.checkpoint_entries(c.id)]

    def output_tokens(self) -> int:
        return sum(s.tokens_out for t in self.tasks() for s in self.source.steps(t.id))


def is_aside(task: TaskInfo) -> bool:
    """A side question, as memtui notes it on the task."""
    return "side question" in task.summary.split("; ")


def sessions(source: MemorySource) -> list[SessionView]:
    """Each session: tasks handed work by another task are its sub-agents (or side questions),
    the rest prompts."""
    views = []
    for session in source.sessions():
        tasks = list(source.tasks(session.id))
        children: dict[str, list[str]] = {}
        for t in tasks:
            for ref in source.references(t.id):
                if ref.kind == "handoff" and str(ref.from_task) == str(t.id):
                    children.setdefault(str(t.id), []).append(str(ref.to_task))
        handed = {c for cs in children.values() for c in cs}
        by_id = {str(t.id): t for t in tasks}
        prompts = [t for t in tasks if str(t.id) not in handed]
        nested = {str(p.id): [by_id[c] for c in children.get(str(p.id), []) if c in by_id] for p in prompts}
        views.append(SessionView(source, str(session.id), prompts,
                                 {p: [t for t in found if not is_aside(t)] for p, found in nested.items()},
                                 {p: [t for t in found if is_aside(t)] for p, found in nested.items()}))
    return views
