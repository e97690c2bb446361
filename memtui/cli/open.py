"""`memtui [PATH]`: open the app on a workspace or an agent.db."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("open", help="open the app on a workspace or store (the default verb)")
    p.add_argument("path", nargs="?", default=".", help="workspace directory or agent.db")
    p.add_argument("--root", help="workspace root, for an agent.db outside its workspace")
    p.add_argument("--read-only", action="store_true",
                   help="no writing action at all: no pin, rollback, GC, vacuum, edit or cleanup")
    p.set_defaults(func=run)


def run(args) -> int:
    from memtui.ui.app import run_app

    return run_app(Path(args.path), root=Path(args.root) if args.root else None, read_only=args.read_only)
