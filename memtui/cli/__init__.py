"""The `memtui` command: thin porcelain over memtui.core.

`memtui [PATH]` opens the app; `memtui VERB ...` runs one headless verb. Each verb lives in
its own module under memtui/cli/ and exposes `register(subparsers)`, which adds its parser
and sets `func(args) -> int`. Every error the core raises is printed as one line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import NoReturn

from memtui import __version__
from memtui.cli._errors import describe, failures
from memtui.cli._progress import show_progress
from memtui.core.errors import damaged, no_such_path
from memtui.core.store.paths import is_team_url

# Verb modules, in the order `memtui --help` lists them.
VERBS: list[str] = [
    "open",
    "demo",
    "log",
    "show",
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
    "usage",
    "serve",
    "push",
]


class _OneLineErrors(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit 2, like every other error of the CLI
    (argparse would print the whole usage first)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._given: list[str] = []

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        # A value such as the query '->' is read as an unknown option: say how to give it.
        dashed = next((a for a in self._given if a[:1] == "-" and a[1:2] and not a[1].isalnum()
                       and a[1] != "-" and a not in self._option_string_actions), None)
        if dashed is not None and "--" not in self._given:
            message += f"; {dashed!r} was read as an option: give values that begin with '-' after --"
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or only `verb`'s part of it: running one verb imports that verb's
    module alone (each imports what it needs), which keeps start-up short."""
    parser = _OneLineErrors(
        prog="memtui",
        description="See, edit and safely clean up the external memory of AI coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERBS if verb is None else [verb]:
        importlib.import_module(f"memtui.cli.{name.replace('-', '_')}").register(sub)
    return parser


def check_path(path: Path) -> None:
    """A missing path, or a store cut short, is one line before any verb reads it."""
    from memtui.core.sqlite_readonly import truncation
    from memtui.core.store.paths import store_in

    if not path.exists():
        raise no_such_path(path)
    db = store_in(path) if path.is_dir() else path
    damage = truncation(db)
    if damage:
        raise damaged(db, damage)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `memtui` and `memtui PATH` open the app: route them to the `open` verb.
    if not argv or (argv[0] not in VERBS and not argv[0].startswith("-")):
        argv = ["open", *argv]
    parser = build_parser(argv[0] if argv[0] in VERBS else None)
    args, extra = parser.parse_known_args(argv)
    if extra:  # `search PATH --json -- ->`: the words after -- argparse leaves over are words to find
        words = extra[1:] if extra[0] == "--" else extra
        after = argv[argv.index("--") + 1:] if "--" in argv else []
        if not isinstance(vars(args).get("query"), list) or not words or words != after[len(after) - len(words):]:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.query += words
    path = vars(args).get("path")
    show_progress(args.verb)
    try:
        if path is not None and args.verb != "demo" and not is_team_url(path) and vars(args).get("team") is None:
            check_path(Path(path).expanduser())
        return int(args.func(args) or 0)
    except failures() as exc:
        from memtui.core.display import sanitize

        print(f"memtui: {sanitize(describe(exc, path))}", file=sys.stderr)  # it may name stored text
        return 2
    except KeyboardInterrupt:
        return 130
