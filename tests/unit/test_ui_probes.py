"""The UI and the CLI ask a source what it can do (`source.can(Capability.X)`) and read it
through MemorySource's methods: no getattr/hasattr on a source or a store, and only a few
such calls at all (each for another reason: argparse namespaces, generic list widgets)."""

from __future__ import annotations

import ast
from pathlib import Path

import memtui

PACKAGE = Path(memtui.__file__).parent
BUDGET = 10


def _probes() -> list[tuple[str, int, str]]:
    found = []
    for folder in ("ui", "cli"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in ("getattr", "hasattr") and node.args):
                    found.append((str(path.relative_to(PACKAGE)), node.lineno, ast.unparse(node.args[0])))
    return found


def test_no_source_or_store_is_probed_for_attributes():
    probed = [p for p in _probes() if "source" in p[2] or "store" in p[2]]
    assert probed == [], "ask source.can(Capability.X) or a MemorySource method instead"


def test_few_attribute_probes_remain_in_the_ui_and_cli():
    probes = _probes()
    assert len(probes) <= BUDGET, probes
