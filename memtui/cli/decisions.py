"""`memtui decisions PATH`: the decision log as entries; `--add` appends one in the log's
own format (through the safe save, so the previous version is kept)."""

from __future__ import annotations


from memtui.cli._common import add_json_flag, emit
from memtui.cli._workspace import agent_home_at, require_workspace, workspace_root


def register(sub) -> None:
    p = sub.add_parser("decisions", help="list decision-log entries, or append one with --add")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or agent.db")
    p.add_argument("--file", help="decision log (default: .agent/init.d/04-decision-log.md or DECISIONS.md)")
    p.add_argument("--missing-why", action="store_true", help="only entries that do not say why")
    p.add_argument("--add", metavar="TITLE", help="append a decision with this title")
    p.add_argument("--problem", default="", help="with --add: what had to be decided")
    p.add_argument("--options", default="", help="with --add: the options considered")
    p.add_argument("--chosen", default="", help="with --add: the option chosen")
    p.add_argument("--why", default="", help="with --add: why it was chosen (lint flags a decision without one)")
    p.add_argument("--date", help="YYYY-MM-DD (default: today)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.memory.decisions import add_decision, default_decision_log, read_decisions
    from memtui.core.errors import MemtuiError
    from memtui.core.paths import inside_workspace

    if args.add is not None and not args.add.strip():
        raise MemtuiError("--add needs a title for the decision")
    root = workspace_root(args.path)
    if args.add is not None and (agent := agent_home_at(root)) is not None:
        raise MemtuiError(f"{root} is the {agent} home, not a project: add the decision in the project's folder"
                          " (DECISIONS.md or .agent/init.d/04-decision-log.md there)")
    path = inside_workspace(root, args.file if args.file else default_decision_log(root))
    rel = path.relative_to(root).as_posix()
    if args.add is not None:
        add_decision(root, path, args.add, args.problem, args.options, args.chosen, args.why, args.date)
    if not path.is_file():
        if args.file is not None:  # the log the user named is not there: an error, not "no decision log"
            raise MemtuiError(f"{rel} is not a file in {root}")
        from memtui.core.memory.discover import discover_documents

        require_workspace(root, discover_documents(root))  # a folder that is no workspace (~): an error
        emit([], args.json, lambda _: f"no decision log in {root}")
        return 0
    entries = [
        {"file": rel, "line": d.line, "date": d.date, "title": d.title, "problem": d.problem,
         "options": d.options, "chosen": d.chosen, "why": d.why, "missing_why": d.missing_why}
        for d in read_decisions(path)
        if d.missing_why or not args.missing_why
    ]
    emit(entries, args.json, _text)
    return 0


def _text(entries) -> str:
    if not entries:
        return "no decisions"
    return "\n".join(
        f"{e['file']}:{e['line']}: {e['date'] or '----------'} {e['title']}" + ("   [no why]" if e["missing_why"] else "")
        for e in entries
    )
