"""`memtui show PATH (--task ID | --step ID | --checkpoint ID | --entry ID) [--diff] [--json]`:
one record in full, like `git show`; a checkpoint lists its files with their entry ids."""

from __future__ import annotations

import json

from memtui.cli._common import add_json_flag, emit
from memtui.cli._source import parse_id
from memtui.core.display import counted, human_bytes, one_line, sanitize


def register(sub) -> None:
    p = sub.add_parser("show", help="show one task, step, checkpoint or file entry (with --diff, the changes)")
    p.add_argument("path", help="workspace directory or a store (agent.db, .ra-aid, transcript, rollout)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--task", metavar="ID", help="a task: status, summary, checkpoints, references")
    what.add_argument("--step", metavar="ID", help="a step: tool, arguments, result")
    what.add_argument("--checkpoint", metavar="ID", help="a checkpoint: its files and their entry ids")
    what.add_argument("--entry", metavar="ID", help="one file of a checkpoint")
    p.add_argument("--diff", action="store_true", help="with --checkpoint or --entry: each file's unified diff")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.memory_source import UnknownId
    from memtui.core.resolve import resolve

    with resolve(args.path) as resolved:
        try:
            doc, text = _show(resolved.source, args)
        except UnknownId as missing:
            doc, text = _elsewhere(resolved.others, args, missing)
    emit(doc, args.json, text)
    return 0


def _show(source, args):
    from memtui.core import listing

    if args.task is not None:
        return listing.show_task(source, parse_id(args.task)), _task_text
    if args.step is not None:
        return listing.show_step(source, parse_id(args.step)), _step_text
    if args.checkpoint is not None:
        return listing.show_checkpoint(source, parse_id(args.checkpoint), diff=args.diff), _checkpoint_text
    return listing.show_entry(source, parse_id(args.entry), diff=args.diff), _entry_text


def _elsewhere(others, args, missing: Exception):
    """The record from another store PATH holds (`memtui show ~ --task ID` of a Codex session:
    ~ opens Claude Code's home first, as `memtui log ~` lists it); else the first store's error,
    naming the others looked in."""
    from memtui.core.errors import MemtuiError
    from memtui.core.memory_source import UnknownId

    for entry in others:
        try:
            store = entry.open()
        except MemtuiError:
            continue  # a store that cannot be opened here: the others are still looked in
        with store as other:
            try:
                return _show(other, args)
            except UnknownId:
                continue
    if not others:
        raise missing
    raise UnknownId(f"{missing}, nor in " + ", ".join(f"{s.kind} at {s.path}" for s in others))


def _entry_line(e: dict) -> str:
    sizes = f"{human_bytes(e['before_size'])} → {human_bytes(e['after_size'])}"
    return f"  entry {e['id']}  {e['action']:<6}  {sanitize(e['path'])}  ({sizes})"


def _diff_lines(e: dict) -> list[str]:
    if "diff" not in e:
        return []
    if e["diff"] is None:
        return [f"    (no diff: {one_line(e.get('diff_error', ''), 100)})"]
    return [sanitize(line) for line in e["diff"].splitlines()]


def _checkpoint_text(doc: dict) -> str:
    cp = doc["checkpoint"]
    label = f" ({cp['label']})" if cp["label"] else ""
    lines = [f"checkpoint {cp['id']}{label}  task {cp['task']}  {_step_of(cp)}"]
    for e in doc["entries"]:
        lines.append(_entry_line(e))
        lines.extend(_diff_lines(e))
    return "\n".join(lines)


def _step_of(cp: dict) -> str:
    """A rollback's or an undo's checkpoint belongs to no step."""
    return "no step" if cp["step"] is None else f"step {cp['step']}"


def _entry_text(doc: dict) -> str:
    e = doc["entry"]
    return "\n".join([f"checkpoint {e['checkpoint']}", _entry_line(e), *_diff_lines(e)])


def _task_text(doc: dict) -> str:
    t = doc["task"]
    session = "orphan (session deleted)" if t["session"] is None else f"session {t['session']}"
    lines = [f"task {t['id']}  {t['status']}{'  pinned' if t['pinned'] else ''}  {one_line(t['title'], 70)}",
             f"  {session}  {counted(t['steps'], 'step')}, {counted(t['checkpoints'], 'checkpoint')}"]
    if t["summary"]:
        lines.append(f"  summary: {one_line(t['summary'], 200)}")
    for cp in doc["checkpoints"]:
        label = f" ({cp['label']})" if cp["label"] else ""
        lines.append(f"  checkpoint {cp['id']}{label}  {_step_of(cp)}  {counted(cp['entries'], 'file')}")
    for ref in doc["references"]:
        lines.append(f"  {ref['kind']}: task {ref['from']} → task {ref['to']}")
    return "\n".join(lines)


def _step_text(doc: dict) -> str:
    s = doc["step"]
    checkpoint = f"  checkpoint {s['checkpoint']}" if s["checkpoint"] is not None else ""
    lines = [f"step {s['id']}  task {s['task']}  #{s['seq']}  {one_line(s['tool'], 40)}  {s['status']}{checkpoint}"]
    if s["error"]:
        lines.append(f"  error: {one_line(s['error'], 200)}")
    for name in ("args", "result"):
        value = s[name] if isinstance(s[name], str) else json.dumps(s[name], indent=2, ensure_ascii=False)
        lines.append(f"  {name}:")
        lines.extend("    " + line for line in sanitize(value, multiline=True).splitlines())
    return "\n".join(lines)
