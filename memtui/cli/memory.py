"""`memtui memory PATH`: the workspace's memory documents, grouped by kind."""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit
from memtui.cli._workspace import workspace_root


def register(sub) -> None:
    p = sub.add_parser("memory", help="list memory documents by kind, with size, lines and age")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or agent.db")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.memory.discover import discover_documents

    root = workspace_root(args.path)
    docs = [
        {"file": d.rel, "kind": d.kind, "format": d.format, "size": d.size, "lines": d.lines, "mtime": d.mtime}
        for d in discover_documents(root)
    ]
    emit(docs, args.json, _text)
    return 0


def _text(docs) -> str:
    from memtui.core.memory.discover import KINDS

    if not docs:
        return "no memory documents"
    out = []
    for kind, label in KINDS.items():
        members = [d for d in docs if d["kind"] == kind]
        if not members:
            continue
        out.append(f"{label}:")
        for d in members:
            out.append(f"  {d['file']:<44} {d['size']:>8} B {d['lines']:>5} lines  {d['mtime']:%Y-%m-%d %H:%M}")
    return "\n".join(out)
