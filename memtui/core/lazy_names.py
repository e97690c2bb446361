"""A package's names loaded from their modules on first use (PEP 562): a reader that needs one
name of `memtui.core.memory`, `memtui.core.cleanup` or `memtui.core.usage` does not import the
rest of the package with it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_getattr(package: str, module_of: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's module `__getattr__`: each name in `module_of` → the module that defines it
    ("save" is `package.save`; a dotted name is a whole module path), imported when the name is
    first asked for and then kept in the package's namespace."""

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module if "." in module else f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
