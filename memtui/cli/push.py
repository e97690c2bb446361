"""`memtui push [PATH…] --team URL [--machine NAME] [--dry-run] [--json]`: copy this machine's
stores into the team store."""

from __future__ import annotations

import sys
from pathlib import Path

from memtui.cli._common import add_json_flag, emit


def register(sub) -> None:
    p = sub.add_parser("push", help="copy this machine's stores and agent homes into the team store (PostgreSQL)")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="workspaces, stores or agent homes to push (default: your home folder: ~/.claude, ~/.codex …)")
    p.add_argument("--team", metavar="URL", help="the team store (postgresql://…; default: $MEMTUI_TEAM_URL)")
    p.add_argument("--machine", metavar="NAME", help="the name this machine's rows get (default: its hostname)")
    p.add_argument("--dry-run", action="store_true", help="write nothing: say what a push would write")
    p.add_argument("--watch", nargs="?", const=60.0, type=float, metavar="SECONDS",
                   help="push again every SECONDS (default 60) until interrupted: a line per push that wrote")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.core.errors import MemtuiError
    from memtui.core.resolve import team_url
    from memtui.core.store.paths import is_team_url
    from memtui.core.store.team import shown_url
    from memtui.core.team.push import push

    url = team_url(args.team)
    if url is None:
        raise MemtuiError("push needs the team store: --team URL (postgresql://…) or $MEMTUI_TEAM_URL")
    if not is_team_url(url):
        raise MemtuiError(f"--team takes a postgresql:// URL, not {url!r}")
    paths = [Path(p).expanduser() for p in args.paths] or [Path.home()]
    progress = _progress if sys.stderr.isatty() and not args.json else None
    if args.watch is not None:
        return _watch(paths, url, args, max(args.watch, 0.1))
    report = push(paths, url, machine=args.machine, dry_run=args.dry_run, progress=progress)
    if progress is not None:
        sys.stderr.write("\r\033[K")
    doc = report.to_json()
    doc["team"] = shown_url(url)
    emit(doc, args.json, _text)
    return 0


def _watch(paths: list[Path], url: str, args, every: float) -> int:
    """Push, then again every `every` seconds, until interrupted (Ctrl-C: exit 130); the first push
    and each later one that wrote something print their summary. Ctrl-C stops at the next session
    boundary, never inside a write to the server (a second Ctrl-C stops at once)."""
    import signal
    import threading

    from memtui.core.store.team import shown_url
    from memtui.core.team.push import push

    stopping = threading.Event()

    def interrupted(signum, frame) -> None:
        stopping.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C: at once

    signal.signal(signal.SIGINT, interrupted)
    try:
        first = True
        while True:
            report = push(paths, url, machine=args.machine, dry_run=args.dry_run, stop=stopping.is_set)
            if first or report.written:
                doc = report.to_json()
                doc["team"] = shown_url(url)
                emit(doc, args.json, _text)
                sys.stdout.flush()
            first = False
            if stopping.wait(every):
                raise KeyboardInterrupt
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _progress(line: str) -> None:
    sys.stderr.write("\r\033[K" + line[:120])
    sys.stderr.flush()


def _text(doc: dict) -> str:
    verb = "would write" if doc["dry_run"] else "wrote"
    lines = [f"{doc['machine']} → {doc['team']}: {doc['sessions']} sessions read, {verb} {doc['written']}"
             + ("" if doc["dry_run"] else f" ({doc['rows']} rows, {doc['blobs']} new contents)")]
    for s in doc["sources"]:
        state = "unchanged since the last push" if s["unchanged"] else f"{s['sessions']} sessions, {s['written']} {verb}"
        lines.append(f"  {s['kind']} {s['path']}: {state}")
    return "\n".join(lines)
