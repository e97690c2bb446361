"""`memtui rollback PATH (--entry | --checkpoint | --task | --undo) ID`: put files back."""

from __future__ import annotations

from pathlib import Path

from memtui.cli._common import add_json_flag, emit, open_store
from memtui.cli._confirm import add_yes_flag, confirmed


def register(sub) -> None:
    p = sub.add_parser(
        "rollback",
        help="roll files back to before an entry, a checkpoint or a task (with its sub-agents); undo one",
        description="Restore the files an entry, a checkpoint or a task (including the sub-agents it handed "
                    "work to) changed. Files changed on disk since are conflicts and are left alone unless "
                    "--force. Paths leading outside the workspace refuse the whole rollback. The rollback is "
                    "recorded as a checkpoint (its task is pinned) that --undo rolls back.",
    )
    p.add_argument("path", help="workspace directory or agent.db")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--entry", type=int, metavar="ID", help="one file entry of a checkpoint")
    what.add_argument("--checkpoint", type=int, metavar="ID", help="every file of one checkpoint")
    what.add_argument("--task", type=int, metavar="ID", help="every checkpoint of a task and its handoff sub-agents")
    what.add_argument("--undo", type=int, metavar="ID", help="the checkpoint a previous rollback recorded")
    p.add_argument("--root", help="workspace root, for an agent.db outside its workspace")
    p.add_argument("--dry-run", action="store_true", help="show what would happen; write nothing")
    p.add_argument("--force", action="store_true", help="overwrite files that changed since (conflicts)")
    add_yes_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.rollback import apply_rollback, plan_rollback, preview_rollback

    # Planning only reads (and never creates a store where there is none); apply_rollback
    # takes a write connection of its own to record the undo.
    with open_store(args.path) as store:
        plan = plan_rollback(store, entry=args.entry, checkpoint=args.checkpoint, task=args.task, undo=args.undo,
                             root=Path(args.root) if args.root else None, force=args.force)
        if not args.dry_run and plan.files and not plan.refused and not confirmed(
                _text(preview_rollback(plan).to_json()), f"Write these {len(plan.files)} file(s)?", yes=args.yes):
            return 1
        result = preview_rollback(plan) if args.dry_run else apply_rollback(store, plan)
    emit(result.to_json(), args.json, _text)
    return 0 if result.ok else 1


def _text(data: dict) -> str:
    files = data["files"]
    lines = []
    if files:
        width_action = max(len(f["action"]) for f in files)
        width_status = max(len(f["status"]) for f in files)
        for f in files:
            line = f"{f['action']:<{width_action}}  {f['status']:<{width_status}}  {f['path']}"
            lines.append(f"{line}  ({f['reason']})" if f["reason"] else line)
    lines.extend(data["notes"])
    return "\n".join(lines) if lines else "nothing to roll back"
