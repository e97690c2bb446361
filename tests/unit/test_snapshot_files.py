"""Every snapshot file belongs to a test that still exists.

The suite runs under pytest-xdist, where syrupy neither reports nor deletes unused snapshots
(each worker sees only its share of the tests). This keeps that check: a snapshot whose test
was renamed or removed fails here, naming the file to delete (or `pytest -n 0 FILE
--snapshot-update` on its test file, which deletes it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parents[1] / "ui" / "__snapshots__"


def _tests_of(module: Path) -> set[str]:
    """'test_x' and 'TestClass.test_x' for every test function of a module."""
    names: set[str] = set()
    for node in ast.parse(module.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names.update(f"{node.name}.{item.name}" for item in node.body
                         if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"))
    return names


def test_every_snapshot_file_has_its_test():
    files = sorted(SNAPSHOTS.glob("*/*.svg"))
    assert files, f"no snapshots under {SNAPSHOTS}"
    orphans = []
    for svg in files:
        module = SNAPSHOTS.parent / f"{svg.parent.name}.py"
        test = re.sub(r"\[.*\]$", "", svg.stem)  # a parametrised test's id
        if not module.is_file() or test not in _tests_of(module):
            orphans.append(str(svg.relative_to(SNAPSHOTS.parent)))
    assert not orphans, f"snapshots without a test (delete them): {orphans}"
