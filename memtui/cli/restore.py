"""`memtui restore --session ID`: put an archived session back, byte-exact with mtime and mode."""

from __future__ import annotations

import time
from pathlib import Path

from memtui.cli._common import add_json_flag, emit
from memtui.core.homes import cleanable_agents
from memtui.core.display import human_bytes


def register(sub) -> None:
    p = sub.add_parser("restore", help="put a session archived by `memtui cleanup` back where it was")
    p.add_argument("--session", required=True, metavar="ID", help="the archived session's id")
    p.add_argument("--agent", choices=[a.kind for a in cleanable_agents()], help="only when the id is archived for both")
    p.add_argument("--archive-dir", metavar="DIR", help="archive folder (default $XDG_DATA_HOME/memtui/archive)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.cleanup import archive_dir, restore_session

    root = Path(args.archive_dir).expanduser() if args.archive_dir else archive_dir()
    results = restore_session(args.session, root, agent=args.agent)
    report = {
        "session": results[0].id,  # the whole id, also when its start was given
        "agent": results[0].agent,
        "files": sum(r.files for r in results),
        "bytes": sum(r.bytes for r in results),
        "already_present": sum(r.already_present for r in results),
        "done": True,
    }
    note = _sweep_note(results)
    if note:
        report["note"] = note
    emit(report, args.json, lambda r: f"restored {r['session']} ({r['agent']}): {r['files']} file{'' if r['files'] == 1 else 's'},"
                                      f" {human_bytes(r['bytes'])}"
                                      + (f"\nnote: {note}" if note else ""))
    return 0


def _sweep_note(results) -> str:
    """What the agent does with a restored session whose files are old (Claude Code deletes
    transcripts older than cleanupPeriodDays at start-up, and a restored file keeps its mtime)."""
    from memtui.core.homes import home_cleanup

    first = results[0]
    if not first.newest_mtime_ns:
        return ""
    age = (time.time() - first.newest_mtime_ns / 1e9) / 86400
    return home_cleanup(first.agent).restore_note(Path(first.home), age)
