"""`memtui memory-history PATH FILE`: kept versions of a memory document; restore one,
undo memtui's last save, or print a version.

Version 1 is the most recently replaced one. Restoring and undoing keep the version they
replace, so both can be undone in turn.
"""

from __future__ import annotations

import sys

from memtui.cli._common import add_json_flag, emit
from memtui.cli._workspace import workspace_root


def register(sub) -> None:
    p = sub.add_parser("memory-history", help="list, show or restore previous versions of a memory document")
    p.add_argument("path", help="workspace directory or agent.db")
    p.add_argument("file", help="document: relative path or name, e.g. MEMORY.md, or the absolute path of a file "
                                "an agent loads at start (memory --loaded lists them)")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--show", type=int, metavar="N", help="print version N to stdout")
    action.add_argument("--restore", type=int, metavar="N", help="make version N current again")
    action.add_argument("--undo", action="store_true", help="undo memtui's last save of the file")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.memory.save import history_entry, list_history, restore_version, undo_last_save

    root = workspace_root(args.path)
    path, outside = _document(root, args.file)
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    if args.show is not None:
        sys.stdout.buffer.write(history_entry(root, path, args.show, outside).read())
        sys.stdout.flush()
        return 0
    if args.restore is not None or args.undo:
        if args.undo:
            version = undo_last_save(root, path, outside=outside)
            done = "undid the last save of"
        else:
            version = restore_version(root, path, args.restore, outside=outside)
            done = f"restored version {args.restore} of"
        result = {"file": rel, "action": "undo" if args.undo else "restore", "size": version.size,
                  "sha256": version.sha256}
        emit(result, args.json, lambda r: f"{done} {rel} ({r['size']} bytes); the replaced version is kept as 1")
        return 0
    entries = [
        {"number": e.number, "saved_at": e.saved_at, "reason": e.reason, "size": e.size}
        for e in list_history(root, path, outside)
    ]
    emit(entries, args.json, lambda es: _text(rel, es))
    return 0


def _document(root, name: str):
    """The document and the outside-workspace files that may be written: a workspace document,
    or a file of an agent's start-up chain given by its absolute path."""
    from pathlib import Path

    from memtui.core.errors import DocumentNotFound
    from memtui.core.loaded_memory import loaded_chains
    from memtui.core.memory.chain import chain_paths
    from memtui.core.memory.discover import resolve_document

    try:
        return resolve_document(root, name), frozenset()
    except DocumentNotFound:
        given = Path(name).expanduser()
        if not given.is_absolute():
            raise
        grants = frozenset(chain_paths(loaded_chains(root)))
        if given not in grants:
            raise DocumentNotFound(f"{given} is neither in the workspace nor loaded by an agent at start") from None
        return given, grants


def _text(rel: str, entries) -> str:
    if not entries:
        return f"{rel}: no kept versions (memtui keeps one each time it saves the file)"
    lines = [f"{rel}: {len(entries)} kept version(s), newest first"]
    for e in entries:
        lines.append(f"  {e['number']:>3}  {e['saved_at']:%Y-%m-%d %H:%M:%S}  replaced by {e['reason']:<8} {e['size']:>8} B")
    return "\n".join(lines)
