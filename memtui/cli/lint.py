"""`memtui lint PATH`: findings in the workspace's memory documents.

Exit status: 0 when clean, 1 when there are findings (so scripts and CI can gate on it),
2 on errors.
"""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit
from memtui.cli._workspace import open_store_if_any, require_workspace, workspace_root


def register(sub) -> None:
    p = sub.add_parser("lint", help="check memory documents (exit 1 when there are findings)")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or agent.db")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.memory.discover import discover_documents
    from memtui.core.memory.lint import lint_workspace, store_facts

    root = workspace_root(args.path)
    documents = discover_documents(root)
    require_workspace(root, documents)
    with open_store_if_any(root) as store:
        findings = lint_workspace(root, documents=documents, **store_facts(store))
    emit(findings, args.json, _text)
    return 1 if findings else 0


def _text(findings) -> str:
    if not findings:
        return "no findings"
    return "\n".join(f"{f.file}{'' if f.line is None else f':{f.line}'}: {f.rule}: {f.message}" for f in findings)
