"""A module of the UI or the CLI reaches no other module's private members: `obj._x` is read
or set only where `_x` is defined (an object's state and behaviour stay together, as the main
and memory screens keep theirs; a helper module that needs a screen's state asks it through a
public name). Members a class inherits from a base in another module are its own (`self._x`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import memtui

PACKAGE = Path(memtui.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _reaching(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
    where = path.relative_to(root)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in defined:
            value = node.value
            own = (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super")
            if not own:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "memtui":
            found += [f"{where}:{node.lineno}: from {node.module} import {a.name}" for a in node.names if _private(a.name)]
    return found


def test_no_module_of_the_ui_or_cli_reaches_another_modules_private_members():
    found = [hit for folder in ("ui", "cli") for path in sorted((PACKAGE / folder).rglob("*.py"))
             for hit in _reaching(path)]
    assert found == [], "ask through a public name, or keep the behaviour with its state:\n" + "\n".join(found)


def test_the_check_sees_a_reach_into_another_module(tmp_path):
    module = tmp_path / "reach.py"
    module.write_text("def f(screen):\n    return screen._stale('x') or screen.public\n", encoding="utf-8")
    assert _reaching(module, tmp_path) == ["reach.py:2: screen._stale"]
