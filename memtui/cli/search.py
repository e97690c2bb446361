"""`memtui search PATH QUERY` (or `--team URL QUERY`): search memory documents and the store (or an agent
home's sessions; a team store is searched on its server).

Exit status: 0 when something matched, 1 when nothing did (like grep), 2 on errors. On a
terminal the matches are marked in colour, as grep marks them (not with NO_COLOR set).
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from pathlib import Path

from memtui.cli._common import add_json_flag, emit
from memtui.cli._source import team_or_path
from memtui.cli._workspace import require_workspace, workspace_root
from memtui.core.display import sanitize
from memtui.core.errors import MemtuiError


LIMIT = 200
"""Hits listed unless --limit, --all or --json says otherwise."""
COUNT_CAP = 10_001
"""Matches counted after the last one listed (above it: "10,000+ more")."""


def register(sub) -> None:
    p = sub.add_parser("search", help="search memory documents, tasks, steps and messages")
    p.add_argument("path", help="workspace directory or agent.db (with --team: the first word to find)")
    p.add_argument("query", nargs="*", help='words to find (all must match; "quote phrases")')
    p.add_argument("--team", nargs="?", const="", metavar="URL",
                   help="search the team store at URL on its server (postgresql://…; without URL: $MEMTUI_TEAM_URL)")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--limit", type=int, metavar="N",
                       help=f"at most N hits (default {LIMIT}, or every hit with --json); when more match,"
                            " a line on stderr says how many")
    shown.add_argument("--all", action="store_true", help="every hit, however many")
    p.add_argument("--kind", action="append", choices=["file", "task", "step", "message"],
                   help="only hits of this kind (repeatable)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.cli._progress import search_progress
    from memtui.core.memory.search import KINDS, SearchIndex

    if args.team is not None:  # every word given is a word to find
        args.path, args.query = team_or_path(args.path, args.team), [args.path, *args.query]
    elif not args.query:
        raise MemtuiError("search needs a PATH and words to find (or --team URL and words)")
    if not " ".join(args.query).strip():
        raise MemtuiError("search needs words to find (an empty query matches nothing)")
    if args.limit is not None and args.limit < 1:
        raise MemtuiError("--limit must be at least 1")
    limit = None if args.all or (args.json and args.limit is None) else args.limit or LIMIT
    query, kinds = " ".join(args.query), args.kind or KINDS
    with ExitStack() as opened:
        stores, root = _searched(args.path, opened)
        hits, more = [], 0
        for n, searched in enumerate(stores):
            # Memory documents are in every index of ROOT: listed once, from the first.
            wanted = [k for k in kinds if n == 0 or k != "file"]
            with SearchIndex(root, searched) as index:
                told = search_progress(searched.path) if searched is not None else None
                try:
                    index.refresh(progress=told)
                finally:
                    if told is not None:
                        told.clear()
                room = None if limit is None else limit - len(hits)
                page = index.page(query, room if room != 0 else 1, COUNT_CAP, wanted)
            found = page.hits if room != 0 else []
            more = min(COUNT_CAP, more + page.more + (len(page.hits) if room == 0 else 0))
            # A team store's hits name the machine (and agent) their task was pushed from.
            origins = searched.task_origins(h.task for h in found if h.task) if searched is not None else {}
            hits += [(searched if len(stores) > 1 and hit.kind != "file" else None, hit,
                      origins.get(hit.task or "", "")) for hit in found]
    if len(stores) > 1:
        print("searched " + ", ".join(f"{_agent_of(s)} at {s.path}" for s in stores), file=sys.stderr)
    if hits and not args.json and sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        sys.stdout.write("".join(_marked_line(h, _agent_of(s), origin) + "\n" for s, h, origin in hits))
    else:
        emit([_hit_json(h, s, origin) for s, h, origin in hits], args.json, _text)
    if more:
        shown = f"{more - 1:,}+" if more == COUNT_CAP else f"{more:,}"
        print(f"{shown} more matches not shown (--limit N or --all lists them)", file=sys.stderr)
    return 0 if hits else 1


def _agent_of(source) -> str | None:
    """The agent a hit came from, as `memtui sources` names it (None: one store was searched)."""
    return None if source is None else source.kind


def _hit_json(hit, source, origin: str = "") -> dict:
    out = hit.to_json()
    if source is not None:
        out["source"] = _agent_of(source)
    if origin:  # a team store's: "machine · agent"
        from memtui.core.model import ORIGIN_SEPARATOR

        out["machine"], _, out["agent"] = origin.rpartition(ORIGIN_SEPARATOR)
    return out


def _searched(path: str, opened: ExitStack) -> tuple[list, Path]:
    """(the stores whose records are searched — [None] for memory documents alone —, the folder
    whose memory documents are): the store `memtui PATH` shows and its root (memtui.core.resolve),
    as ctrl+f in that app searches them; for a folder that is no store itself and holds no memtui
    store (~: Claude Code and Codex), every other searchable store `memtui sources` lists there
    too. A store that cannot be searched leaves the memory documents of its root; without any,
    it says what it can't do. A folder holding no store must hold memory documents (never "no
    matches" for a mistyped PATH)."""
    from memtui.core.errors import StoreNotFound
    from memtui.core.memory.discover import discover_documents
    from memtui.core.memory_source import Capability, Unsupported
    from memtui.core.resolve import resolve

    try:
        resolved = opened.enter_context(resolve(path))
    except StoreNotFound:
        root = workspace_root(path)  # memory documents need no store
        require_workspace(root, discover_documents(root))
        return [None], root
    stores = [resolved.source] if resolved.source.can(Capability.SEARCH) else []
    for entry in resolved.others:
        try:
            other = opened.enter_context(entry.open())
        except MemtuiError:
            continue
        if other.can(Capability.SEARCH):
            stores.append(other)
    if stores:
        return stores, resolved.root
    if not discover_documents(resolved.root):
        raise Unsupported(resolved.source, Capability.SEARCH)
    return [None], resolved.root


MARK, END = "\x1b[1;31m", "\x1b[0m"
"""Bold red around a match, as grep --color draws it."""


def _text(hits) -> str:
    if not hits:
        return "no matches"
    return "\n".join(sanitize(f"{_from(h.get('source'), _origin(h))}{_where(h)}: {h['text']}") for h in hits)


def _origin(h: dict) -> str:
    return f"{h['machine']} · {h['agent']}" if h.get("machine") else ""


def _from(agent: str | None, origin: str = "") -> str:
    """What a hit's line starts with: the store's agent (several searched), the machine and
    agent its task was pushed from (a team store)."""
    return "".join(f"{part} " for part in (agent, origin and f"[{origin}]") if part)


def _where(h: dict) -> str:
    if h["kind"] == "file":
        return f"{h['file']}:{h['line']}"
    if h["kind"] == "step":
        return f"task {h['task']} step {h['line']}"
    if h["kind"] == "task":
        return f"task {h['task']}"
    return f"message (task {h.get('task', '-')})"


def _marked_line(hit, agent: str | None = None, origin: str = "") -> str:
    """`_text`'s line of one hit with its matches marked: the stored text is made safe first
    (one character for one, so the matches stay where they were), the marks added after."""
    text, pieces, last = sanitize(hit.text), [], 0
    for start, end in hit.spans:
        pieces += [text[last:start], MARK, text[start:end], END]
        last = end
    return sanitize(f"{_from(agent, origin)}{_where(hit.to_json())}: ") + "".join(pieces) + text[last:]
