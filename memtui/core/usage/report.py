"""Usage and cost grouped by day, week, month, model, project, machine or session.

Agent-neutral: it takes `Reply` records (one model reply's tokens, who made it, when, and the
cost its store recorded, if any) from any source, prices them through a `Pricer`, filters and
groups them. `memtui usage` and the app's usage screen print what `summarise` returns.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Iterable, Literal

from memtui.core.usage.prices import PriceTable, Pricer, price_table
from memtui.core.usage.tokens import NO_TOKENS, Tokens

GROUPINGS = ("day", "week", "month", "model", "project", "machine", "session")
Grouping = Literal["day", "week", "month", "model", "project", "machine", "session"]
ORIGIN_GROUPINGS = frozenset({"machine"})
"""What only a source whose sessions name their machine (a team store) can group by."""
NO_MODEL = "(no model recorded)"


# Not frozen, but compared and hashed by value as if it were, and never changed once made: a
# warm usage report makes one per reply kept (236,000 on a heavy home), and a frozen dataclass's
# __init__ (object.__setattr__ per field) cost it three times a plain one's.
@dataclass(slots=True, unsafe_hash=True)
class Reply:
    """One model reply (or a step's worth of them) as a source recorded it.

    `cost` is what the store itself recorded (memtui's own store), which wins over the table;
    None to price `tokens` by `model`. `task_id` is the turn it is counted in: a sub-agent
    round's or a compaction's replies name the turn that caused them. `machine` is the one a
    team store's session was pushed from ("" for a store on this machine)."""

    agent: str
    session_id: str
    task_id: int | str  # the store's own id of the turn (memtui's are integers)
    at: datetime | None
    model: str
    tokens: Tokens
    cost: float | None = None
    project: str = ""
    session_title: str = ""
    home: str = ""
    machine: str = ""


@dataclass(slots=True, unsafe_hash=True)  # as Reply: not frozen, for the speed of making one
class Priced:
    """A reply and its cost (None: its model has no price in the table)."""

    reply: Reply
    cost: float | None


def price(replies: Iterable[Reply], pricer: Pricer | None = None) -> list[Priced]:
    """Each reply with its cost: the recorded one when there is one, else the table's."""
    pricer = pricer or Pricer()
    return [Priced(r, r.cost if r.cost is not None else pricer.cost(r.model, r.tokens, r.at)) for r in replies]


@dataclass
class Group:
    """One row of a usage report: the summed tokens and cost of its replies.

    `cost` sums the priced replies; `unpriced` names each model the table has no price for
    with the tokens it used (never counted as $0). `cost` is None when nothing was priced."""

    key: str
    tokens: Tokens = NO_TOKENS
    cost: float | None = None
    unpriced: dict[str, int] = field(default_factory=dict)
    replies: int = 0
    sessions: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    first: datetime | None = None
    last: datetime | None = None
    title: str = ""
    project: str = ""

    def add(self, item: Priced) -> None:
        self.extend((item,))

    def extend(self, items: Iterable[Priced]) -> None:
        """Add each of `items` in turn (as `add` does, the same sums in the same order): one pass
        with the counts in locals, a report's rows being hundreds of thousands of replies."""
        i, o, cr, w5, w1, rs = 0, 0, 0, 0, 0, 0
        cost, first, last, replies = self.cost, self.first, self.last, 0
        sessions, models, agents, unpriced = self.sessions, self.models, self.agents, self.unpriced
        for item in items:
            reply = item.reply
            t = reply.tokens
            i += t.input
            o += t.output
            cr += t.cache_read
            w5 += t.cache_write_5m
            w1 += t.cache_write_1h
            rs += t.reasoning
            replies += 1
            sessions.add(f"{reply.home}\0{reply.session_id}")
            agents.add(reply.agent)
            if t or reply.cost:
                models.add(reply.model or NO_MODEL)
            if item.cost is not None:
                cost = (cost or 0.0) + item.cost
            else:
                name = reply.model or NO_MODEL
                unpriced[name] = unpriced.get(name, 0) + t.total
            at = reply.at
            if at is not None:
                first = at if first is None or at < first else first
                last = at if last is None or at > last else last
            if not self.title:
                self.title = reply.session_title
            if not self.project:
                self.project = reply.project
        self.tokens = self.tokens + Tokens(i, o, cr, w5, w1, rs)
        self.cost, self.first, self.last, self.replies = cost, first, last, self.replies + replies

    def as_dict(self) -> dict[str, Any]:
        """The row as `memtui usage --json` prints it."""
        return {"key": self.key, **self.tokens.as_dict(), "total_tokens": self.tokens.total,
                "cost": None if self.cost is None else round(self.cost, 6),
                "unpriced": [{"model": m, "tokens": n} for m, n in sorted(self.unpriced.items())],
                "replies": self.replies, "sessions": len(self.sessions), "models": sorted(self.models),
                "agents": sorted(self.agents),
                "first": self.first.isoformat() if self.first else None,
                "last": self.last.isoformat() if self.last else None,
                **({"title": self.title, "project": self.project} if self.title or self.project else {})}


@dataclass
class Report:
    """Rows of one grouping, their total, and the price table that priced them."""

    by: str
    rows: list[Group]
    total: Group
    table: PriceTable
    since: date | None = None
    until: date | None = None
    agent: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"by": self.by, "since": self.since.isoformat() if self.since else None,
                "until": self.until.isoformat() if self.until else None, "agent": self.agent,
                "prices": self.table.as_dict(), "rows": [row.as_dict() for row in self.rows],
                "total": self.total.as_dict()}


_QUARTER = 900
"""Seconds in a quarter of an hour: every time zone's offset, and every change of it, is whole
quarters of an hour (since 1972), so a quarter of an hour of UTC falls on one local day."""
_DAYS: dict[int, date | None] = {}
"""The local day of each quarter of an hour of UTC asked for (None: not one day, or not one
offset, all through it: each reply's own conversion is used then), in the zone `_ZONE` names."""
_ZONE: tuple[str, ...] | None = None
"""time.tzname as it was when `_DAYS` was filled: time.tzset() makes it anew."""


def local_day(at: datetime) -> date:
    """The day a reply was made on, in this machine's time zone (as ccusage groups them). A
    report asks it of every reply: each quarter of an hour's day is worked out once."""
    global _ZONE
    if at.tzinfo is None:
        return at.date()
    if time.tzname is not _ZONE:  # the zone was set again (TZ and time.tzset())
        _DAYS.clear()
        _ZONE = time.tzname
    quarter = int(at.timestamp()) // _QUARTER
    if quarter not in _DAYS:
        if len(_DAYS) > 100_000:
            _DAYS.clear()
        start = datetime.fromtimestamp(quarter * _QUARTER).astimezone()
        end = datetime.fromtimestamp(quarter * _QUARTER + _QUARTER - 1).astimezone()
        _DAYS[quarter] = start.date() if (start.date(), start.utcoffset()) == (end.date(), end.utcoffset()) else None
    day = _DAYS[quarter]
    return day if day is not None else at.astimezone().date()


def group_key(reply: Reply, by: str) -> str:
    """The row `reply` falls in: an ISO date, the Monday of its week, YYYY-MM, the model, the
    project folder, the machine, or the session."""
    if by in ("day", "week", "month"):
        if reply.at is None:
            return "(no date)"
        day = local_day(reply.at)
        if by == "day":
            return day.isoformat()
        if by == "week":
            return (day - timedelta(days=day.weekday())).isoformat()
        return day.strftime("%Y-%m")
    if by == "model":
        return reply.model or NO_MODEL
    if by == "project":
        return reply.project or "(no project)"
    if by == "machine":
        return reply.machine or "(this machine)"
    if by == "session":
        return reply.session_id
    raise ValueError(f"usage can be grouped by {', '.join(GROUPINGS)}; not by {by!r}")


def summarise(priced: Iterable[Priced], by: str = "day", *, since: date | None = None, until: date | None = None,
              agent: str | None = None, table: PriceTable | None = None) -> Report:
    """Group priced replies `by` one of GROUPINGS, keeping those made from `since` to `until`
    (inclusive, local days) by `agent` (a source kind: claude-code, codex, memtui …).

    Rows come in time order for day/week/month, by cost (then tokens) for the others; a
    session's rows are keyed by session id and carry its title and project."""
    if by not in GROUPINGS:
        raise ValueError(f"usage can be grouped by {', '.join(GROUPINGS)}; not by {by!r}")
    kept: list[Priced] = []
    members: dict[str, list[Priced]] = {}
    for item in priced:
        reply = item.reply
        if agent is not None and reply.agent != agent:
            continue
        if since is not None or until is not None:
            if reply.at is None:
                continue
            day = local_day(reply.at)
            if (since is not None and day < since) or (until is not None and day > until):
                continue
        kept.append(item)
        key = group_key(reply, by)
        if key not in members:
            members[key] = []
        members[key].append(item)
    total = Group("total")
    total.extend(kept)
    rows = []
    for key, items in members.items():
        rows.append(group := Group(key))
        group.extend(items)
    if by in ("day", "week", "month"):
        rows.sort(key=lambda g: g.key)
    else:
        rows.sort(key=lambda g: (-(g.cost or 0.0), -g.tokens.total, g.key))
    return Report(by, rows, total, table or price_table(), since, until, agent)


def by_task(priced: Iterable[Priced]) -> dict[int | str, Group]:
    """Each task's (turn's) tokens and cost, its sub-agent rounds and compactions included
    (their replies name it as `task_id`)."""
    groups: dict[int | str, Group] = defaultdict(lambda: Group(""))
    for item in priced:
        group = groups[item.reply.task_id]
        group.key = str(item.reply.task_id)
        group.add(item)
    return dict(groups)


def cost_text(cost: float | None, unpriced: dict[str, int] | None = None) -> str:
    """"$1.23"; "—" when nothing could be priced; a "+" mark when some model could not be."""
    if cost is None:
        return "—"
    text = f"${cost:,.2f}" if cost >= 0.01 or cost == 0 else f"${cost:.4f}"
    return text + ("+" if unpriced else "")


def unpriced_note(unpriced: dict[str, int]) -> str:
    """"not priced (not in the price table): foo-model 1,234 tokens" — or "" when all were."""
    if not unpriced:
        return ""
    names = ", ".join(f"{model} ({tokens:,} tokens)" for model, tokens in sorted(unpriced.items()))
    return f"not priced (no price in the table): {names}"
