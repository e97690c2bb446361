"""`memtui rollback PATH (--entry | --checkpoint | --task | --undo) ID`: put files back."""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit, root_folder
from memtui.cli._confirm import add_yes_flag, confirmed
from memtui.core.errors import MemtuiError
from memtui.core.memory_source import Capability


def register(sub) -> None:
    p = sub.add_parser(
        "rollback",
        help="roll files back to before an entry, a checkpoint or a task (with its sub-agents); undo one",
        description="Restore the files an entry, a checkpoint or a task (including the sub-agents it handed "
                    "work to) changed. Files changed on disk since are conflicts and are left alone unless "
                    "--force. Paths leading outside the workspace refuse the whole rollback. The rollback is "
                    "recorded as a checkpoint (its task is pinned) that --undo rolls back.",
    )
    p.add_argument("path", help="workspace directory or agent.db; or a Claude Code / Codex store (home, project "
                                "folder, transcript)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--entry", metavar="ID", help="one file entry of a checkpoint")
    what.add_argument("--checkpoint", metavar="ID", help="every file of one checkpoint (a Claude Code prompt's "
                                                         "checkpoint, SESSION:PROMPT:before, restores as /rewind does)")
    what.add_argument("--task", metavar="ID", help="every checkpoint of a task and its handoff sub-agents")
    what.add_argument("--undo", metavar="ID", help="the checkpoint a previous rollback recorded")
    p.add_argument("--root", help="workspace root: for an agent.db outside its workspace, or where a Claude Code / "
                                  "Codex store's recorded working directory is on this machine")
    p.add_argument("--dry-run", action="store_true", help="show what would happen; write nothing")
    p.add_argument("--force", action="store_true", help="overwrite files that changed since (conflicts)")
    add_yes_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.listing import resolve_id
    from memtui.core.resolve import resolve
    from memtui.core.rollback import apply_rollback, plan_rollback, preview_rollback

    # Planning only reads (and never creates a store where there is none); apply_rollback
    # writes through the store's writer(), which records the undo.
    scope = {k: getattr(args, k) for k in ("entry", "checkpoint", "task", "undo")}
    root = root_folder(args.root)
    with resolve(args.path, Capability.ROLLBACK, root=root) as resolved:
        store = resolved.source
        if resolved.kind == "memtui":
            scope = {k: _number(k, v) for k, v in scope.items()}
        else:  # ids shortened part by part, as every verb takes them
            scope = {k: v if v is None or k == "undo" else resolve_id(store, v, k) for k, v in scope.items()}
        plan = plan_rollback(store, **scope, root=root, force=args.force)
        if not args.dry_run and plan.files and not plan.refused and not confirmed(
                _text({**preview_rollback(plan).to_json(), "notes": list(plan.notes)}), f"Write these {len(plan.files)} file(s)?", yes=args.yes):
            return 1
        result = preview_rollback(plan) if args.dry_run else apply_rollback(store, plan)
    emit(result.to_json(), args.json, _text)
    return 0 if result.ok else 1


def _number(flag: str, value: str | None) -> int | None:
    """memtui's own ids are numbers."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise MemtuiError(f"--{flag} {value!r}: ids of memtui's store are numbers") from None


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
