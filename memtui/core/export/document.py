"""The export document: memtui's read model of one session or task as plain JSON-ready data.

The shape is stable (`EXPORT_VERSION`); other tools may consume it. Text fields hold the
store's own text, unsanitised (JSON escapes it); the Markdown and HTML renderers make it
inert. Long tool arguments, results and diffs are cut with a marker, and say so.

    {"format": "memtui-export", "version": 1, "generated_at": ISO-8601,
     "source": {"kind", "path"}, "scope": {"session": ID} | {"task": ID} | {"orphans": true},
     "session": {"id", "title", "status", "created_at", "updated_at"} | null,
     "tasks": [TASK, ...],                    # roots; sub-agents nest under "children"
     "memory": [{"path", "kind", "text", "truncated"}] | null,
     "cost": COST,                            # every task of the document, sub-agents included
     "prices": {"name", "version", "dated"}}  # the price table that priced what the store did not
    COST = {"usd": number | null, "unpriced": [{"model", "tokens"}]}  # null: nothing could be priced
    TASK = {"id", "session_id", "title", "status", "pinned", "superseded", "collected",
            "summary", "created_at", "updated_at", "finished_at",
            "handed_off_from": ID | null,    # the parent task, when it lives elsewhere
            "messages": [{"role", "content", "created_at"}],
            "thinking": [{"content", "created_at"}],   # the agent's thinking texts, where kept
            "steps": [{"id", "seq", "tool", "view", "args", "args_truncated", "result",
                       "result_truncated", "result_chars", "status", "error", "tokens_in",
                       "tokens_out", "cost", "duration_ms", "created_at", "checkpoint_id",
                       "model", "usage": {"input", "output", "cache_read", "cache_write",
                       "cache_write_5m", "cache_write_1h", "reasoning"} | null}],
            "cost": COST,                       # its own steps
            "cost_with_subagents": COST,        # and every task it handed off to
            "checkpoints": [{"id", "step_id", "created_at", "label",
                             "entries": [{"id", "path", "kind", "before_size", "after_size",
                                          "added", "removed", "diff", "diff_truncated", "note"}]}],
            "children": [TASK, ...],
            "timeline": [ENTRY, ...]}           # the reading order of all of the above
    VIEW = {"kind": "shell", "command"} | {"kind": "write", "path", "content"}
         | {"kind": "edit", "path", "edits": [{"old", "new"}]} | {"kind": "patch", "patch"}
         | {"kind": "read", "path"} | null   # null: the arguments are shown as JSON
    ENTRY = {"kind": "prompt" | "message" | "text" | "thinking" | "tool" | "compaction" | "interrupt"
                     | "event" | "checkpoint" | "subagent",
             "at": ISO-8601 | null,
             "message" | "thinking" | "step" | "checkpoint": index into the task's list,
             | "task": the id of a child (a sub-agent round, nested where it was handed off)}
    A step's checkpoint is shown with the step; the timeline lists the other checkpoints.
    Version 2 added "thinking", "view" and "timeline".
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from memtui.core.diff import prepare_file_diff
from memtui.core.export.timeline import step_kind, step_view, timeline
from memtui.core.display import sanitize
from memtui.core.errors import MemtuiError
from memtui.core.listing import find_session, resolve_id
from memtui.core.memory.discover import discover_documents
from memtui.core.memory_source import MemorySource
from memtui.core.model import EntryInfo, Id, TaskInfo
from memtui.core.task_tree import TaskTree, build_task_tree, task_subtree

EXPORT_VERSION = 2
#: Characters of a tool's arguments or result kept in an export; the rest is cut with a marker.
TEXT_LIMIT = 4000
#: Lines of one file's diff kept in an export.
DIFF_LINE_LIMIT = 2000
#: Characters of one memory document kept with --with-memory.
MEMORY_LIMIT = 200_000


def cut_marker(dropped: int, unit: str = "characters") -> str:
    """The line that ends a cut text: how much was left out."""
    return f"… [{dropped:,} more {unit} not exported]"


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, dict) and v.get("type") == "text"
                                                 and isinstance(v.get("text"), str) for v in value):
        return "\n\n".join(v["text"] for v in value)  # a result as text blocks: their text
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _cut(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[:limit] + "\n" + cut_marker(len(text) - limit), True


def _cut_view(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A view's long texts cut as the arguments are (each to TEXT_LIMIT, marked)."""
    if view is None:
        return None
    out = {k: (_cut(v, TEXT_LIMIT)[0] if isinstance(v, str) and k != "kind" else v) for k, v in view.items()}
    if isinstance(view.get("edits"), list):
        out["edits"] = [{k: _cut(v, TEXT_LIMIT)[0] for k, v in e.items()} for e in view["edits"]]
    return out


def _step(step: Any) -> dict[str, Any]:
    args, args_cut = _cut(_as_text(step.args), TEXT_LIMIT)
    full_result = _as_text(step.result)
    result, result_cut = _cut(full_result, TEXT_LIMIT)
    return {
        "id": step.id, "seq": step.seq, "tool": step.tool,
        "view": _cut_view(step_view(step.tool, step.args)) if step_kind(step.tool) == "tool" else None,
        "args": args, "args_truncated": args_cut,
        "result": result, "result_truncated": result_cut, "result_chars": len(full_result),
        "status": step.status, "error": step.error,
        "tokens_in": step.tokens_in, "tokens_out": step.tokens_out, "cost": step.cost,
        "duration_ms": step.duration_ms, "created_at": _when(step.created_at),
        "checkpoint_id": step.checkpoint_id, "model": step.model or None,
        "usage": step.usage.as_dict() if step.usage is not None else None,
    }


def _cost(group: Any) -> dict[str, Any]:
    return {"usd": None if group.cost is None else round(group.cost, 6),
            "unpriced": [{"model": m, "tokens": n} for m, n in sorted(group.unpriced.items())]}


def _entry(source: MemorySource, entry: EntryInfo) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": entry.id, "path": entry.path, "kind": entry.kind,
        "before_size": entry.before_size, "after_size": entry.after_size,
        "added": None, "removed": None, "diff": None, "diff_truncated": False, "note": "",
    }
    try:
        before, after = source.read_entry(entry.id)
    except MemtuiError as exc:
        # The store may keep its own diff where it lacks the full contents (Codex patches).
        own = entry.diff
        if own:
            lines = own.splitlines()
            row["note"] = f"the store's own diff; {exc}"
        else:
            row["note"] = str(exc)
            return row
    else:
        diff = prepare_file_diff(entry.path, before, after)
        if diff.binary:
            row["note"] = f"binary: before {diff.before.describe()}; after {diff.after.describe()}"
            return row
        if diff.stats is not None:
            row["added"], row["removed"] = diff.stats.added, diff.stats.removed
        if diff.identical:  # a file checkpointed with the contents it had: no diff to show
            count = len(diff.new_lines)
            row["note"] = f"no changes ({count:,} line{'s' if count != 1 else ''} identical)"
            return row
        lines = diff.unified_lines()
        if diff.final_newline_note:
            lines.append(f"\\ {diff.final_newline_note}")
    if len(lines) > DIFF_LINE_LIMIT:
        lines = [*lines[:DIFF_LINE_LIMIT], cut_marker(len(lines) - DIFF_LINE_LIMIT, "lines")]
        row["diff_truncated"] = True
    row["diff"] = "\n".join(lines)
    return row


def _task(source: MemorySource, task: TaskInfo, tree: TaskTree, seen: set[Id]) -> dict[str, Any]:
    from memtui.core.usage import priced_steps, task_costs

    seen.add(task.id)
    own, whole = task_costs(source, task.id)
    checkpoints = []
    for cp in source.checkpoints(task.id):
        checkpoints.append({
            "id": cp.id, "step_id": cp.step_id, "created_at": _when(cp.created_at), "label": cp.label,
            "entries": [_entry(source, e) for e in source.checkpoint_entries(cp.id)],
        })
    messages = [{"role": m.role, "content": m.content, "created_at": _when(m.created_at)}
                for m in source.messages(task.id)]
    thinking = [{"content": m.content, "created_at": _when(m.created_at)} for m in source.thinking(task.id)]
    steps = [_step(s) for s in priced_steps(source.steps(task.id))]
    # A handoff cycle is drawn once: a task already exported is not repeated below itself.
    children = [_task(source, child, tree, seen) for child in tree.children.get(task.id, [])
                if child.id not in seen]
    return {
        "id": task.id, "session_id": task.session_id, "title": task.title, "status": task.status,
        "pinned": task.pinned, "superseded": task.superseded, "collected": task.collected,
        "summary": task.summary, "created_at": _when(task.created_at),
        "updated_at": _when(task.updated_at), "finished_at": _when(task.finished_at),
        "handed_off_from": tree.handed_from.get(task.id),
        "messages": messages, "thinking": thinking, "steps": steps, "checkpoints": checkpoints,
        "cost": _cost(own), "cost_with_subagents": _cost(whole), "children": children,
        "timeline": timeline(messages, steps, thinking, children, checkpoints),
    }


def _memory(root: Path | None) -> list[dict[str, Any]]:
    if root is None or not root.is_dir():
        return []
    docs = []
    for doc in discover_documents(root):
        try:
            text = doc.path.read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            docs.append({"path": doc.rel, "kind": doc.kind, "text": "", "truncated": False,
                         "error": exc.strerror or str(exc)})
            continue
        text, cut = _cut(text, MEMORY_LIMIT)
        docs.append({"path": doc.rel, "kind": doc.kind, "text": text, "truncated": cut})
    return docs


def build_export(source: MemorySource, *, session_id: Id | None = None, task_id: Id | None = None,
                 orphans: bool = False, with_memory: bool = False, memory_root: Path | None = None,
                 now: Callable[[], datetime] | None = None) -> dict[str, Any]:
    """The export document of one session (with its sub-agents), one task (with the tasks it
    handed off to) or, with `orphans`, the tasks of no session (and what they handed off to).
    Exactly one of them. Raises UnknownId (a KeyError and MemtuiError) for an id the source lacks."""
    if [session_id is not None, task_id is not None, orphans].count(True) != 1:
        raise ValueError("export one session, one task or the orphan tasks")
    session = None
    scope: dict[str, Any]
    if orphans:
        tree = build_task_tree(source, None)
        scope = {"orphans": True}
    elif session_id is not None:
        found = find_session(source, session_id)
        session = {"id": found.id, "title": found.title, "status": found.status,
                   "created_at": _when(found.created_at), "updated_at": _when(found.updated_at)}
        tree = build_task_tree(source, found.id)
        scope = {"session": found.id}
    else:
        tree = task_subtree(source, _typed_task_id(source, task_id))
        scope = {"task": tree.roots[0]}
    from memtui.core.usage import Group, price_table

    seen: set[Id] = set()
    tasks = [_task(source, tree.by_id[root], tree, seen) for root in tree.roots]
    total = Group("")
    for task in tasks:  # each root with what it handed off: every task once
        usd = task["cost_with_subagents"]["usd"]
        total.cost = None if usd is None and total.cost is None else (total.cost or 0.0) + (usd or 0.0)
        for item in task["cost_with_subagents"]["unpriced"]:
            total.unpriced[item["model"]] = total.unpriced.get(item["model"], 0) + item["tokens"]
    clock = now or (lambda: datetime.now(timezone.utc))
    return {
        "format": "memtui-export", "version": EXPORT_VERSION, "generated_at": clock().isoformat(),
        "source": {"kind": source.kind or "memtui", "path": str(source.path)},
        "scope": scope, "session": session, "tasks": tasks,
        "memory": _memory(memory_root) if with_memory else None,
        "cost": _cost(total), "prices": price_table().as_dict(),
    }


def _typed_task_id(source: MemorySource, task_id: Id | None) -> Id:
    """A task id from the command line: an int for stores with integer ids, else the one task
    it names, shortened or not (listing.resolve_id)."""
    if isinstance(task_id, str) and task_id.isdigit():
        try:
            return source.task(int(task_id)).id
        except KeyError:
            pass
    return resolve_id(source, task_id, "task")


def visible(text: str) -> str:
    """`text` with every control character, ANSI escape and bidi override shown visibly
    (␛ ␀ �), newlines and tabs kept: what both renderers put on the page."""
    return sanitize(text, multiline=True)


def step_figures(step: dict[str, Any]) -> list[str]:
    """Tokens, cost and duration of an exported step, as both renderers print them (numbers
    only: nothing here comes from the agent's text)."""
    figures = []
    if step["tokens_in"] or step["tokens_out"]:
        figures.append(f"{step['tokens_in']:,} in / {step['tokens_out']:,} out tokens")
    if step["cost"]:
        figures.append(f"${step['cost']:.4f}")
    if step.get("model"):
        figures.append(step["model"])
    if step["duration_ms"]:
        figures.append(f"{step['duration_ms']:,} ms")
    return figures


def cost_line(cost: dict[str, Any], prices: dict[str, Any]) -> str:
    """"$1.23 (genai-prices 0.2.3, prices as of 2026-09-28)", naming models the table lacks."""
    from memtui.core.usage import PriceTable, cost_text, unpriced_note
    from datetime import date

    unpriced = {item["model"]: item["tokens"] for item in cost["unpriced"]}
    dated = date.fromisoformat(prices["dated"]) if prices.get("dated") else None
    text = f"{cost_text(cost['usd'], unpriced)} ({PriceTable(prices['name'], prices['version'], dated).label})"
    note = unpriced_note(unpriced)
    return text + (f"; {note}" if note else "")


#: A result, argument or text longer than this many lines (or FOLD_CHARS characters) starts folded.
FOLD_LINES = 12
FOLD_CHARS = 1200


def folds(text: str) -> bool:
    """True when a block is long enough to start folded (<details>)."""
    return text.count("\n") >= FOLD_LINES or len(text) > FOLD_CHARS


def edit_diff(old: str, new: str) -> str:
    """An edit's old and new text as the hunks of a unified diff (no file header)."""
    import difflib

    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


def code_language(path: str) -> str:
    """The info string of a file's fenced block: its extension ("py"), "text" without one."""
    suffix = Path(path).suffix.lstrip(".").lower()
    return suffix if suffix.isalnum() else "text"


def step_checkpoints(task: dict[str, Any]) -> dict[Any, list[dict[str, Any]]]:
    """step id → the task's checkpoints recorded at that step (shown with it)."""
    out: dict[Any, list[dict[str, Any]]] = {}
    for cp in task["checkpoints"]:
        if cp["step_id"] is not None:
            out.setdefault(cp["step_id"], []).append(cp)
    return out


def walk(tasks: list[dict[str, Any]], depth: int = 0):
    """(depth, task) for every task of the document, depth-first, sub-agents after their parent."""
    for task in tasks:
        yield depth, task
        yield from walk(task["children"], depth + 1)
