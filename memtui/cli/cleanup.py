"""`memtui cleanup HOME`: preview (--dry-run), archive or delete old sessions of a Claude Code
or Codex home, with the reason for every decision."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from memtui.cli._common import add_json_flag, cleanable_homes, emit
from memtui.core.homes import cleanable_agents
from memtui.cli._confirm import add_yes_flag, confirmed
from memtui.core.display import counted, human_bytes, one_line, sanitize
from memtui.core.errors import MemtuiError


def register(sub) -> None:
    p = sub.add_parser("cleanup", help=f"archive (or delete) old sessions of a {cleanable_homes()} home; --dry-run previews")
    p.add_argument("home", help="the agent's home folder (~/.claude, $CLAUDE_CONFIG_DIR, ~/.codex, $CODEX_HOME),"
                                " or a project or transcript of it (its whole home is cleaned up)")
    p.add_argument("--agent", choices=[a.kind for a in cleanable_agents()], help="which agent's home (found from its layout if omitted)")
    p.add_argument("--keep-days", type=int, default=30, metavar="N", help="keep sessions active in the last N days (default 30)")
    p.add_argument("--keep-last", type=int, default=5, metavar="N", help="keep the N newest sessions of each project (default 5)")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--dry-run", action="store_true", help="only show what would happen and why")
    mode.add_argument("--archive", action="store_true", help="pack old sessions into memtui's archive, then remove them")
    mode.add_argument("--delete", action="store_true", help="delete old sessions for good (cannot be restored)")
    add_yes_flag(p)
    p.add_argument("--archive-dir", metavar="DIR", help="archive folder (default $XDG_DATA_HOME/memtui/archive)")
    add_json_flag(p)
    p.set_defaults(func=run)


def cleaned_home(path: Path, agent: str | None) -> tuple[Path, str | None]:
    """(the agent home to clean, its agent) for PATH: the home of the store PATH means
    (memtui.core.resolve, as the app's cleanup does: a home, a project of it, a transcript), or a
    folder laid out as a home whose sessions are all gone (orphans to clean, nothing to show).
    A store that is not an agent home's says what it can't do."""
    from memtui.core.homes import agent_home
    from memtui.core.errors import StoreNotFound
    from memtui.core.memory_source import Capability
    from memtui.core.resolve import resolve

    try:
        with resolve(path, Capability.CLEANUP, kind=agent) as resolved:
            return agent_home(resolved.kind, resolved.source.path) or path, resolved.kind
    except StoreNotFound:
        if not path.is_dir():
            raise
        return path, agent  # take_inventory reads its layout, or says it is no agent's home


def run(args) -> int:
    from memtui.core.cleanup import apply_cleanup, archive_dir, cache_dir, load_pins, pending, plan_cleanup, plan_json
    from memtui.core.homes import take_inventory

    if args.keep_days < 0 or args.keep_last < 0:
        raise MemtuiError("--keep-days and --keep-last must be 0 or more")
    root = Path(args.archive_dir).expanduser() if args.archive_dir else archive_dir()
    home, agent = cleaned_home(Path(args.home), args.agent)
    inventory = take_inventory(home, agent, cache=cache_dir())
    plan = plan_cleanup(inventory, keep_days=args.keep_days, keep_last=args.keep_last,
                        action="delete" if args.delete else "archive", pins=load_pins())
    if args.dry_run:
        report = plan_json(plan)
        unfinished = pending(root, inventory.home)
        emit(report, args.json, lambda r: plan_text(r, unfinished))
        return 0
    # The home was read and the plan made before any question: a missing, foreign or
    # unreadable home is reported as an error, never after a "y".
    report = plan_json(plan)
    going = any(r["action"] != "keep" for r in report["sessions"] + report["orphans"])
    if going and not confirmed(plan_text(report, preview=False), _question(args, report), yes=args.yes):
        return 1
    tty = sys.stderr.isatty()

    def progress(p) -> None:
        if tty:
            print(f"\r  {p.units_done}/{p.units_total} sessions, {human_bytes(p.bytes_done)} of {human_bytes(p.bytes_total)}",
                  end="", file=sys.stderr, flush=True)

    # Ctrl-C cancels between sessions (or mid-way through packing one): what is archived
    # stays archived, the session in progress stays whole in the home.
    cancel = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    try:
        result = apply_cleanup(plan, root, progress=progress, cancel=cancel.is_set)
    finally:
        signal.signal(signal.SIGINT, previous)
    if tty:
        print(file=sys.stderr)
    report = plan_json(plan, archive_bytes=result.archive_bytes, done=not result.cancelled)
    gone = set(result.done)
    skipped = dict(result.skipped)
    failed = dict(result.failed)
    for row in report["sessions"]:
        if row["id"] in failed:  # still meant to go: the action stays, with why it did not
            row["error"] = failed[row["id"]]
        elif row["id"] in skipped:
            row["action"], row["reason"] = "keep", f"skipped: {skipped[row['id']]}"
        elif row["action"] != "keep" and row["id"] not in gone:
            row["action"], row["reason"] = "keep", "not reached: cancelled"
    owners = {str(o.path): o.owner for o, _ in plan.orphans}
    for row in report["orphans"]:
        if owners.get(row["path"]) in failed:
            row["error"] = failed[owners[row["path"]]]
    report["reclaimable_bytes"] = result.bytes_removed
    if args.json or gone or not failed:  # nothing went: the error line alone says why
        emit(report, args.json, lambda r: result_text(r, result, gone, root, plan.action))
    if failed:
        raise MemtuiError(failed_line(result.failed, plan.action, {r["id"] for r in report["sessions"]}))
    return 0


def failed_line(failed: list[tuple[str, str]], action: str, sessions: set[str]) -> str:
    """The one line of a cleanup that could not do all it was asked: how many, and why."""
    reasons = list(dict.fromkeys(why for _, why in failed))
    listed = sum(1 for unit, _ in failed if unit in sessions)
    what = " and ".join(filter(None, (counted(listed, "session") if listed else "",
                                      f"the files of {counted(len(failed) - listed, 'gone session')}"
                                      if len(failed) > listed else "")))
    if len(reasons) == 1:
        return f"could not {action} {what}: {reasons[0]}"
    return f"could not {action} {what}: {reasons[0]} (and {len(reasons) - 1} other reason(s): --json says each)"


def _question(args, report: dict) -> str:
    sessions = sum(1 for r in report["sessions"] if r["action"] != "keep")
    orphans = sum(1 for r in report["orphans"] if r["action"] != "keep")
    what = f"{sessions} session{'' if sessions == 1 else 's'}" + (f" and {orphans} orphan(s)" if orphans else "")
    if args.delete:
        return f"Delete {what} ({human_bytes(report['reclaimable_bytes'])}) for good? They cannot be restored."
    return f"Archive {what} ({human_bytes(report['reclaimable_bytes'])}) and remove them from the home?"


def plan_text(report: dict, unfinished=None, preview: bool = True) -> str:
    lines = [f"{report['agent']} home {report['home']}"]
    for row in report["sessions"]:
        mark = {"keep": "keep   ", "archive": "archive", "delete": "delete "}[row["action"]]
        lines.append(f"  {mark} {sanitize(row['id'][:13]):<13} {human_bytes(row['bytes']):>10}  {one_line(row['title'], 50):<50}"
                     f"  {sanitize(row['reason'])}")
    for row in report["orphans"]:
        lines.append(f"  {row['action']:<7} orphan {human_bytes(row['bytes']):>10}  {sanitize(row['path'])}  {sanitize(row['reason'])}")
    going = sum(1 for r in report["sessions"] if r["action"] != "keep")
    orphans = sum(1 for r in report["orphans"] if r["action"] != "keep")
    lines.append(f"{going} of {counted(len(report['sessions']), 'session')} and {counted(orphans, 'orphan')} would go: "
                 f"{human_bytes(report['reclaimable_bytes'])}")
    if unfinished is not None and (unfinished.finished or unfinished.dropped):
        lines.append(f"an interrupted archive will be finished first ({len(unfinished.finished) + len(unfinished.dropped)} unit(s))")
    if unfinished is not None and unfinished.restoring:
        lines.append(f"interrupted restore(s): {', '.join(unfinished.restoring)} — run memtui restore --session ID")
    if preview:
        lines.append("nothing was changed (dry run)")
    return "\n".join(lines)


def result_text(report: dict, result, gone: set[str], root: Path, action: str) -> str:
    verb = "archived" if action == "archive" else "deleted"
    sessions = sum(1 for r in report["sessions"] if r["id"] in gone)
    if gone:
        lines = [f"{verb} {counted(sessions, 'session')}"
                 + (f" and the files of {counted(len(gone) - sessions, 'gone session')}" if len(gone) > sessions else "")
                 + f": {human_bytes(result.bytes_removed)} removed from {report['home']}"]
        # each by the id `memtui restore --session` takes (no plan was shown without a terminal)
        titles = {r["id"]: r["title"] for r in report["sessions"]}
        lines += [f"  {verb} {sanitize(unit)}  "
                  + (one_line(titles[unit], 60) if unit in titles else "(files of a session whose transcript is gone)")
                  for unit in result.done]
    else:
        lines = [f"nothing to {action}: every session of {report['home']} is kept (--dry-run says why)"]
    if report["archive_bytes"]:
        lines.append(f"archive: {human_bytes(report['archive_bytes'])} in {root} (memtui restore --session ID puts one back)")
    for unit, why in result.skipped:
        lines.append(f"  skipped {sanitize(unit)}: {sanitize(why)}")
    if result.recovery.finished:
        lines.append(f"finished {len(result.recovery.finished)} interrupted archive(s) first")
    if result.cancelled:
        lines.append("cancelled: the remaining sessions are untouched")
    return "\n".join(lines)
