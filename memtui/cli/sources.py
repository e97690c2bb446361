"""`memtui sources PATH [--json]`: which agent stores are at or for PATH, with counts."""

from __future__ import annotations

from pathlib import Path

from memtui.cli._common import add_json_flag, emit


def register(sub) -> None:
    p = sub.add_parser("sources", help="list the agent stores found at or for PATH, with counts")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or a store (agent.db, .ra-aid, transcript, rollout)")
    add_json_flag(p)
    p.set_defaults(func=run)


def _text(report: dict) -> str:
    if not report["sources"]:
        return f"no agent stores found for {report['path']}"
    lines = []
    for source in report["sources"]:
        counts = ", ".join(f"{k} {v}" for k, v in source["counts"].items())
        lines.append(f"{source['kind']:<15} {source['path']}")
        if counts:
            lines.append(f"{'':<15} {counts}")
        for problem in source["problems"]:
            where = f"{problem['file']}:{problem['line']}" if problem["line"] is not None else problem["file"]
            lines.append(f"{'':<15} ! {where}: {problem['message']}")
    return "\n".join(lines)


def _require_a_store(sources) -> None:
    """A file given as PATH is a store or an error (a folder lists what failed as problems)."""
    from memtui.core.errors import NotAStore

    refused = []
    for source in sources:
        try:
            source.open()
        except NotAStore as exc:
            refused.append(exc)
    if refused and len(refused) == len(sources):
        raise refused[0]


def run(args) -> int:
    from memtui.core.discovery import discover_given

    path = Path(args.path).expanduser()
    sources = discover_given(path)
    try:
        if path.is_file():
            _require_a_store(sources)
        report = {"path": str(path.expanduser().resolve()), "sources": [s.to_json() for s in sources]}
    finally:
        for source in sources:
            source.close()
    emit(report, args.json, _text)
    return 0
