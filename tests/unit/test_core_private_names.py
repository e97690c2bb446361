"""Private names stay inside their module in memtui/core: `obj._name` (and `from m import
_name`) in a module M is allowed only when `_name` is defined in M — a function, class or
method named so, an assignment to it (`self._x = …`, `_x = …`), or a class-body annotation
(`_db: Database`, what a mixin declares it needs). An index table read by another module, a
hook a subclass in another module calls, or a helper imported across modules is public or is
not used there. A renamed private name then fails in its own module, not at run time far away.

Two kinds of names are not memtui's to rename, and are allowed by name with their reason."""

from __future__ import annotations

import ast
from pathlib import Path

import memtui

CORE = Path(memtui.__file__).parent / "core"

NAMEDTUPLE_API = frozenset({"_asdict", "_replace", "_fields", "_make", "_field_defaults"})
"""collections.namedtuple's public methods, which start with an underscore to leave field names free."""

THIRD_PARTY = {
    "store/schema.py": frozenset({"_timeout", "_add_conn_hooks", "_state"}),
}
"""peewee's SqliteDatabase members its subclass reads when overriding `_connect`, peewee's hook
for opening a connection (the read-only store opens its own: immutable or mode=ro)."""


def _private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def _defined(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
    return names


def cross_module_private_uses(root: Path = CORE) -> list[str]:
    """Each use of a private name not defined in the module using it, as "path:line: code"."""
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = _defined(tree) | NAMEDTUPLE_API | THIRD_PARTY.get(where, frozenset())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in allowed:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("memtui"):
                found += [f"{where}:{node.lineno}: from {node.module} import {a.name}"
                          for a in node.names if _private(a.name)]
    return found


def test_no_private_name_is_used_outside_its_module():
    assert cross_module_private_uses() == []


def test_the_check_finds_a_private_name_read_across_modules(tmp_path):
    (tmp_path / "a.py").write_text("class Index:\n    def __init__(self):\n        self._turns = {}\n")
    (tmp_path / "b.py").write_text("from a import Index\n\ndef turns(ix: Index):\n    return ix._turns\n")
    (tmp_path / "c.py").write_text("from memtui.core.rollback import _helper\n")
    assert cross_module_private_uses(tmp_path) == ["b.py:4: ix._turns", "c.py:1: from memtui.core.rollback import _helper"]
