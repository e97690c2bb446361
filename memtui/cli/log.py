"""`memtui log PATH [--session ID | --task ID] [--json]`: sessions → tasks → steps, like `git log`.

Lists the ids `memtui show` and `memtui rollback` take."""

from __future__ import annotations

from memtui.cli._common import add_json_flag, emit
from memtui.cli._source import parse_id
from memtui.core.display import counted, one_line
from memtui.core.store.paths import is_team_url


def register(sub) -> None:
    p = sub.add_parser("log", help="list sessions and their tasks (or one task's steps), with the ids other verbs take")
    p.add_argument("path", help="workspace directory or a store (agent.db, .ra-aid, transcript, rollout)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--session", metavar="ID", help="only this session")
    what.add_argument("--task", metavar="ID", help="this task's steps, with their checkpoints")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.listing import log_sessions, log_task
    from memtui.core.resolve import resolve

    with resolve(args.path) as resolved:
        source = resolved.source
        if args.task is not None:
            doc = log_task(source, parse_id(args.task))
            emit(doc, args.json, _task_text)
        else:
            doc = log_sessions(source, None if args.session is None else parse_id(args.session))
            emit(doc, args.json, _sessions_text)
            if args.session is None and not is_team_url(args.path):
                _name_the_others(resolved)
    return 0


def _name_the_others(resolved) -> None:
    """PATH shows one store; where it holds other agents' homes too (~: Claude Code and Codex),
    a line on stderr names them, so their sessions are not taken to be missing: those the
    resolution of PATH found, not looked for again; for memtui's own store, which is opened
    without looking for others, discovery looks."""
    import sys

    others = resolved.others
    if resolved.entry is None:
        from memtui.core.discovery import discover_given

        looked = discover_given(resolved.path)
        for source in looked:
            source.close()
        others = [s for s in looked if s.kind != "memory-files"][1:]
    if others:
        print("also here: " + "; ".join(f"{s.kind} at {s.path} (memtui log {s.path})" for s in others),
              file=sys.stderr)


def _sessions_text(doc: dict) -> str:
    lines = []
    for session in doc["sessions"]:
        sid = "orphans" if session["id"] is None else f"session {session['id']}"
        origin = f"  [{one_line(session['origin'], 40)}]" if session.get("origin") else ""
        lines.append(f"{sid}  {session['status']}  {one_line(session['title'], 70)}{origin}")
        for task in session["tasks"]:
            lines.append(f"  task {task['id']}  {task['status']:<12} {one_line(task['title'], 60)}"
                         f"  ({counted(task['steps'], 'step')}, {counted(task['checkpoints'], 'checkpoint')})")
    return "\n".join(lines) if lines else "no sessions"


def _task_text(doc: dict) -> str:
    task = doc["task"]
    lines = [f"task {task['id']}  {task['status']}  {one_line(task['title'], 70)}"]
    for step in doc["steps"]:
        checkpoint = f"  checkpoint {step['checkpoint']}" if step["checkpoint"] is not None else ""
        lines.append(f"  step {step['id']}  #{step['seq']:<4} {one_line(step['tool'], 24):<24} {step['status']}{checkpoint}")
    return "\n".join(lines)
