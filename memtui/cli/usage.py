"""`memtui usage PATH [--by day|week|month|model|project|machine|session] [--since DATE]
[--until DATE] [--agent A] [--team [URL]] [--json]`: tokens and cost per group, from every agent
store at or for PATH, or from every machine's sessions in a team store (`--by machine`)."""

from __future__ import annotations

import os
from datetime import date, datetime

from memtui.cli._common import add_json_flag, emit
from memtui.core.agents import all_agents


def register(sub) -> None:
    p = sub.add_parser("usage", help="tokens and cost by day, week, month, model, project, machine or session")
    p.add_argument("path", nargs="?", default=".",
                   help="~ (every agent home), an agent's home (~/.claude, ~/.codex), a project folder or a store")
    p.add_argument("--by", default="day", choices=("day", "week", "month", "model", "project", "machine", "session"),
                   help="what each row is (default: day; a week starts on Monday; machine: a team store's)")
    p.add_argument("--since", type=_date, metavar="DATE", help="from this day on (YYYY-MM-DD, local time)")
    p.add_argument("--until", type=_date, metavar="DATE", help="up to this day, inclusive (YYYY-MM-DD)")
    p.add_argument("--agent", choices=[a.kind for a in all_agents()], help="only this agent's stores")
    p.add_argument("--team", nargs="?", const="", metavar="URL",
                   help="the team store at URL (postgresql://…; without URL: $MEMTUI_TEAM_URL): every machine's sessions")
    add_json_flag(p)
    p.set_defaults(func=run)


def _date(text: str) -> date:
    import argparse

    for pattern in ("%Y-%m-%d", "%Y%m%d"):
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)")


def run(args) -> int:
    from memtui.cli._source import team_or_path
    from memtui.core.discovery import discover_given
    from memtui.core.errors import MemtuiError
    from memtui.core.usage import kept_priced, price, price_table, source_replies, summarise

    path = team_or_path(args.path, args.team)
    if args.since and args.until and args.since > args.until:
        raise MemtuiError(f"--since {args.since} is after --until {args.until}")
    if args.by == "machine" and not isinstance(path, str):
        raise MemtuiError("--by machine needs a team store (--team URL): every session of a store on this machine"
                          " is this machine's")
    priced = []
    table = None
    if isinstance(path, str):  # the team store: every machine's sessions
        from memtui.core.resolve import resolve

        with resolve(path) as resolved:
            priced.extend(price(source_replies(resolved.source)))
    found = [] if isinstance(path, str) else [
        s for s in discover_given(path) if s.kind != "memory-files" and args.agent in (None, s.kind)]
    try:
        for entry in found:
            usage = kept_priced(entry.open())  # a session unchanged since the last run: its kept rows
            priced.extend(usage.items)
            table = usage.table
    finally:
        for entry in found:
            entry.close()
    report = summarise(priced, args.by, since=args.since, until=args.until, agent=args.agent,
                       table=table or price_table())
    emit(report.as_dict(), args.json, lambda _: text(report))
    return 0


COLUMNS = ("input", "output", "cache read", "cache write", "cost")


def text(report) -> str:
    """The report as a table: one row per group, the total, the price table, unpriced models."""
    from memtui.core.usage import cost_text, unpriced_note

    if not report.rows:
        return f"no token usage recorded{_window(report)}"
    head = report.by
    short = _short_ids(row.key for row in report.rows) if report.by == "session" else {}
    keys = [_key(row, report.by, short) for row in report.rows]
    width = max(len(head), len("total"), *(len(k) for k in keys))
    lines = [f"{head:<{width}}  " + "  ".join(f"{c:>13}" for c in COLUMNS)]
    for key, row in zip(keys, [*report.rows]):
        lines.append(_line(key, row, width, cost_text))
    lines.append("-" * len(lines[0]))
    lines.append(_line("total", report.total, width, cost_text))
    lines.append(f"prices: {report.table.label}")
    note = unpriced_note(report.total.unpriced)
    if note:
        lines.append(note)
    return "\n".join(lines)


def _line(key: str, row, width: int, cost_text) -> str:
    t = row.tokens
    cells = [f"{t.input:,}", f"{t.output:,}", f"{t.cache_read:,}", f"{t.cache_write:,}",
             cost_text(row.cost, row.unpriced)]
    return f"{key:<{width}}  " + "  ".join(f"{c:>13}" for c in cells)


def _short_ids(keys) -> dict[str, str]:
    """Each session id cut to its first 8 characters, or as many more as tell it apart from every
    other row's (as git shortens a hash): Aider's `20261201T163623` and Codex's time-ordered ids
    share their first 8."""
    ids = sorted(set(keys))
    short = {}
    for i, key in enumerate(ids):
        shared = max((len(os.path.commonprefix((key, ids[j]))) for j in (i - 1, i + 1) if 0 <= j < len(ids)), default=0)
        short[key] = key[:max(8, shared + 1)]
    return short


def _key(row, by: str, short: dict[str, str] | None = None) -> str:
    if by != "session":
        return row.key
    title = " ".join((row.title or "").split())
    title = title if len(title) <= 40 else title[:39] + "…"
    return f"{(short or {}).get(row.key, row.key[:8])} {title}".rstrip()


def _window(report) -> str:
    parts = []
    if report.since:
        parts.append(f"since {report.since}")
    if report.until:
        parts.append(f"until {report.until}")
    if report.agent:
        parts.append(f"by {report.agent}")
    return f" ({', '.join(parts)})" if parts else ""
