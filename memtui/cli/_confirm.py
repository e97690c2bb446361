"""Destructive verbs behave alike: on a terminal they show what they will do and ask, unless
--yes; without a terminal (a script) they run as asked — the verb's own flags (--apply,
--delete, the ids given) already said so. The question goes to stderr, so --json output on
stdout stays parseable."""

from __future__ import annotations

import sys

from memtui.core.display import sanitize


def add_yes_flag(parser) -> None:
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask on a terminal")


def confirmed(summary: str, question: str, *, yes: bool) -> bool:
    """True to go ahead: --yes, no terminal, or the user answered y on the terminal. The summary
    holds stored text (paths, titles): drawn literally, never as the terminal's escape sequences."""
    if yes or not sys.stdin.isatty():
        return True
    sys.stderr.write(f"{sanitize(summary, multiline=True)}\n{sanitize(question)} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        sys.stderr.write("nothing changed\n")
        return False
    return True
