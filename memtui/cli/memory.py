"""`memtui memory PATH`: the workspace's memory documents, grouped by kind.

`memtui memory PATH --loaded [--agent NAME] [--cwd DIR]`: what each agent loads at start —
its memory chain in load order, how much of each file is loaded, and the problems.
"""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit
from memtui.cli._workspace import require_workspace, workspace_root


def register(sub) -> None:
    from memtui.core.loaded_memory import AGENTS

    p = sub.add_parser("memory", help="list memory documents by kind, or (--loaded) what each agent loads at start")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or agent.db")
    p.add_argument("--loaded", action="store_true",
                   help="show each agent's start-up chain: files in load order, what is cut off, problems")
    p.add_argument("--agent", action="append", choices=list(AGENTS), metavar="AGENT",
                   help=f"only this agent ({', '.join(AGENTS)}); repeatable (with --loaded)")
    p.add_argument("--cwd", metavar="DIR", help="the agent's working directory inside PATH (default: PATH)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.errors import MemtuiError
    from memtui.core.memory.discover import discover_documents

    root = workspace_root(args.path)
    if args.loaded:
        return _run_loaded(args, root)
    if args.agent or args.cwd:
        raise MemtuiError("--agent and --cwd go with --loaded")
    found = discover_documents(root)
    require_workspace(root, found)
    docs = [
        {"file": d.rel, "kind": d.kind, "format": d.format, "size": d.size, "lines": d.lines, "mtime": d.mtime}
        for d in found
    ]
    emit(docs, args.json, _text)
    return 0


def _run_loaded(args, root) -> int:
    from memtui.core.loaded_memory import loaded_chains

    chains = loaded_chains(root, args.cwd, args.agent)
    emit({"agents": [c.to_json() for c in chains]}, args.json, _chains_text)
    return 0


def _text(docs) -> str:
    from memtui.core.memory.discover import KINDS

    if not docs:
        return "no memory documents"
    out = []
    width = max(44, *(len(d["file"]) for d in docs))  # a long path keeps the figures in their columns
    for kind, label in KINDS.items():
        members = [d for d in docs if d["kind"] == kind]
        if not members:
            continue
        out.append(f"{label}:")
        for d in members:
            lines = f"{d['lines']:>5} line" + (" " if d["lines"] == 1 else "s")
            out.append(f"  {d['file']:<{width}} {d['size']:>8} B {lines}  {d['mtime']:%Y-%m-%d %H:%M}")
    return "\n".join(out)


def _chains_text(obj) -> str:
    from memtui.core.display import human_bytes, sanitize
    from memtui.core.loaded_memory import AGENTS

    out = []
    for chain in obj["agents"]:
        out.append(f"{AGENTS[chain['agent']]}: {human_bytes(chain['total_loaded_bytes'])} loaded at start, "
                   f"~{chain['total_tokens']:,} tokens")
        if not chain["files"]:
            out.append("  (no files)")
        unreadable = {p["file"] for p in chain["problems"] if p["rule"] == "unreadable"}
        depth: dict[str, int] = {}
        for f in chain["files"]:
            depth[f["path"]] = depth.get(f["imported_by"], -1) + 1 if f["imported_by"] else 0
            if f["path"] in unreadable:
                part = "unreadable"
            elif f["on_demand"]:
                part = "on demand"
            elif f["truncated"]:
                part = f"{f['loaded_lines']}/{f['lines']} lines"
            elif f["loaded_bytes"] or not f["bytes"]:
                part = "all"
            else:
                part = "not loaded"
            indent = "  " * (1 + depth[f["path"]])
            out.append(f"{indent}{f['order']:>2}. {f['scope']:<11} {part:<14} {human_bytes(f['bytes']):>9}  "
                       f"{sanitize(f['path'])}")
            out.append(f"{indent}    {sanitize(f['reason'])}")
        for p in chain["problems"]:
            where = sanitize(p["file"]) if p["line"] is None else f"{sanitize(p['file'])}:{p['line']}"
            out.append(f"  ! {where}: {p['rule']}: {sanitize(p['message'])}")
    return "\n".join(out)
