"""`memtui curate PATH --fact ID --snippet ID --note ID [--dry-run] [--yes] [--json]`:
delete RA.Aid key facts, key snippets and research notes.

Items attached to the most recent human input are never deleted (RA.Aid protects them
too); everything requested that is allowed goes in one transaction.
"""

from __future__ import annotations

from pathlib import Path

from memtui.cli._common import add_json_flag, emit
from memtui.cli._confirm import add_yes_flag, confirmed
from memtui.cli._source import opened
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability


def register(sub) -> None:
    p = sub.add_parser("curate", help="delete RA.Aid key facts / snippets / research notes (never the current input's)")
    p.add_argument("path", nargs="?", default=".", help="workspace, .ra-aid folder or pk.db")
    p.add_argument("--fact", type=int, action="append", default=[], metavar="ID", help="key fact #ID (repeatable)")
    p.add_argument("--snippet", type=int, action="append", default=[], metavar="ID", help="key snippet #ID (repeatable)")
    p.add_argument("--note", type=int, action="append", default=[], metavar="ID", help="research note #ID (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="show what would be deleted, delete nothing")
    add_yes_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


def _item(item) -> dict:
    return {"kind": item.kind, "id": item.id, "content": item.content, "filepath": item.filepath,
            "line_number": item.line_number, "human_input_id": item.task_id}


def _text(report: dict) -> str:
    verb = "would delete" if report["dry_run"] else "deleted"
    lines = [f"{verb} {'%d item(s)' % len(report['delete'])}" if report["delete"] else "nothing to delete"]
    for item in report["delete"]:
        where = f" ({item['filepath']}:{item['line_number']})" if item["filepath"] else ""
        lines.append(f"  {item['kind']} #{item['id']}{where}: {' '.join(item['content'].split())[:70]}")
    for refused in report["refused"]:
        lines.append(f"  kept {refused['kind']} #{refused['id']}: {refused['reason']}")
    return "\n".join(lines)


def run(args) -> int:
    from memtui.core.agents.ra_aid.curate import apply_curate, plan_curate

    if not (args.fact or args.snippet or args.note):
        raise MemtuiError("name at least one item: --fact ID, --snippet ID or --note ID")
    with opened(args.path, Capability.CURATE) as source:
        db = Path(source.path)
    plan = plan_curate(db, facts=args.fact, snippets=args.snippet, notes=args.note)
    report = {
        "path": str(plan.path),
        "dry_run": bool(args.dry_run),
        "current_human_input": plan.current_input_id,
        "delete": [_item(i) for i in plan.delete],
        "refused": [{"kind": k, "id": i, "reason": r} for k, i, r in plan.refused],
        "deleted": 0,
    }
    if plan.delete and not args.dry_run:
        if not confirmed(_text({**report, "dry_run": True}), "Delete these?", yes=args.yes):
            return 1
        report["deleted"] = apply_curate(plan)
    emit(report, args.json, _text)
    return 0
