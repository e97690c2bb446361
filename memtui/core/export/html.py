"""The export document as one self-contained HTML page.

No script, no remote asset: the style sheet is inline and a Content-Security-Policy forbids
anything else, so the page is inert even in a browser that mis-parses it. Every piece of
agent-written text is sanitised (control characters visible) and HTML-escaped; links are
never made from it. Diffs are highlighted with pygments: the old and new side of each file's
hunks are lexed as running text, so strings and comments spanning lines colour right.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any, Iterator

from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer, DiffLexer, TextLexer, get_lexer_for_filename
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

from memtui.core.display import counted
from memtui.core.export.document import (
    cost_line,
    edit_diff,
    folds,
    step_checkpoints,
    step_figures,
    visible,
    walk,
)

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"
_PAGE_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em;
       color: #1f2328; background: #fff; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 2em; }
pre, code, table.diff { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; white-space: pre-wrap; }
.meta { color: #57606a; } .status-failed, .error { color: #cf222e; } .status-completed { color: #1a7f37; }
.cut { color: #9a6700; font-style: italic; }
table.diff { border-collapse: collapse; width: 100%; margin: .4em 0 1em; }
table.diff td { padding: 0 .5em; white-space: pre-wrap; vertical-align: top; }
table.diff td.n { color: #8c959f; text-align: right; width: 3.5em; user-select: none; }
tr.add td { background: #e6ffec; } tr.del td { background: #ffebe9; }
tr.hunk td { background: #ddf4ff; color: #57606a; }
details { margin: .3em 0; } summary { cursor: pointer; }
ul.tree { list-style: none; padding-left: 1.2em; }
section.subagent { border-left: 3px solid #d0d7de; padding-left: 1em; margin: 1em 0 1em .5em; }
section.subagent h2 { font-size: 1.1em; border: none; margin-top: .5em; }
.prompt pre { background: #ddf4ff; } .reply pre { background: #fff; border: 1px solid #d0d7de; }
p.who { margin: 1em 0 .2em; font-weight: 600; } p.event { color: #57606a; }
.ctl { font-size: .72em; border: 1px solid #8c959f; border-radius: 2px; padding: 0 .12em; color: #57606a; }
"""


def _t(value: object) -> str:
    """Untrusted text, visible and escaped for HTML (quotes too: safe in attributes)."""
    return escape(visible(str(value)), quote=True)


def _lexer(path: str):
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except (ClassNotFound, ValueError):
        return TextLexer(stripnl=False, ensurenl=False)


def _css_class(ttype) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def _highlighted_lines(lexer, lines: list[str]) -> list[str]:
    """Each line as HTML with pygments' token classes, lexed as one running text."""
    out: list[str] = [""]
    for ttype, value in lexer.get_tokens("\n".join(lines)):
        css = _css_class(ttype)
        for k, piece in enumerate(value.split("\n")):
            if k:
                out.append("")
            if piece:
                out[-1] += f'<span class="{css}">{escape(piece)}</span>' if css else escape(piece)
    return out[: len(lines)] + [""] * (len(lines) - len(out))


def _diff_table(path: str, diff: str) -> str:
    rows = diff.split("\n")
    old_side = [visible(r[1:]) for r in rows if r[:1] in (" ", "-")]
    new_side = [visible(r[1:]) for r in rows if r[:1] in (" ", "+")]
    lexer = _lexer(path)
    old_html = iter(_highlighted_lines(lexer, old_side))
    new_html = iter(_highlighted_lines(lexer, new_side))
    old_no = new_no = 0
    out = ['<table class="diff highlight">']
    for row in rows:
        mark = row[:1]
        if row.startswith("@@"):
            parts = row.split()
            try:
                old_no = int(parts[1][1:].split(",")[0]) - 1
                new_no = int(parts[2][1:].split(",")[0]) - 1
            except (IndexError, ValueError):
                pass
            out.append(f'<tr class="hunk"><td class="n"></td><td class="n"></td><td>{_t(row)}</td></tr>')
        elif mark == "-":
            old_no += 1
            out.append(f'<tr class="del"><td class="n">{old_no}</td><td class="n"></td>'
                       f"<td>-{next(old_html, '')}</td></tr>")
        elif mark == "+":
            new_no += 1
            out.append(f'<tr class="add"><td class="n"></td><td class="n">{new_no}</td>'
                       f"<td>+{next(new_html, '')}</td></tr>")
        elif mark == " ":
            old_no += 1
            new_no += 1
            next(old_html, "")
            out.append(f'<tr><td class="n">{old_no}</td><td class="n">{new_no}</td>'
                       f"<td> {next(new_html, '')}</td></tr>")
        else:  # "\ no newline…" and the cut marker
            out.append(f'<tr><td class="n"></td><td class="n"></td><td class="cut">{_t(row)}</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def _pre(label: str, text: str, cut: bool = False, folded: bool | None = None) -> str:
    note = ' <span class="cut">(truncated)</span>' if cut else ""
    # Long texts start folded, so the steps of a task stay scannable; print shows them all.
    state = "" if (folds(text) if folded is None else folded) else " open"
    return f"<details{state}><summary>{label}{note}</summary><pre>{_t(text)}</pre></details>"


def _code(text: str, lexer, label: str | None = None) -> str:
    """Text highlighted by `lexer` in a <pre>; under a folding `label` when one is given."""
    lines = [visible(line) for line in text.split("\n")]
    body = f'<pre class="highlight">{chr(10).join(_highlighted_lines(lexer, lines))}</pre>'
    if label is None:
        return body
    state = "" if folds(text) else " open"
    return f"<details{state}><summary>{label}</summary>{body}</details>"


def _lines(text: str) -> str:
    return counted(text.count("\n") + 1, "line")


def _checkpoint(cp: dict[str, Any]) -> Iterator[str]:
    for entry in cp["entries"]:
        counts = f" +{entry['added']} −{entry['removed']}" if entry["added"] or entry["removed"] else ""
        yield f"<h5><code>{_t(entry['path'])}</code> <span class=\"meta\">{_t(entry['kind'])}{counts}</span></h5>"
        if entry["note"]:
            yield f'<p class="cut">{_t(entry["note"])}</p>'
        if entry["diff"] is not None:
            state = "" if folds(entry["diff"]) else " open"
            yield (f"<details{state}><summary>Diff ({_lines(entry['diff'])})</summary>"
                   f"{_diff_table(entry['path'], entry['diff'])}</details>")


def _view(view: dict[str, Any] | None, step: dict[str, Any], diffs: bool) -> Iterator[str]:
    """A call's arguments by kind: a command, a file's content, an edit (as a diff unless the
    step's checkpoint shows it), a patch; anything else as JSON."""
    if view is None:
        if step["args"]:
            yield _pre("Arguments", step["args"], step["args_truncated"])
    elif view["kind"] == "shell":
        yield _code(view["command"], BashLexer(stripnl=False, ensurenl=False))
    elif view["kind"] == "read":
        yield f"<p>Reads <code>{_t(view['path'])}</code></p>"
    elif diffs:  # the change the step made, as its checkpoint records it, follows
        if view["kind"] == "write":
            yield f"<p>Writes <code>{_t(view['path'])}</code>:</p>"
    elif view["kind"] == "patch":
        yield _code(view["patch"], DiffLexer(stripnl=False, ensurenl=False), f"Patch ({_lines(view['patch'])})")
    elif view["kind"] == "write":
        yield _code(view["content"], _lexer(view["path"]),
                    f"Writes <code>{_t(view['path'])}</code> ({_lines(view['content'])})")
    else:
        for edit in view["edits"]:
            yield (f"<details open><summary>Edits <code>{_t(view['path'])}</code></summary>"
                   f"{_diff_table(view['path'], edit_diff(edit['old'], edit['new']))}</details>")


def _step(step: dict[str, Any], kind: str, cps: list[dict[str, Any]]) -> Iterator[str]:
    facts = [f'<span class="status-{_t(step["status"])}">{_t(step["status"])}</span>', *step_figures(step)]
    text = step["result"] if isinstance(step["result"], str) else ""
    if kind == "text":
        yield f'<div class="reply"><p class="who">Assistant <span class="meta">{" · ".join(facts)}</span></p>'
        yield f"<pre>{_t(text)}</pre></div>"
        return
    if kind == "thinking":
        yield _pre("Thinking", text, folded=True)
        return
    if kind in ("compaction", "interrupt", "event"):
        label = {"compaction": "Compaction", "interrupt": "Interrupted"}.get(kind) or _t(step["tool"])
        yield f'<p class="event {kind}"><b>{label}</b> <span class="meta">{" · ".join(facts)}</span></p>'
        if text:
            yield _pre("Text", text)
        return
    yield f"<h4>{step['seq']}. <code>{_t(step['tool'])}</code> <span class=\"meta\">{' · '.join(facts)}</span></h4>"
    yield from _view(step.get("view"), step, bool(cps))
    for cp in cps:
        yield from _checkpoint(cp)
    if step["error"]:
        yield f'<pre class="error">{_t(step["error"])}</pre>'
    if step["result"] and step["result"] != step["error"]:
        yield _pre(f"Result ({_lines(step['result'])})", step["result"], step["result_truncated"])


def _task(task: dict[str, Any], anchors: dict[Any, str], parent: Any, prices: dict[str, Any],
          depth: int = 0) -> Iterator[str]:
    """A task in reading order; each sub-agent round nested where it was handed off."""
    marks = [f'<span class="status-{_t(task["status"])}">{_t(task["status"])}</span>']
    marks += [name for name in ("pinned", "superseded", "collected") if task[name]]
    what = "Task" if depth == 0 else "Sub-agent task"
    css = "task" if depth == 0 else "task subagent"
    yield f'<section id="{anchors[task["id"]]}" class="{css}"><h2>{what} {_t(task["id"])}: {_t(task["title"])}</h2>'
    yield '<p class="meta">' + ", ".join(marks)
    if task["session_id"] is not None:
        yield f" · session {_t(task['session_id'])}"
    handed = parent if parent is not None else task["handed_off_from"]
    if handed is not None:
        link = f'<a href="#{anchors[handed]}">task {_t(handed)}</a>' if handed in anchors else f"task {_t(handed)}"
        yield f" · handed off from {link}"
    if task["created_at"]:
        yield f" · created {_t(task['created_at'])}"
    if "cost" in task:
        yield f" · cost {_t(cost_line(task['cost'], prices))}"
        if task["children"]:
            yield f" · with sub-agents {_t(cost_line(task['cost_with_subagents'], prices))}"
    yield "</p>"
    if task["summary"]:
        yield _pre("Summary", task["summary"])
    children = {child["id"]: child for child in task["children"]}
    cps = step_checkpoints(task)
    for entry in task["timeline"]:
        kind = entry["kind"]
        if kind in ("prompt", "message"):
            message = task["messages"][entry["message"]]
            if message["role"] == "summary" and message["content"] == task["summary"]:
                continue  # shown once, as the summary
            label = "Prompt" if kind == "prompt" else _t(message["role"]).capitalize()
            when = f' <span class="meta">{_t(message["created_at"])}</span>' if message["created_at"] else ""
            yield f'<div class="{kind}"><p class="who">{label}{when}</p><pre>{_t(message["content"])}</pre></div>'
        elif kind == "thinking":
            yield _pre("Thinking", task["thinking"][entry["thinking"]]["content"], folded=True)
        elif kind == "checkpoint":
            cp = task["checkpoints"][entry["checkpoint"]]
            label = f" ({_t(cp['label'])})" if cp["label"] else ""
            yield f"<h4>Checkpoint {_t(cp['id'])}{label}</h4>"
            yield from _checkpoint(cp)
        elif kind == "subagent":
            yield from _task(children[entry["task"]], anchors, task["id"], prices, depth + 1)
        else:
            step = task["steps"][entry["step"]]
            yield from _step(step, kind, cps.get(step["id"], []))
    yield "</section>"


def page_head(title: str) -> list[str]:
    """The start of a memtui page up to <body>: charset, the CSP, the inline style sheet."""
    css = _PAGE_CSS + HtmlFormatter(style="default").get_style_defs(".highlight")
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
            f"<title>{title}</title>", f"<style>{css}</style></head><body>"]


def with_marks(body: str) -> str:
    """`body` with each control picture written as the control's name in a box."""
    return _CONTROL_PICTURE.sub(_control_mark, body)


def render_html(doc: dict[str, Any], up: str | None = None) -> str:
    """The export document as one HTML page (UTF-8, inline CSS, no script); `up` is a
    relative link to the index page it belongs to, when it has one."""
    scope = doc["scope"]
    what = (f"session {_t(scope['session'])}" if "session" in scope
            else f"task {_t(scope['task'])}" if "task" in scope else "tasks without a session")
    title = doc["session"]["title"] if doc["session"] else (doc["tasks"][0]["title"] if doc["tasks"] else "")
    tasks = list(walk(doc["tasks"]))
    anchors = {task["id"]: f"task-{n}" for n, (_, task) in enumerate(tasks)}
    head = page_head(f"memtui export — {what}")
    out = [f'<p class="meta"><a href="{escape(up, quote=True)}">← all sessions</a></p>'] if up else []
    out += [f"<h1>memtui export — {what}: {_t(title)}</h1>",
           f'<p class="meta">Source: {_t(doc["source"]["kind"])} at <code>{_t(doc["source"]["path"])}</code>'
           f" · exported {_t(doc['generated_at'])}"
           + (f" · cost {_t(cost_line(doc['cost'], doc['prices']))}" if doc.get("cost") is not None else "")
           + "</p>", "<h2>Task tree</h2>"]
    out += _tree(doc["tasks"], anchors) if tasks else ["<p>(no tasks)</p>"]
    for task in doc["tasks"]:
        out += _task(task, anchors, None, doc.get("prices") or {})
    if doc["memory"] is not None:
        out.append("<h2>Memory documents</h2>")
        if not doc["memory"]:
            out.append("<p>(none found in the workspace)</p>")
        for item in doc["memory"]:
            out.append(_pre(f"<code>{_t(item['path'])}</code> — {_t(item['kind'])}",
                            item.get("error") or item["text"], item["truncated"]))
    out.append("</body></html>")
    return "\n".join(head) + "\n" + with_marks("\n".join(out)) + "\n"


_C0_NAMES = ("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM "
             "SUB ESC FS GS RS US").split()
_CONTROL_PICTURE = re.compile("[\u2400-\u241f\u2421]")
"""The control pictures `sanitize` shows controls as (␛ for ESC): common fonts (DejaVu,
Liberation) have no glyph for them, so the page writes the control's name in a box instead."""


def _control_mark(match: re.Match) -> str:
    code = ord(match.group()) - 0x2400
    name = "DEL" if code == 0x21 else _C0_NAMES[code]
    shown = 0x7F if code == 0x21 else code
    return f'<span class="ctl" title="control character {name} (0x{shown:02X})">{name}</span>'


def _tree(tasks: list[dict[str, Any]], anchors: dict[Any, str]) -> list[str]:
    out = ['<ul class="tree">']
    for task in tasks:
        out.append(f'<li><a href="#{anchors[task["id"]]}">task {_t(task["id"])}</a>: {_t(task["title"])} '
                   f'<span class="meta">({_t(task["status"])}, {counted(len(task["steps"]), "step")})</span>')
        if task["children"]:
            out += _tree(task["children"], anchors)
        out.append("</li>")
    out.append("</ul>")
    return out
