"""`memtui vacuum PATH`: give freelist pages back to the disk (never done implicitly)."""

from __future__ import annotations

import sys

from memtui.cli._common import add_json_flag, emit, open_store
from memtui.core.memory_source import Capability


def register(sub) -> None:
    p = sub.add_parser("vacuum", help="VACUUM the store (or --incremental / --checkpoint)")
    p.add_argument("path", help="workspace directory or agent.db, or an agent's SQLite store (OpenCode's data folder,"
                   " ~/.codex) while the agent is not running")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--incremental", nargs="?", const=0, type=_pages, metavar="PAGES",
                      help="return up to PAGES freelist pages (all by default) without rewriting the file")
    mode.add_argument("--checkpoint", action="store_true", help="only copy the WAL into the file and truncate it")
    add_json_flag(p)
    p.set_defaults(func=run)


def _pages(text: str) -> int:
    import argparse

    try:
        pages = int(text)
    except ValueError:
        pages = 0
    if pages < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of pages (1 or more; leave it out for all)")
    return pages


def run(args) -> int:
    from memtui.core.vacuum import incremental_vacuum, vacuum, wal_checkpoint

    if _another_agents_files(args):
        return 0
    with open_store(args.path, Capability.VACUUM) as store:  # each action writes through store.writer()
        if args.checkpoint:
            result = wal_checkpoint(store)
        elif args.incremental is not None:
            result = incremental_vacuum(store, args.incremental or None)
        else:
            tty = sys.stderr.isatty() and not args.json

            def progress(fraction: float) -> None:
                if tty:
                    print(f"\r  VACUUM {fraction:.0%}", end="", file=sys.stderr, flush=True)

            result = vacuum(store, progress=progress)
            if tty:
                print(file=sys.stderr)
    emit(result.to_json(), args.json, lambda _: f"{result.summary()}, {result.seconds:.1f} s")
    return 0


def _another_agents_files(args) -> bool:
    """Another agent's SQLite files at PATH (OpenCode's opencode.db, Codex's *.sqlite): each
    vacuumed into a copy swapped in, only while the agent is not running (memtui.core.agent_vacuum).
    False when PATH means no such store (memtui's own store is vacuumed as before)."""
    from memtui.core.errors import MemtuiError
    from memtui.core.resolve import resolve
    from memtui.core.store.paths import is_team_url

    if is_team_url(args.path):
        return False
    with resolve(args.path) as resolved:
        source = resolved.source
        if source.can(Capability.VACUUM):
            return False
        files, label, names = list(source.sqlite_files()), source.label, tuple(source.agent_processes)
    if not files:
        return False
    if not names:  # no way to tell whether the agent runs: not vacuumed
        raise MemtuiError(f"memtui does not know the processes of {label}, so it cannot tell whether it is running;"
                          " its SQLite files are not vacuumed")
    if args.checkpoint or args.incremental is not None:
        raise MemtuiError(f"{label}'s SQLite files are vacuumed whole (a compact copy swapped in):"
                          " leave out --incremental and --checkpoint")
    from memtui.core.agent_vacuum import vacuum_agent_file

    results = [vacuum_agent_file(f, label, names) for f in files]
    emit({"files": [r.to_json() for r in results]}, args.json,
         lambda _: "\n".join(f"{r.detail['path']}: {r.summary()}, {r.seconds:.1f} s" for r in results))
    return True
