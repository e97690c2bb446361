"""The export document as Markdown: inert whatever the agent wrote.

Inline text (titles, tool names, paths) has every Markdown and HTML character
backslash-escaped or turned into an entity, so `<script>`, `[x](javascript:…)` and Rich
markup stay text; block text (arguments, results, messages, diffs) goes into fenced code
blocks whose fence is longer than any backtick run inside. Control characters and ANSI
escapes are shown visibly (␛[31m), never passed through.
"""

from __future__ import annotations

import re
from typing import Any

from memtui.core.display import counted
from memtui.core.export.document import (
    code_language,
    cost_line,
    edit_diff,
    folds,
    step_checkpoints,
    step_figures,
    visible,
    walk,
)

# Emphasis, code, links, tables, strikethrough and closing heading marks; "<" and "&" become
# entities. Inline text never starts a line, so list and heading starts need no escape.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|~])")


def inline(value: object) -> str:
    """One line of untrusted text, safe in running Markdown."""
    text = " ".join(visible(str(value)).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def escape_html(value: object) -> str:
    """Untrusted text inside memtui's own HTML tags (a <summary>): visible and entity-escaped."""
    return " ".join(visible(str(value)).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def block(text: str, info: str = "text") -> str:
    """Untrusted text as a fenced code block that nothing inside can close."""
    body = visible(text)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _facts(step: dict[str, Any]) -> str:
    return " · ".join([inline(step["status"]), *step_figures(step)])


def _folded(summary: str, body: str, always: bool = False) -> list[str]:
    """A block under a label; folded in <details> when long (or `always`): GitHub and most
    Markdown viewers show the summary with a toggle. `summary` is memtui's own words."""
    if always or folds(body):
        return ["", f"<details><summary>{summary}</summary>", "", body, "", "</details>"]
    return ["", f"{summary}:", "", body]


def _lines(text: str) -> str:
    count = text.count("\n") + 1
    return f"{count:,} line{'s' if count != 1 else ''}"


def _checkpoint(cp: dict[str, Any]) -> list[str]:
    out = []
    for entry in cp["entries"]:
        counts = f" +{entry['added']} −{entry['removed']}" if entry["added"] or entry["removed"] else ""
        out += ["", f"`{inline(entry['path'])}` — {inline(entry['kind'])}{counts}"]
        if entry["note"]:
            out += ["", f"_{inline(entry['note'])}_"]
        if entry["diff"] is not None:
            out += _folded(f"Diff ({_lines(entry['diff'])})", block(entry["diff"], "diff"))
    return out


def _view(view: dict[str, Any] | None, step: dict[str, Any], diffs: bool) -> list[str]:
    """A call's arguments by kind: a command, a file's content, an edit (as a diff unless the
    step's checkpoint shows it), a patch; anything else as JSON."""
    if view is None:
        if not step["args"]:
            return []
        cut = " (truncated)" if step["args_truncated"] else ""
        return _folded(f"Arguments{cut}", block(step["args"], "json"))
    if view["kind"] == "shell":
        return ["", block(view["command"], "sh")]
    if view["kind"] == "read":
        return ["", f"Reads `{inline(view['path'])}`"]
    if diffs:  # the change the step made, as its checkpoint records it, follows
        return [] if view["kind"] != "write" else ["", f"Writes `{inline(view['path'])}`:"]
    if view["kind"] == "patch":
        return _folded(f"Patch ({_lines(view['patch'])})", block(view["patch"], "diff"))
    if view["kind"] == "write":
        return _folded(f"Writes {escape_html(view['path'])} ({_lines(view['content'])})",
                       block(view["content"], code_language(view["path"])))
    out = []
    for edit in view["edits"]:
        out += _folded(f"Edits {escape_html(view['path'])}", block(edit_diff(edit["old"], edit["new"]), "diff"))
    return out


def _step(step: dict[str, Any], kind: str, cps: list[dict[str, Any]]) -> list[str]:
    text = step["result"] if isinstance(step["result"], str) else ""
    if kind == "text":
        return ["", f"**Assistant** · {_facts(step)}", "", block(text)]
    if kind == "thinking":
        return _folded("Thinking", block(text), always=True)
    if kind in ("compaction", "interrupt", "event"):
        label = {"compaction": "Compaction", "interrupt": "Interrupted"}.get(kind, inline(step["tool"]))
        out = ["", f"**{label}** · {_facts(step)}"]
        return out + (_folded("Text", block(text)) if text else [])
    out = ["", f"#### {step['seq']}. {inline(step['tool'])} — {_facts(step)}"]
    out += _view(step.get("view"), step, bool(cps))
    for cp in cps:
        out += _checkpoint(cp)
    if step["error"]:
        out += ["", "Error:", "", block(step["error"])]
    if step["result"] and step["result"] != step["error"]:
        cut = "truncated, " if step["result_truncated"] else ""
        out += _folded(f"Result ({cut}{_lines(step['result'])})", block(step["result"]))
    return out


def _head(task: dict[str, Any], parent: Any, prices: dict[str, Any]) -> list[str]:
    marks = [inline(task["status"])]
    marks += [name for name in ("pinned", "superseded", "collected") if task[name]]
    out = ["", f"- status: {', '.join(marks)}"]
    if task["session_id"] is not None:
        out.append(f"- session: {inline(task['session_id'])}")
    handed = parent if parent is not None else task["handed_off_from"]
    if handed is not None:
        out.append(f"- handed off from task {inline(handed)}")
    if task["children"]:
        out.append("- handed off to: " + ", ".join(f"task {inline(c['id'])}" for c in task["children"]))
    for label in ("created_at", "finished_at"):
        if task[label]:
            out.append(f"- {label.replace('_at', '')}: {inline(task[label])}")
    if "cost" in task:
        out.append(f"- cost: {inline(cost_line(task['cost'], prices))}")
        if task["children"]:
            out.append(f"- cost with sub-agents: {inline(cost_line(task['cost_with_subagents'], prices))}")
    if task["summary"]:
        out += ["", "Summary:", "", block(task["summary"])]
    return out


def _task(task: dict[str, Any], parent: Any, prices: dict[str, Any], depth: int = 0) -> list[str]:
    """A task in reading order; each sub-agent round nested (quoted) where it was handed off."""
    heading = "##" if depth == 0 else "###"
    what = "Task" if depth == 0 else "↳ Sub-agent task"
    out = [f"{heading} {what} {inline(task['id'])}: {inline(task['title'])}", *_head(task, parent, prices)]
    children = {child["id"]: child for child in task["children"]}
    cps = step_checkpoints(task)
    for entry in task["timeline"]:
        kind = entry["kind"]
        if kind == "prompt" or kind == "message":
            message = task["messages"][entry["message"]]
            if message["role"] == "summary" and message["content"] == task["summary"]:
                continue  # shown once, as the summary
            label = "Prompt" if kind == "prompt" else inline(message["role"]).capitalize()
            out += ["", f"**{label}**" + (f" · {inline(message['created_at'])}" if message["created_at"] else ""),
                    "", block(message["content"])]
        elif kind == "thinking":
            out += _folded("Thinking", block(task["thinking"][entry["thinking"]]["content"]), always=True)
        elif kind == "checkpoint":
            cp = task["checkpoints"][entry["checkpoint"]]
            label = f" ({inline(cp['label'])})" if cp["label"] else ""
            out += ["", f"#### Checkpoint {inline(cp['id'])}{label}", *_checkpoint(cp)]
        elif kind == "subagent":
            child = children[entry["task"]]
            out += ["", *_task(child, task["id"], prices, depth + 1),
                    f"_↩ end of sub-agent task {inline(child['id'])}; back to task {inline(task['id'])}_"]
        else:
            step = task["steps"][entry["step"]]
            out += _step(step, kind, cps.get(step["id"], []))
    out.append("")
    return out


def render_markdown(doc: dict[str, Any]) -> str:
    """The export document as one Markdown text."""
    scope = doc["scope"]
    what = (f"session {inline(scope['session'])}" if "session" in scope
            else f"task {inline(scope['task'])}" if "task" in scope else "tasks without a session")
    title = doc["session"]["title"] if doc["session"] else (doc["tasks"][0]["title"] if doc["tasks"] else "")
    out = [f"# memtui export — {what}: {inline(title)}", "",
           f"Source: {inline(doc['source']['kind'])} at {inline(doc['source']['path'])}  ",
           f"Exported: {inline(doc['generated_at'])}  "]
    if doc.get("cost") is not None:
        out.append(f"Cost: {inline(cost_line(doc['cost'], doc['prices']))}")
    out += ["", "## Task tree", ""]
    tasks = list(walk(doc["tasks"]))
    for depth, task in tasks:
        out.append(f"{'  ' * depth}- task {inline(task['id'])}: {inline(task['title'])} "
                   f"({inline(task['status'])}, {counted(len(task['steps']), 'step')})")
    if not tasks:
        out.append("(no tasks)")
    out.append("")
    for task in doc["tasks"]:
        out += _task(task, None, doc.get("prices") or {})
    if doc["memory"] is not None:
        out += ["## Memory documents", ""]
        if not doc["memory"]:
            out += ["(none found in the workspace)", ""]
        for item in doc["memory"]:
            cut = " (truncated)" if item["truncated"] else ""
            out += [f"### {inline(item['path'])} — {inline(item['kind'])}{cut}", "",
                    block(item.get("error") or item["text"]), ""]
    return "\n".join(out).rstrip("\n") + "\n"
