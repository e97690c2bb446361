"""The cleanup plan: for every session and orphan of an agent home, keep or go, and why.

Pure: it reads an Inventory, the pins and a clock, and decides. Rules, in order (the first
that applies is the reason shown):
1. live — a file modified in the last 15 minutes, a running process registered it, or its
   last turn has not ended: never touched;
2. pinned (`memtui pin`);
3. active within `keep_days`;
4. one of the `keep_last` newest sessions of its project;
otherwise the session goes (archived by default, deleted with `--delete`).
Orphans follow rules 1–3 by their files' newest time and owner's pin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from memtui.core.cleanup.inventory import Inventory, OrphanRecord, SessionRecord

LIVE_WINDOW = timedelta(minutes=15)


@dataclass(frozen=True)
class Decision:
    """What happens to one session or orphan, and the rule that decided it."""

    action: str  # "keep" | "archive" | "delete"
    reason: str


@dataclass
class CleanupPlan:
    """Decisions for a whole home, in the order the sessions were found."""

    inventory: Inventory
    action: str  # what a reclaimable item gets: "archive" | "delete"
    keep_days: int
    keep_last: int
    sessions: list[tuple[SessionRecord, Decision]] = field(default_factory=list)
    orphans: list[tuple[OrphanRecord, Decision]] = field(default_factory=list)

    @property
    def reclaimable_bytes(self) -> int:
        return sum(s.bytes for s, d in self.sessions if d.action != "keep") + sum(
            o.bytes for o, d in self.orphans if d.action != "keep")

    def going(self) -> tuple[list[SessionRecord], list[OrphanRecord]]:
        """The sessions and orphans the plan removes from the home."""
        return ([s for s, d in self.sessions if d.action != "keep"], [o for o, d in self.orphans if d.action != "keep"])


def _ago(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} days ago"


def _live(newest: datetime, now: datetime) -> str | None:
    if now - newest < LIVE_WINDOW:
        return f"live: a file was modified {_ago(now - newest)} (within 15 min)"
    return None


def plan_cleanup(inventory: Inventory, *, keep_days: int = 30, keep_last: int = 5, action: str = "archive",
                 pins: dict[str, set[str]] | None = None, now: datetime | None = None) -> CleanupPlan:
    """Decide keep/archive/delete for every session and orphan of `inventory`."""
    if action not in ("archive", "delete"):
        raise ValueError(f"unknown action {action!r}")
    now = now or datetime.now(timezone.utc)
    pinned = (pins or {}).get(inventory.agent, set())
    cutoff = now - timedelta(days=keep_days)
    plan = CleanupPlan(inventory, action, keep_days, keep_last)
    newest: dict[str | None, set[str]] = {}
    by_project: dict[str | None, list[SessionRecord]] = {}
    for s in inventory.sessions:
        by_project.setdefault(s.project, []).append(s)
    for project, group in by_project.items():
        ranked = sorted(group, key=lambda s: s.activity.timestamp(), reverse=True)
        newest[project] = {s.id for s in ranked[:keep_last]}
    for s in inventory.sessions:
        plan.sessions.append((s, _decide(s, now, cutoff, pinned, newest[s.project], plan)))
    for o in inventory.orphans:
        reason = _live(o.newest_mtime, now)
        if reason:
            decision = Decision("keep", reason)
        elif o.owner in pinned:
            decision = Decision("keep", "pinned (its session id is pinned)")
        elif o.newest_mtime >= cutoff:
            decision = Decision("keep", f"modified {_ago(now - o.newest_mtime)} (within --keep-days {keep_days})")
        else:
            decision = Decision(action, f"{o.what}; untouched for {_ago(now - o.newest_mtime).removesuffix(' ago')}")
        plan.orphans.append((o, decision))
    return plan


def _decide(s: SessionRecord, now: datetime, cutoff: datetime, pinned: set[str], newest: set[str], plan: CleanupPlan) -> Decision:
    reason = _live(s.newest_mtime, now)
    if reason:
        return Decision("keep", reason)
    if s.running:
        return Decision("keep", "live: a running agent process has it open")
    if s.turn_open:
        return Decision("keep", f"live: its last turn has not ended (last activity {_ago(now - s.activity)})")
    if s.id in pinned:
        return Decision("keep", "pinned")
    if s.activity >= cutoff:
        return Decision("keep", f"active {_ago(now - s.activity)} (within --keep-days {plan.keep_days})")
    if s.id in newest:
        where = s.project or "its project"
        newest_of = "the newest session" if plan.keep_last == 1 else f"one of the {plan.keep_last} newest sessions"
        return Decision("keep", f"{newest_of} of {where} (--keep-last {plan.keep_last})")
    among = "the newest" if plan.keep_last == 1 else f"among the {plan.keep_last} newest"
    return Decision(plan.action, f"inactive for {_ago(now - s.activity).removesuffix(' ago')}"
                                 f" and not {among} of its project")


def plan_json(plan: CleanupPlan, *, archive_bytes: int = 0, done: bool = False) -> dict:
    """The `memtui cleanup --json` document."""
    def when(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return {
        "agent": plan.inventory.agent,
        "home": str(plan.inventory.home),
        "sessions": [
            {"id": s.id, "project": s.project, "title": s.title, "files": len(s.files), "bytes": s.bytes,
             "last_activity": when(s.activity), "action": d.action, "reason": d.reason}
            for s, d in plan.sessions
        ],
        "orphans": [{"path": str(o.path), "bytes": o.bytes, "action": d.action, "reason": d.reason} for o, d in plan.orphans],
        "reclaimable_bytes": plan.reclaimable_bytes,
        "archive_bytes": archive_bytes,
        "done": done,
    }



@dataclass
class ProjectPreview:
    """One project's sessions in the plan, for the preview: what it holds and what goes."""

    project: str | None  # None: sessions that recorded no working folder; "" for orphans
    sessions: list[tuple[SessionRecord, Decision]] = field(default_factory=list)
    orphans: list[tuple[OrphanRecord, Decision]] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s, _ in self.sessions) + sum(o.bytes for o, _ in self.orphans)

    @property
    def going_bytes(self) -> int:
        return sum(s.bytes for s, d in self.sessions if d.action != "keep") + sum(
            o.bytes for o, d in self.orphans if d.action != "keep")

    @property
    def going(self) -> int:
        return sum(1 for _, d in self.sessions if d.action != "keep") + sum(1 for _, d in self.orphans if d.action != "keep")


def preview_by_project(plan: CleanupPlan) -> list[ProjectPreview]:
    """The plan grouped by project (most bytes going first; orphans last), sessions newest first."""
    groups: dict[str | None, ProjectPreview] = {}
    for s, d in plan.sessions:
        groups.setdefault(s.project, ProjectPreview(s.project)).sessions.append((s, d))
    for group in groups.values():
        group.sessions.sort(key=lambda sd: sd[0].activity.timestamp(), reverse=True)
    rows = sorted(groups.values(), key=lambda g: (-g.going_bytes, -g.bytes, g.project or ""))
    if plan.orphans:
        rows.append(ProjectPreview("", orphans=list(plan.orphans)))
    return rows
