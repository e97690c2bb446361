"""The README's reference parts name everything there is: every verb in the Use list, every
one-key command of the main screen in the key table (they omitted cleanup, restore and C)."""

from __future__ import annotations

import re
from pathlib import Path

from memtui.cli import VERBS
from memtui.ui.commands import COMMANDS

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _use_block() -> str:
    start = README.index("## Use")
    return README[README.index("```sh", start):README.index("```\n", README.index("```sh", start) + 5)]


def _key_table_keys() -> set[str]:
    start = README.index("| key | what |")
    keys: set[str] = set()
    for row in README[start:README.index("\n\n", start)].splitlines()[2:]:
        keys |= set(re.findall(r"`([^`]+)`", row.split("|")[1]))
    return keys


def test_the_use_list_names_every_verb() -> None:
    block = _use_block()
    missing = [verb for verb in VERBS if f"memtui {verb} " not in block and f"memtui [{verb}]" not in block]
    assert missing == []


def test_the_key_table_names_every_one_key_command_of_the_main_screen() -> None:
    keys = _key_table_keys()
    missing = [(c.shown_key, c.description) for c in COMMANDS
               if c.scope in ("app", "main") and len(c.shown_key) == 1 and not c.shown_key.isdigit()
               and c.shown_key not in keys]
    assert missing == []
