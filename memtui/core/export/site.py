"""A whole project (or every session of a store) as a folder of HTML pages that work offline.

    pages = build_site(source, select_sessions(source, project=Path("~/src/app")))
    write_site(Path("app-export"), pages)

One page per session (the same page `memtui export --session ID -o x.html` writes, with a
link back) and `index.html`: every session with its title, date, prompts, tokens and cost
(priced as `memtui usage` prices, memtui.core.usage). Links are relative file names, so the
folder can be moved, zipped or opened from disk; nothing is fetched.
"""

from __future__ import annotations

import os
import re
import shutil
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any, Callable

from memtui.core.errors import MemtuiError
from memtui.core.export.document import build_export, visible
from memtui.core.memory_source import MemorySource
from memtui.core.model import SessionInfo

INDEX = "index.html"
ORPHANS = "orphans.html"


def _t(value: object) -> str:
    """Text from the store, controls visible, escaped for HTML."""
    return escape(visible(str(value)), quote=True)


def select_sessions(source: MemorySource, project: Path | None = None) -> list[SessionInfo]:
    """The store's sessions, newest first; with `project`, only those whose tasks ran in that
    folder (the workspace each task recorded)."""
    sessions = list(source.sessions())
    if project is None:
        return sessions
    wanted = os.path.realpath(Path(project).expanduser())

    def ran_in(session: SessionInfo) -> bool:
        for task in source.tasks(session.id)[:1]:
            root = source.workspace_root(task.id)
            return root is not None and os.path.realpath(root) == wanted
        return False

    return [s for s in sessions if ran_in(s)]


def page_name(session_id: object, taken: set[str]) -> str:
    """A file name for a session's page: its id with only safe characters, unique in `taken`."""
    stem = "session-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", str(session_id))[:80] or "x")
    name, n = f"{stem}.html", 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}.html"
    taken.add(name)
    return name


def _prompts(doc: dict[str, Any]) -> int:
    return sum(1 for task in doc["tasks"] for entry in task["timeline"] if entry["kind"] == "prompt")


def _cost(cost: dict[str, Any]) -> str:
    """An exported cost as `memtui usage` words it ("$1.23", "$1.23 + unpriced", "unpriced")."""
    from memtui.core.usage import cost_text

    return _t(cost_text(cost["usd"], {item["model"]: item["tokens"] for item in cost["unpriced"]}))


def build_site(source: MemorySource, sessions: list[SessionInfo], include_orphans: bool = False,
               now: Callable[[], datetime] | None = None) -> dict[str, str]:
    """File name → HTML of each session's page and of the index; with `include_orphans`, a page
    of the tasks of no session too (when there are any)."""
    from memtui.core.export.html import page_head, render_html, with_marks
    from memtui.core.usage import session_costs

    orphans = source.tasks(None) if include_orphans else []
    costs = session_costs(source, [*sessions, None] if orphans else sessions)
    pages: dict[str, str] = {}
    rows, taken, prices = [], {INDEX, ORPHANS}, None
    for session in sessions:
        doc = build_export(source, session_id=session.id, now=now)
        prices = doc["prices"]
        name = page_name(session.id, taken)
        pages[name] = render_html(doc, up=INDEX)
        group = costs.get(session.id)
        rows.append((name, session, _prompts(doc), group.tokens.total if group else 0, doc["cost"]))
    out = [f"<h1>memtui export — {len(rows):,} session{'s' if len(rows) != 1 else ''}</h1>",
           f'<p class="meta">Source: {_t(source.kind or "memtui")} at <code>{_t(source.path)}</code></p>',
           '<table class="index"><thead><tr><th>Session</th><th>Date</th><th>Prompts</th>'
           "<th>Tokens</th><th>Cost</th></tr></thead><tbody>"]
    for name, session, prompts, tokens, cost in rows:
        when = session.created_at.isoformat(sep=" ", timespec="minutes") if session.created_at else ""
        title = session.title or f"session {session.id}"
        out.append(f'<tr><td><a href="{escape(name, quote=True)}">{_t(title)}</a><br><span class="meta">{_t(session.id)}</span></td>'
                   f"<td>{_t(when)}</td><td class=\"num\">{prompts:,}</td><td class=\"num\">{tokens:,}</td>"
                   f"<td>{_cost(cost)}</td></tr>")
    if orphans:  # tasks of no session: one page of their own
        doc = build_export(source, orphans=True, now=now)
        pages[ORPHANS], prices = render_html(doc, up=INDEX), doc["prices"]
        out.append(f'<tr><td><a href="{ORPHANS}">Tasks without a session</a></td><td></td>'
                   f'<td class="num">{_prompts(doc):,}</td><td class="num">{costs[None].tokens.total:,}</td>'
                   f"<td>{_cost(doc['cost'])}</td></tr>")
    out.append("</tbody></table>")
    if prices:
        out.append(f'<p class="meta">Costs as <code>memtui usage</code> prices them: what the store recorded, '
                   f"else {_t(prices['name'])} {_t(prices['version'])} (prices as of {_t(prices.get('dated') or 'unknown')}).</p>")
    style = ("<style>table.index { border-collapse: collapse; width: 100%; } table.index td, table.index th "
             "{ border-bottom: 1px solid #d0d7de; padding: .3em .5em; text-align: left; vertical-align: top; } "
             "table.index td.num { text-align: right; }</style>")
    pages[INDEX] = "\n".join([*page_head("memtui export — sessions"), style]) + "\n" + with_marks("\n".join(out)) + "\n</body></html>\n"
    return pages


def write_site(folder: Path, pages: dict[str, str]) -> None:
    """Write the pages into the new folder `folder`, whole or not at all: they are written into
    a temporary folder beside it that is renamed into place. An existing `folder` is refused
    (export never overwrites)."""
    from memtui.core.atomic import check_writes_allowed, put_in_place, remove_stale_temp_dirs, temp_dir, write_atomic

    folder = Path(folder)
    if os.path.lexists(folder):
        raise MemtuiError(f"{folder} exists; choose a new folder (export never overwrites)")
    check_writes_allowed(folder)
    remove_stale_temp_dirs(folder.parent)  # what an export killed half-way left
    built = temp_dir(folder)
    try:
        built.mkdir(mode=0o755)
        for name, text in pages.items():
            write_atomic(built / name, text.encode("utf-8"), sweep=False)
        if os.path.lexists(folder):
            raise MemtuiError(f"{folder} exists; choose a new folder (export never overwrites)")
        put_in_place(built, folder)
    except BaseException:
        shutil.rmtree(built, ignore_errors=True)
        raise
