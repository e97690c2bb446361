"""The `memtui` command: thin porcelain over memtui.core.

`memtui [PATH]` opens the app; `memtui VERB ...` runs one headless verb. Each verb lives in
its own module under memtui/cli/ and exposes `register(subparsers)`, which adds its parser
and sets `func(args) -> int`. Every error the core raises is printed as one line.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys
from typing import NoReturn

from memtui import __version__
from memtui.core.errors import MemtuiError

# Verb modules, in the order `memtui --help` lists them.
VERBS: list[str] = [
    "open",
    "demo",
    "rollback",
    "gc",
    "pin",
    "stats",
    "vacuum",
    "memory",
    "memory-history",
    "decisions",
    "lint",
    "search",
    "sources",
    "curate",
    "cleanup",
    "restore",
    "export",
    "serve",
]


class _OneLineErrors(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit 2, like every other error of the CLI
    (argparse would print the whole usage first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _database_errors() -> tuple[type[BaseException], ...]:
    """SQLite's errors, and peewee's wrappers of them when a verb loaded peewee (not imported
    here just for this: `memtui --help` and the app start faster without it)."""
    peewee = sys.modules.get("peewee")
    return (sqlite3.DatabaseError,) + ((peewee.DatabaseError,) if peewee is not None else ())


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrors(
        prog="memtui",
        description="See, edit and safely clean up the external memory of AI coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERBS:
        importlib.import_module(f"memtui.cli.{name.replace('-', '_')}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # `memtui` and `memtui PATH` open the app: route them to the `open` verb.
    if not argv or (argv[0] not in VERBS and not argv[0].startswith("-")):
        argv = ["open", *argv]
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except MemtuiError as exc:
        print(f"memtui: {exc}", file=sys.stderr)
        return 2
    except _database_errors() as exc:
        text = str(exc)
        hint = " (another process holds a lock; try again)" if "locked" in text or "busy" in text else ""
        print(f"memtui: database error: {text}{hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
