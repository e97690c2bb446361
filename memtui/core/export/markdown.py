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
from memtui.core.export.document import cost_line, step_figures, visible, walk

# Emphasis, code, links, tables, strikethrough and closing heading marks; "<" and "&" become
# entities. Inline text never starts a line, so list and heading starts need no escape.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|~])")


def inline(value: object) -> str:
    """One line of untrusted text, safe in running Markdown."""
    text = " ".join(visible(str(value)).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def block(text: str, info: str = "text") -> str:
    """Untrusted text as a fenced code block that nothing inside can close."""
    body = visible(text)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _facts(step: dict[str, Any]) -> str:
    return " · ".join([inline(step["status"]), *step_figures(step)])


def _task(out: list[str], task: dict[str, Any], parent: Any, prices: dict[str, Any]) -> None:
    out.append(f"## Task {inline(task['id'])}: {inline(task['title'])}")
    marks = [inline(task["status"])]
    marks += [name for name in ("pinned", "superseded", "collected") if task[name]]
    out.append("")
    out.append(f"- status: {', '.join(marks)}")
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
    for message in task["messages"]:
        if message["role"] == "summary" and message["content"] == task["summary"]:
            continue  # shown once, as the summary
        out += ["", f"**{inline(message['role'])}**:", "", block(message["content"])]
    if task["steps"]:
        out += ["", f"### Steps ({len(task['steps'])})"]
    for step in task["steps"]:
        out += ["", f"#### {step['seq']}. {inline(step['tool'])} — {_facts(step)}"]
        if step["error"]:
            out += ["", "Error:", "", block(step["error"])]
        if step["args"]:
            out += ["", "Arguments" + (" (truncated)" if step["args_truncated"] else "") + ":", "",
                    block(step["args"])]
        if step["result"] and step["result"] != step["error"]:
            out += ["", "Result" + (" (truncated)" if step["result_truncated"] else "") + ":", "",
                    block(step["result"])]
    for cp in task["checkpoints"]:
        label = f" ({inline(cp['label'])})" if cp["label"] else ""
        step = f", step {inline(cp['step_id'])}" if cp["step_id"] is not None else ""
        out += ["", f"### Checkpoint {inline(cp['id'])}{label}{step}"]
        for entry in cp["entries"]:
            counts = f" +{entry['added']} −{entry['removed']}" if entry["added"] is not None else ""
            out += ["", f"#### {inline(entry['path'])} — {inline(entry['kind'])}{counts}"]
            if entry["note"]:
                out += ["", f"_{inline(entry['note'])}_"]
            if entry["diff"] is not None:
                out += ["", block(entry["diff"], "diff")]
    out.append("")


def render_markdown(doc: dict[str, Any]) -> str:
    """The export document as one Markdown text."""
    scope = doc["scope"]
    what = f"session {inline(scope['session'])}" if "session" in scope else f"task {inline(scope['task'])}"
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
    parents = {child["id"]: task["id"] for _, task in tasks for child in task["children"]}
    for _, task in tasks:
        _task(out, task, parents.get(task["id"]), doc.get("prices") or {})
    if doc["memory"] is not None:
        out += ["## Memory documents", ""]
        if not doc["memory"]:
            out += ["(none found in the workspace)", ""]
        for item in doc["memory"]:
            cut = " (truncated)" if item["truncated"] else ""
            out += [f"### {inline(item['path'])} — {inline(item['kind'])}{cut}", "",
                    block(item.get("error") or item["text"]), ""]
    return "\n".join(out).rstrip("\n") + "\n"
