"""memtui uses Textual's public API only: no private name (`_x`) that Textual defines is read,
set or overridden anywhere in memtui, and no private Textual module is imported. A private
name is Textual's to change in any release; holding to the public API is what lets memtui
take any Textual 8.x (pyproject: textual>=8.2,<9).

What counts, found by walking the syntax trees (memtui's, and Textual's own source for what it
defines):
- in a class of memtui built on a Textual class: `def _x`, `self._x`, `cls._x`, `super()._x`
  where a Textual class of its MRO defines `_x` (a method, a class attribute, or `self._x = …`
  in one of its methods), and any `_on_…`/`_watch_…`/`_validate_…`/`_compute_…` method (those
  prefixes are Textual's private dispatch);
- anywhere: `obj._x` on another object where `_x` is a private name Textual defines and the
  module itself defines no `_x` (e.g. `screen._compositor`, `app._notifications`);
- `import textual._x`, `from textual.widgets._footer import …`, `from textual.x import _y`.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
from pathlib import Path

import textual

import memtui

PACKAGE = Path(memtui.__file__).parent
TEXTUAL = Path(textual.__file__).parent
DISPATCH = ("_on_", "_watch_", "_validate_", "_compute_")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of a syntax tree, `tree` first (the nodes ast.walk yields, in another order:
    walked once per module and reused, as the walks are most of this test's time)."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, ast.AST):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, ast.AST))
    return found


def _defined_in(tree: ast.AST | list[ast.AST], *, self_only: bool = False) -> set[str]:
    """Private names a syntax tree (or its `_nodes`) defines: functions, classes, assignments (to
    `self.`/`cls.` attributes only, with self_only)."""
    names = set()
    for node in tree if isinstance(tree, list) else _nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if not self_only or (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return {name for name in names if _private(name)}


@functools.cache
def _textual_private_names() -> frozenset[str]:
    """Every private name defined anywhere in Textual's source."""
    names: set[str] = set()
    for path in TEXTUAL.rglob("*.py"):
        names |= _defined_in(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


@functools.cache
def _class_private_names(cls: type) -> frozenset[str]:
    """The private names a Textual class defines itself: its class attributes and methods, and
    what its methods assign to `self`."""
    names = {name for name in vars(cls) if _private(name)}
    try:
        names |= _defined_in(ast.parse(inspect.getsource(cls).strip() + "\n"), self_only=True)
    except (OSError, TypeError, SyntaxError):  # a class made at run time: its vars say it
        pass
    return frozenset(names)


def _textual_names_of(cls: type) -> frozenset[str]:
    found: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "textual":
            found |= _class_private_names(base)
    return frozenset(found)


def _textual_names_of_class(module: object, nodes: list[ast.AST], node: ast.ClassDef) -> frozenset[str] | None:
    """The private names Textual defines for the class `node` of `module` (None: the class is
    not built on Textual). A class made inside a function (a driver chosen at run time) is
    judged by its bases, found among the names the module imports."""
    cls = getattr(module, node.name, None)
    if isinstance(cls, type) and cls.__module__ == getattr(module, "__name__", None):
        return _textual_names_of(cls) if _on_textual(cls) else None
    imported = {alias.asname or alias.name: (found.module, alias.name) for found in nodes
                if isinstance(found, ast.ImportFrom) and found.module for alias in found.names}
    names: set[str] = set()
    on_textual = False
    for base in node.bases:
        source = imported.get(ast.unparse(base))
        if source is None:
            base_cls = getattr(module, ast.unparse(base), None)
        else:
            base_cls = getattr(importlib.import_module(source[0]), source[1], None)
        if _on_textual(base_cls):
            on_textual = True
            names |= _textual_names_of(base_cls)  # type: ignore[arg-type]
    return frozenset(names) if on_textual else None


def _on_textual(cls: object) -> bool:
    return isinstance(cls, type) and any(b.__module__.split(".")[0] == "textual" for b in cls.__mro__)


def _own_reference(node: ast.Attribute) -> bool:
    """`self._x`, `cls._x` or `super()._x`."""
    value = node.value
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super")


def _modules() -> list[tuple[str, Path]]:
    found = []
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="memtui."):
        if info.ispkg:
            path = PACKAGE.joinpath(*info.name.split(".")[1:], "__init__.py")
        else:
            path = PACKAGE.joinpath(*info.name.split(".")[1:]).with_suffix(".py")
        found.append((info.name, path))
    return found


def _imports(tree: ast.AST | list[ast.AST]) -> list[tuple[int, str]]:
    found = []
    for node in tree if isinstance(tree, list) else _nodes(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names
                      if a.name.split(".")[0] == "textual" and any(_private(p) for p in a.name.split("."))]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            parts = (node.module or "").split(".")
            if any(_private(p) for p in parts) or any(_private(a.name) for a in node.names):
                found.append((node.lineno, f"from {node.module} import {', '.join(a.name for a in node.names)}"))
    return sorted(found)


def _violations(module_name: str, path: Path) -> list[str]:
    nodes = _nodes(ast.parse(path.read_text(encoding="utf-8")))
    where = str(path.relative_to(PACKAGE.parent))
    found = [f"{where}:{line}: {text}" for line, text in _imports(nodes)]
    own = _defined_in(nodes)
    everywhere = _textual_private_names()
    in_classes: set[int] = set()
    module = None
    for node in nodes:
        if not isinstance(node, ast.ClassDef):
            continue
        if module is None:
            module = importlib.import_module(module_name)
        textual_names = _textual_names_of_class(module, nodes, node)
        if textual_names is None:
            continue
        for inner in _nodes(node):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    inner.name in textual_names or inner.name.startswith(DISPATCH)):
                found.append(f"{where}:{inner.lineno}: {node.name} defines {inner.name}")
            elif isinstance(inner, ast.Attribute) and _own_reference(inner):
                in_classes.add(id(inner))
                if inner.attr in textual_names:
                    found.append(f"{where}:{inner.lineno}: {node.name}: {ast.unparse(inner)}")
    for node in nodes:
        if (isinstance(node, ast.Attribute) and _private(node.attr) and id(node) not in in_classes
                and not _own_reference(node) and node.attr in everywhere and node.attr not in own):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_memtui_uses_no_private_name_of_textual():
    found = [v for name, path in _modules() for v in _violations(name, path)]
    assert found == [], "use Textual's public API:\n" + "\n".join(found)


def test_the_check_finds_what_it_looks_for(tmp_path):
    """The walk sees a private Textual attribute read, a private override and a private import."""
    assert {"_message_queue", "_compositor", "_notifications"} <= _textual_private_names()
    from textual.widgets import DataTable

    assert {"_render_cell", "_row_locations"} <= _textual_names_of(DataTable)
    tree = ast.parse("from textual.widgets._footer import FooterKey\nimport textual._compositor\n")
    assert [line for line, _ in _imports(tree)] == [1, 2]
